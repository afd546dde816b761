import DatacenterKit

/// `diff --sql`: the statements that turn store A into store B, as `sqldiff` prints them
/// (the same text for the same change of a table, in the same order), plus what `sqldiff`
/// leaves out so that the result is B byte for byte (its `.dump` is B's):
/// - a table whose `CREATE TABLE` text changed is dropped and written again whole (`sqldiff`
///   adds a column with `ALTER TABLE`, which leaves A's statement);
/// - views and triggers that differ are dropped and created again, and before the first
///   row is written every trigger of A is dropped (and B's created at the end), so that no
///   trigger fires on the statements;
/// - `sqlite_sequence` and the other tables SQLite keeps are never created or dropped, only
///   their rows written, after the other tables;
/// - reals keep every bit (17 digits where 15 lose some).
/// Values are what the files store: an encrypted value is its ciphertext, never plaintext.
/// Virtual tables are left alone, as `sqldiff` leaves them (their shadow tables are diffed).
final class SQLDiffWriter {
    /// Where each statement goes, one line (or more, for text with line breaks) a call.
    let write: (String) -> Void
    /// How many statements were written.
    private(set) var statements = 0
    /// True once A's triggers were dropped before the first row written.
    private var triggersDropped = false
    /// Tables dropped so far (their triggers went with them).
    private var droppedTables: Set<String> = []
    /// A's triggers, dropped before the first row is written.
    private var triggersOfA: [SchemaObject] = []

    init(write: @escaping (String) -> Void) {
        self.write = write
    }

