import DatacenterKit

/// Two versions of a store open on one read-only connection, A as `main` and B attached as
/// `aux` (each with the database key that opens it), read in one transaction: a diff sees
/// one committed state of each, whatever is written meanwhile.
final class StorePair {
    /// The connection; `main` is A, `aux` is B.
    let db: Database

    /// Opens `a` and attaches `b`, and starts the read transaction.
    /// - throws: `DatabaseError` naming the file that does not open (a wrong key, not a
    ///   database).
    init(a: String, b: String, databaseKeys: DatabaseKeyList, busyTimeout: Double) throws {
        let (probe, keyB) = try Self.open(b, databaseKeys: databaseKeys, busyTimeout: busyTimeout)
        probe.close()
        db = try Self.open(a, databaseKeys: databaseKeys, busyTimeout: busyTimeout).database
        do {
            try db.attachReadOnly(path: b, as: "aux", key: keyB)
            try db.execute("BEGIN")
            // Reading each schema starts the read transaction on both files now.
            _ = try db.queryFirst("SELECT count(*) FROM main.sqlite_schema")
            _ = try db.queryFirst("SELECT count(*) FROM aux.sqlite_schema")
        } catch {
            db.close()
            throw error
        }
    }

    /// `path` opened read-only with whichever of `databaseKeys` opens it, or with none when
    /// it is a plain file: a diff compares a file before and after `db encrypt` as readily as
    /// two of one kind, so a key given for one side never refuses the other.
    static func open(_ path: String, databaseKeys: DatabaseKeyList, busyTimeout: Double) throws -> (database: Database, key: DatabaseKey?) {
        do {
            return try databaseKeys.open(path: path, mode: .readOnly, busyTimeout: busyTimeout)
        } catch let error as DatabaseError where error.keyProblem == .notEncrypted {
            return try DatabaseKeyList.empty.open(path: path, mode: .readOnly, busyTimeout: busyTimeout)
        }
    }

    /// Ends the read transaction and closes the connection.
    func close() {
        try? db.execute("COMMIT")
        db.close()
    }

    /// The objects of `schema`'s own schema (`main` or `aux`), by name.
    func objects(in schema: String) throws -> [SchemaObject] {
        try db.query("SELECT type, name, tbl_name, sql FROM \(schema).sqlite_schema ORDER BY name").map {
            SchemaObject(type: $0[0].stringValue ?? "", name: $0[1].stringValue ?? "", table: $0[2].stringValue ?? "",
                         sql: $0[3].stringValue)
        }
    }
}

/// A row of `sqlite_schema`: a table, index, view or trigger.
struct SchemaObject: Equatable {
    /// `table`, `index`, `view` or `trigger`.
    let type: String
    /// Its name.
    let name: String
    /// The table it belongs to (itself for a table or view).
    let table: String
    /// The statement that created it; nil for an index SQLite made itself.
    let sql: String?

    /// True for a virtual table (which `sqldiff` leaves alone, as this diff does).
    var isVirtualTable: Bool { type == "table" && (sql ?? "").uppercased().hasPrefix("CREATE VIRTUAL") }
    /// True for a table SQLite keeps itself (`sqlite_sequence`, `sqlite_stat1`…).
    var isInternal: Bool { name.lowercased().hasPrefix("sqlite_") }
}
