import DatacenterKit
import Foundation

/// The undo of a store's last commit, kept in the state folder (`StateFolder`) as
/// `undo/NAME-HASH.sqlite` (named as the console's history is), replaced by the store's next
/// commit (`UndoRecorder` writes it).
///
/// The file is a SQLite database, private to the user (0600), encrypted with the store's own
/// key (and cipher settings) when the store is encrypted: it holds the store's values as the
/// store holds them, a crypt column's as its ciphertext, never a plaintext copy. Its tables:
/// - `undo_commit(commit_id, store_path, committed_at, statements)`: one row;
/// - `undo_statement(seq, label, check_kind, tbl, sql_id, arguments, preview, redo)`: the
///   exact inverse statements of what the commit wrote, in the order they undo it, each with
///   the row it restores (`label`) and how to tell that row changed since (`check_kind`,
///   `UndoCheck`); its SQL is `undo_sql(id, sql)`'s (each text once), `arguments` its values
///   (`UndoValues`); the first statements have a `preview` for the review; a schema
///   statement's `redo` does again what it undoes (so that an undo can itself be undone).
///
/// `run` plays them on the store: a statement whose row changed since the commit stops the
/// undo (or, in a dry run, is named and skipped), so an undo never overwrites a later change.
enum UndoFile {
    /// What an undo file says of the commit it undoes.
    struct Commit: Sendable {
        /// The commit's id, shared by the undo files of every store it wrote.
        let id: String
        /// The store the file undoes.
        let storePath: String
        /// When the commit was written.
        let committedAt: Date
        /// How many statements undo it.
        let statements: Int
    }

    /// How a statement tells that its row changed since the commit.
    enum UndoCheck: String {
        /// An update or delete whose WHERE names the row as the commit left it: it must
        /// change exactly one row.
        case row
        /// An insert putting back a deleted row: its key must be free.
        case insert
        /// A `DROP TABLE` of a table the commit created: it must be empty by then.
        case emptyTable = "empty"
        /// A schema change (a column renamed back): it runs as is.
        case schema
    }

    /// The undo file of the store at `storePath` in `stateFolder`.
    static func path(storePath: String, stateFolder: URL) -> String {
        stateFolder.appendingPathComponent("undo").appendingPathComponent(StateFolder.fileName(forStore: storePath) + ".sqlite").path
    }

    /// The tables of a new undo file.
    static let schema = """
        CREATE TABLE undo_commit(commit_id TEXT NOT NULL, store_path TEXT NOT NULL, committed_at REAL NOT NULL, statements INTEGER NOT NULL);
        CREATE TABLE undo_sql(id INTEGER PRIMARY KEY, sql TEXT NOT NULL);
        CREATE TABLE undo_statement(seq INTEGER PRIMARY KEY, label TEXT NOT NULL, check_kind TEXT NOT NULL, tbl TEXT NOT NULL,
                                    sql_id INTEGER NOT NULL REFERENCES undo_sql(id), arguments BLOB NOT NULL, preview TEXT, redo TEXT);
        """

    /// Opens the undo file at `path` read-only, with the store's key (nil: the store is plain).
    /// - throws: `DatabaseError` naming the file (a wrong key says so).
    static func open(path: String, key: DatabaseKey?) throws -> Database {
        try Database(path: path, key: key, mode: .readOnly)
    }

    /// The commit the open undo file `undo` undoes.
    /// - throws: `BrowserEditError` when the file is not an undo file.
    static func commit(in undo: Database) throws -> Commit {
        guard let row = try? undo.queryFirst("SELECT commit_id, store_path, committed_at, statements FROM undo_commit"),
              let id = row[0].stringValue, let store = row[1].stringValue, let count = row[3].int64Value else {
            throw BrowserEditError(message: "\(undo.path) is not an undo file of this version")
        }
        let seconds: Double
        switch row[2] {
        case .real(let d): seconds = d
        case .integer(let i): seconds = Double(i)
        default: seconds = 0
        }
        return Commit(id: id, storePath: store, committedAt: Date(timeIntervalSince1970: seconds), statements: Int(count))
    }

    /// The previews of the first `limit` statements, in the order they run.
    static func previews(in undo: Database, limit: Int) throws -> [String] {
        try undo.query("SELECT preview FROM undo_statement WHERE preview IS NOT NULL ORDER BY seq LIMIT ?", [.integer(Int64(limit))])
            .compactMap { $0[0].stringValue }
    }