    /// Writes the statements that turn `pair`'s A into its B.
    func run(_ pair: StorePair) throws {
        let a = try pair.objects(in: "main")
        let b = try pair.objects(in: "aux")
        triggersOfA = a.filter { $0.type == "trigger" }
        triggersDropped = false
        droppedTables = []
        let inA = Dictionary(a.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let inB = Dictionary(b.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let tables = Set((a + b).filter { $0.type == "table" && !$0.isVirtualTable }.map(\.name))
        // SQLite's own tables last: they are created by the tables that need them.
        let ordered = tables.filter { !$0.lowercased().hasPrefix("sqlite_") }.sorted(by: Self.binaryOrder)
            + tables.filter { $0.lowercased().hasPrefix("sqlite_") }.sorted(by: Self.binaryOrder)
        var recreated: Set<String> = []
        for name in ordered {
            try table(name, a: inA[name], b: inB[name], pair: pair, a: a, b: b, recreated: &recreated)
        }
        // Views and triggers, which sqldiff leaves out.
        for object in a where object.type == "view" && inB[object.name] != object {
            emit("DROP VIEW \(SQLDiffLiteral.identifier(object.name));")
        }
        for object in a where object.type == "trigger" && !triggersDropped && !droppedTables.contains(object.table)
            && (inB[object.name] != object || recreated.contains(object.table)) {
            emit("DROP TRIGGER \(SQLDiffLiteral.identifier(object.name));")
        }
        for object in b where object.type == "view" && inA[object.name] != object {
            if let sql = object.sql { emit(sql + ";") }
        }
        for object in b where object.type == "trigger"
            && (triggersDropped || inA[object.name] != object || recreated.contains(object.table)) {
            if let sql = object.sql { emit(sql + ";") }
        }
    }

    /// The statements for one table, in the order `sqldiff` writes them.
    private func table(_ name: String, a objectA: SchemaObject?, b objectB: SchemaObject?, pair: StorePair,
                                a: [SchemaObject], b: [SchemaObject], recreated: inout Set<String>) throws {
        let id = SQLDiffLiteral.identifier(name)
        let isInternal = name.lowercased().hasPrefix("sqlite_")
        guard let objectB else {
            // Only in A.
            if isInternal {
                beforeRows()
                emit("DELETE FROM \(id);")
            } else {
                emit("DROP TABLE \(id);")
                droppedTables.insert(name)
            }
            return
        }
        guard let objectA else {
            // Only in B.
            try dump(name, object: objectB, pair: pair, b: b)
            recreated.insert(name)
            return
        }
        let layoutA = try TableLayout.of(name, schema: "main", in: pair.db)
        let layoutB = try TableLayout.of(name, schema: "aux", in: pair.db)
        guard let layoutA, let layoutB, layoutA == layoutB, objectA.sql == objectB.sql || isInternal else {
            if isInternal {
                beforeRows()
                emit("DELETE FROM \(id);")
                try dumpRows(name, pair: pair)
                return
            }
            emit("DROP TABLE \(id); -- due to schema mismatch")
            droppedTables.insert(name)
            try dump(name, object: objectB, pair: pair, b: b)
            recreated.insert(name)
            return
        }
        let indexesA = a.filter { $0.type == "index" && $0.table == name && $0.sql != nil }
        let indexesB = b.filter { $0.type == "index" && $0.table == name && $0.sql != nil }
        let sqlB = Set(indexesB.compactMap(\.sql))
        let sqlA = Set(indexesA.compactMap(\.sql))
        for index in indexesA where !sqlB.contains(index.sql ?? "") {
            emit("DROP INDEX \(SQLDiffLiteral.identifier(index.name));")
        }
        let keys = layoutB.keyColumns.map { layoutB.usesImplicitRowid ? $0 : SQLDiffLiteral.identifier($0) }
        let columns = layoutB.dataColumns.map(SQLDiffLiteral.identifier)
        let insertHead = "INSERT INTO \(id)(" + (keys + columns).joined(separator: ",") + ") VALUES("
        try TableRowDiff(table: name, layout: layoutB).forEachChange(in: pair.db) { change in
            beforeRows()
            let condition = " WHERE " + zip(keys, change.key).map { "\($0)=\(SQLDiffLiteral.value($1))" }.joined(separator: " AND ")
            switch change.kind {
            case .updated:
                var sets: [String] = []
                for (column, (changed, value)) in zip(columns, zip(change.changed, change.new)) where changed {
                    sets.append("\(column)=\(SQLDiffLiteral.value(value))")
                }
                emit("UPDATE \(id) SET " + sets.joined(separator: ", ") + condition + ";")
            case .deleted:
                emit("DELETE FROM \(id)" + condition + ";")
            case .inserted:
                emit(insertHead + (change.key + change.new).map(SQLDiffLiteral.value).joined(separator: ",") + ");")
            }
            return true
        }
        for index in indexesB where !sqlA.contains(index.sql ?? "") {
            emit((index.sql ?? "") + ";")
        }
    }

    /// A table only B has, written whole: its statement, its rows in key order, its indexes.
    private func dump(_ name: String, object: SchemaObject, pair: StorePair, b: [SchemaObject]) throws {
        if !object.isInternal, let sql = object.sql { emit(sql + ";") }
        try dumpRows(name, pair: pair)
        for index in b where index.type == "index" && index.table == name {
            if let sql = index.sql { emit(sql + ";") }
        }
    }

    /// B's rows of `name` as `INSERT`s, in key order.
    private func dumpRows(_ name: String, pair: StorePair) throws {
        let id = SQLDiffLiteral.identifier(name)
        let select: String
        let head: String
        if let layout = try TableLayout.of(name, schema: "aux", in: pair.db) {
            let names = layout.keyColumns.map { layout.usesImplicitRowid ? $0 : SQLDiffLiteral.identifier($0) }
                + layout.dataColumns.map(SQLDiffLiteral.identifier)
            select = "SELECT " + layout.columns.map(Database.quoteIdentifier).joined(separator: ", ")
                + " FROM aux.\(Database.quoteIdentifier(name)) ORDER BY "
                + (1...layout.keyColumns.count).map(String.init).joined(separator: ", ")
            head = "INSERT INTO \(id)(" + names.joined(separator: ",") + ") VALUES("
        } else {
            select = "SELECT * FROM aux.\(Database.quoteIdentifier(name))"
            head = "INSERT INTO \(id) VALUES("
        }
        let statement = try pair.db.makeStatement(select)
        let count = statement.columnCount
        try statement.forEachRow { row in
            beforeRows()
            emit(head + (0..<count).map { SQLDiffLiteral.value(row.value(at: $0)) }.joined(separator: ",") + ");")
            return true
        }
    }

    /// Before the first row written: drops every trigger of A still there, so none fires on
    /// the statements (B's are created at the end).
    private func beforeRows() {
        guard !triggersDropped else { return }
        triggersDropped = true
        for trigger in triggersOfA where !droppedTables.contains(trigger.table) {
            emit("DROP TRIGGER \(SQLDiffLiteral.identifier(trigger.name));")
        }
    }

    private func emit(_ statement: String) {
        statements += 1
        write(statement)
    }

    /// Names in SQLite's BINARY order (bytes), as `ORDER BY name` gives them.
    static func binaryOrder(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
}
