import Foundation

/// A whole database as SQL text that rebuilds it, as the sqlite3 shell's `.dump` writes
/// it: `PRAGMA foreign_keys=OFF;`, one transaction holding each table's `CREATE` statement
/// and its rows as `INSERT`s, `sqlite_sequence`, then the indexes, triggers and views.
/// Virtual tables are entered in the schema as the shell enters them
/// (`PRAGMA writable_schema`), their shadow tables dumped as tables.
///
/// Rows are streamed through the `.sql` export's writer (`ExportRowWriter`): read one at a
/// time and written in 64 KiB pieces, so a store of any size dumps in constant memory.
/// Values are written as stored: a DAO crypt column or an encrypted KV value stays
/// ciphertext. The text itself is plain SQL: a dump of a SQLCipher database is not
/// encrypted.
///
/// Differences from the shell, none of which changes what loading the dump builds: each
/// `INSERT` names its columns (`INSERT INTO "t"("a","b") VALUES(…)`), which also leaves
/// generated columns out, as the shell does; names are always quoted.
public struct DatabaseDump: Sendable {
    public init() {}

    /// What a dump wrote.
    public struct Report: Sendable, Equatable {
        /// Tables whose rows were written (`sqlite_sequence` and virtual tables not counted).
        public var tables = 0
        /// Rows written.
        public var rows = 0

        /// Nothing written yet.
        public init() {}
    }

    /// Writes the dump of `db` to `output`, in pieces of about 64 KiB. `progress` is called
    /// every 4,096 rows with the rows so far; returning false stops the dump
    /// (`TableExportError.cancelled`).
    /// - throws: `DatabaseError`, `TableExportError.cancelled`, and what `output` throws.
    @discardableResult
    public func run(on db: Database, to output: @escaping ([UInt8]) throws -> Void,
                    progress: (Int) -> Bool = { _ in true }) throws -> Report {
        var report = Report()
        let out = Output(output)
        out.append("PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n")
        let tables = try db.query("""
            SELECT name, sql FROM sqlite_schema
            WHERE sql NOT NULL AND type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
            ORDER BY rowid
            """)
        var writesSchema = false
        for table in tables {
            guard let name = table[0].stringValue, let sql = table[1].stringValue else { continue }
            if sql.range(of: "CREATE VIRTUAL TABLE", options: [.caseInsensitive, .anchored]) != nil {
                if !writesSchema { out.append("PRAGMA writable_schema=ON;\n") }
                writesSchema = true
                out.append("INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table',"
                           + Database.quoteLiteral(name) + "," + Database.quoteLiteral(name) + ",0," + Database.quoteLiteral(sql) + ");\n")
                continue
            }
            out.append(sql + ";\n")
            report.tables += 1
            report.rows += try appendRows(of: name, on: db, to: out, rowsBefore: report.rows, progress: progress)
        }
        if try db.scalar("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_sequence'") != nil {
            out.append("DELETE FROM sqlite_sequence;\n")
            _ = try appendRows(of: "sqlite_sequence", on: db, to: out, rowsBefore: report.rows, progress: progress)
        }
        for row in try db.query("SELECT sql FROM sqlite_schema WHERE sql NOT NULL AND type IN ('index', 'trigger', 'view') ORDER BY rowid") {
            if let sql = row[0].stringValue { out.append(sql + ";\n") }
        }
        if writesSchema { out.append("PRAGMA writable_schema=OFF;\n") }
        out.append("COMMIT;\n")
        try out.flush()
        return report
    }

    /// Appends the `INSERT`s of every row of `table` (its stored columns, not the generated
    /// ones); returns how many.
    private func appendRows(of table: String, on db: Database, to out: Output, rowsBefore: Int,
                            progress: (Int) -> Bool) throws -> Int {
        // hidden 0: an ordinary column; 2 and 3 are generated (virtual, stored).
        let columns = try db.query("SELECT name FROM pragma_table_xinfo(?) WHERE hidden = 0 ORDER BY cid", [.text(table)])
            .compactMap { $0[0].stringValue }
        guard !columns.isEmpty else { return 0 }
        let statement = try db.makeStatement("SELECT " + columns.map(Database.quoteIdentifier).joined(separator: ",")
                                             + " FROM " + Database.quoteIdentifier(table))
        let writer = ExportRowWriter(format: .sql, table: table, columns: columns, transforms: columns.map { _ in nil })
        var rows = 0
        try statement.forEachRow(values: []) { row in
            try writer.appendRow(of: row, into: &out.buffer)
            rows += 1
            if out.buffer.count >= TableExport.chunk { try out.flush() }
            let total = rowsBefore + rows
            if total % 4096 == 0, !progress(total) { throw TableExportError.cancelled(afterRows: total) }
            return true
        }
        return rows
    }

    /// The bytes not yet handed to the output, and the output.
    private final class Output {
        var buffer: [UInt8] = []
        let write: ([UInt8]) throws -> Void
        init(_ write: @escaping ([UInt8]) throws -> Void) {
            self.write = write
            buffer.reserveCapacity(TableExport.chunk + 4096)
        }
        func append(_ text: String) { buffer.append(contentsOf: text.utf8) }
        func flush() throws {
            guard !buffer.isEmpty else { return }
            try write(buffer)
            buffer.removeAll(keepingCapacity: true)
        }
    }
}
