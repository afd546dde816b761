import CSQLite
import Foundation

/// An export of a table's rows (filtered and ordered as asked) to CSV, JSON lines or SQL
/// `INSERT`s (`ExportFormat`), streamed: rows are read one at a time and written in
/// 64 KiB pieces, so any table exports in constant memory.
///
/// Columns given a transform (`transforms`: the crypt columns of a DAO table, decrypted)
/// are written as the transform returns them; a transform that throws stops the export
/// with that error, naming the column and the row.
///
/// For example:
/// ```swift
/// var export = TableExport(table: "messages", format: .csv)
/// export.filter = "conversation = 'team'"
/// try PrivateFile.writeAtomically(to: "team.csv") { try export.run(on: db, to: $0) }
/// ```
public struct TableExport: Sendable {
    /// The table (or view) exported; the table an SQL export's `INSERT`s name.
    public var table: String
    /// What the rows are read from instead of `table`, when set: a SELECT in parentheses
    /// (the rows of a query, exported as they come).
    public var relation: String?
    /// The format written.
    public var format: ExportFormat
    /// A SQL expression rows must satisfy (`WHERE`), or nil for every row.
    public var filter: String?
    /// A SQL `ORDER BY` list, or nil for the table's own order.
    public var order: String?
    /// By column name: what is written instead of the stored value.
    public var transforms: [String: @Sendable (DatabaseValue) throws -> DatabaseValue] = [:]

    /// An export of every row of `table` in `format`.
    public init(table: String, format: ExportFormat) {
        self.table = table
        self.format = format
    }

    /// The query that reads the rows.
    public var sql: String {
        var sql = "SELECT * FROM " + (relation ?? Database.quoteIdentifier(table))
        if let filter, !filter.isEmpty { sql += " WHERE " + filter }
        if let order, !order.isEmpty { sql += " ORDER BY " + order }
        return sql
    }

    /// Writes the export to `output` and returns how many rows it wrote. `progress` is
    /// called every 4,096 rows with the count so far; returning false cancels the export
    /// (it throws `TableExportError.cancelled`).
    /// - throws: `TableExportError` for a filter or order that is not one expression (or a
    ///   cancel, or a transform's failure), `DatabaseError` for SQL SQLite refuses, and
    ///   what writing to `output` throws.
    @discardableResult
    public func run(on db: Database, to output: FileHandle, progress: ((Int) -> Bool)? = nil) throws -> Int {
        try run(on: db, writing: { try output.write(contentsOf: $0) }, progress: progress)
    }

    /// Writes the export in chunks of bytes to `write` (a file, or a buffer kept in memory)
    /// and returns how many rows it wrote; otherwise as `run(on:to:progress:)`.
    @discardableResult
    public func run(on db: Database, writing write: ([UInt8]) throws -> Void, progress: ((Int) -> Bool)? = nil) throws -> Int {
        let statement: Statement
        do {
            statement = try db.makeStatement(sql)
        } catch let error as DatabaseError where error.code == SQLITE_ERROR || error.isMoreThanOneStatement {
            throw TableExportError.badQuery(sql: sql, reason: error.message)
        }
        guard statement.isReadOnly else { throw TableExportError.badQuery(sql: sql, reason: "it would write to the database") }
        let columns = statement.columnNames
        let unknown = transforms.keys.filter { !columns.contains($0) }.sorted()
        guard unknown.isEmpty else { throw TableExportError.badQuery(sql: sql, reason: "no column \(unknown.joined(separator: ", "))") }
        let writer = ExportRowWriter(format: format, table: table, columns: columns, transforms: columns.map { transforms[$0] })
        var buffer: [UInt8] = []
        buffer.reserveCapacity(Self.chunk + 4096)
        writer.prologue(into: &buffer)
        var rows = 0
        try statement.forEachRow(values: []) { row in
            do {
                try writer.appendRow(of: row, into: &buffer)
            } catch {
                throw TableExportError.transform(row: rows + 1, reason: "\(error)")
            }
            rows += 1
            if buffer.count >= Self.chunk {
                try write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
            if rows % 4096 == 0, let progress, !progress(rows) { throw TableExportError.cancelled(afterRows: rows) }
            return true
        }
        writer.epilogue(into: &buffer)
        try write(buffer)
        return rows
    }

    /// How many bytes are written at a time.
    static let chunk = 64 * 1024
}

/// Why an export stopped.
public enum TableExportError: Error, CustomStringConvertible, Equatable {
    /// The query made of the table, filter and order does not run.
    case badQuery(sql: String, reason: String)
    /// A column's transform failed on row `row` (1 = the first row exported).
    case transform(row: Int, reason: String)
    /// The progress callback asked to stop.
    case cancelled(afterRows: Int)

    public var description: String {
        switch self {
        case let .badQuery(sql, reason): return "cannot export with \(sql): \(reason)"
        case let .transform(row, reason): return "row \(row): \(reason)"
        case let .cancelled(rows): return "export cancelled after \(rows) row(s)"
        }
    }
}