    /// Plays the statements of `undo` on `target`, inside the caller's transaction, in order.
    ///
    /// A statement whose row changed since the commit throws `BrowserEditError` naming the
    /// row; with `dryRun`, it is skipped instead and its row named in the result (the caller
    /// rolls the transaction back). Any other failure throws. `recorder`, when the undo is
    /// itself committed, is told of each schema statement before it runs, with its inverse.
    /// - returns: the rows that changed since the commit, in words (empty unless `dryRun`).
    @discardableResult
    static func run(_ undo: Database, on target: Database, dryRun: Bool, recorder: UndoRecorder? = nil) throws -> [String] {
        var changed: [String] = []
        try undo.forEachRow("""
            SELECT s.label, s.check_kind, s.tbl, q.sql, s.arguments, s.redo FROM undo_statement AS s JOIN undo_sql AS q ON q.id = s.sql_id
            ORDER BY s.seq
            """) { row in
            let label = row.value(at: 0).stringValue ?? "?"
            let table = row.value(at: 2).stringValue ?? ""
            guard let check = row.value(at: 1).stringValue.flatMap(UndoCheck.init), let sql = row.value(at: 3).stringValue,
                  let encoded = row.value(at: 4).dataValue else {
                throw BrowserEditError(message: "\(undo.path): a statement of the undo file is damaged")
            }
            let arguments = try UndoValues.decode(encoded)
            if let recorder, check == .schema || check == .emptyTable {
                // A dropped table comes back as the schema holds it now.
                let redo = try row.value(at: 5).stringValue
                    ?? target.scalar("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(table)])?.stringValue
                if let redo { try recorder.logSchema(inverse: redo, redo: sql, table: table, on: target) }
            }
            if let conflict = try play(sql, arguments, check: check, table: table, label: label, on: target) {
                guard dryRun else { throw BrowserEditError(message: conflict + ": the undo is not written") }
                changed.append(conflict)
            }
            return true
        }
        return changed
    }

    /// Runs one statement; returns what changed since the commit, or nil when it ran.
    private static func play(_ sql: String, _ arguments: [DatabaseValue], check: UndoCheck, table: String, label: String,
                             on db: Database) throws -> String? {
        switch check {
        case .row:
            try db.execute(sql, StatementArguments(arguments))
            return db.changes == 1 ? nil : "\(label) changed since the commit"
        case .insert:
            do {
                try db.execute(sql, StatementArguments(arguments))
            } catch let error as DatabaseError where error.isConstraintViolation {
                return "\(label) cannot be put back: \(error.message)"   // its key taken again, most often
            }
            return nil
        case .emptyTable:
            if try db.scalar("SELECT EXISTS (SELECT 1 FROM \(Database.quoteIdentifier(table)))")?.int64Value == 1 {
                return "rows were added to \(table) since the commit"
            }
            try db.execute(sql)
            return nil
        case .schema:
            try db.execute(sql)
            return nil
        }
    }

    /// `rows` in words for a refusal: the first few, then how many more.
    static func naming(_ rows: [String], limit: Int = 4) -> String {
        let shown = rows.prefix(limit).joined(separator: "; ")
        return rows.count > limit ? shown + "; and \(rows.count - limit) more" : shown
    }
}

/// A list of database values as bytes, type and value exact (an undo statement's arguments):
/// per value a tag byte (0 NULL, 1 integer, 2 real, 3 text, 4 blob) then, for an integer or a
/// real, its 8 bytes (big-endian; a real's bit pattern), for a text or a blob its length in 4
/// bytes (big-endian) and its bytes.
enum UndoValues {
    /// `values` as bytes.
    static func encode(_ values: [DatabaseValue]) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(values.count * 9)
        func append(_ number: UInt64, bytes: Int) {
            for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: number >> UInt64(shift))) }
        }
        for value in values {
            switch value {
            case .null: out.append(0)
            case .integer(let i): out.append(1); append(UInt64(bitPattern: i), bytes: 8)
            case .real(let d): out.append(2); append(d.bitPattern, bytes: 8)
            case .text(let s):
                out.append(3)
                append(UInt64(s.utf8.count), bytes: 4)
                out.append(contentsOf: s.utf8)
            case .blob(let d):
                out.append(4)
                append(UInt64(d.count), bytes: 4)
                out.append(contentsOf: d)
            }
        }
        return Data(out)
    }

    /// The values `encode` wrote.
    /// - throws: `BrowserEditError` when the bytes are not such a list.
    static func decode(_ data: Data) throws -> [DatabaseValue] {
        let bytes = [UInt8](data)
        var index = 0
        func number(_ count: Int) throws -> UInt64 {
            guard index + count <= bytes.count else { throw BrowserEditError(message: "an undo statement's values are cut short") }
            var value: UInt64 = 0
            for byte in bytes[index..<index + count] { value = value << 8 | UInt64(byte) }
            index += count
            return value
        }
        func payload() throws -> ArraySlice<UInt8> {
            let count = Int(try number(4))
            guard index + count <= bytes.count else { throw BrowserEditError(message: "an undo statement's values are cut short") }
            defer { index += count }
            return bytes[index..<index + count]
        }
        var values: [DatabaseValue] = []
        while index < bytes.count {
            let tag = bytes[index]
            index += 1
            switch tag {
            case 0: values.append(.null)
            case 1: values.append(.integer(Int64(bitPattern: try number(8))))
            case 2: values.append(.real(Double(bitPattern: try number(8))))
            case 3: values.append(.text(String(decoding: try payload(), as: UTF8.self)))
            case 4: values.append(.blob(Data(try payload())))
            default: throw BrowserEditError(message: "an undo statement's values hold an unknown tag \(tag)")
            }
        }
        return values
    }
}
