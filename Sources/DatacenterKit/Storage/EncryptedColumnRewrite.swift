import Foundation

/// Rewrites the encrypted columns of one table in place, row by row, for a rekey: runs inside
/// the caller's transaction (so a store moves whole or not at all), and reads a page of rows
/// at a time (keyset paging on the table's key), so memory stays bounded by a page whatever the
/// table's size. Each page is read whole, and its statement reset, before any of its rows is
/// updated: a scan never runs over rows being rewritten.
public struct EncryptedColumnRewrite {
    /// Rows read at once.
    public static let pageSize = 256

    /// The table.
    public let table: String
    /// The columns that identify a row, in order (`rowid` for a table that has one).
    public let keyColumns: [String]
    /// The encrypted columns.
    public let columns: [String]
    /// Other columns the transform needs (a KV value's encoding).
    public let extraColumns: [String]
    /// A SQL condition rows must meet to be looked at, or nil for every row.
    public let filter: String?

    /// A rewrite of `columns` of `table`, rows identified by `keyColumns`.
    public init(table: String, keyColumns: [String], columns: [String], extraColumns: [String] = [], filter: String? = nil) {
        self.table = table
        self.keyColumns = keyColumns
        self.columns = columns
        self.extraColumns = extraColumns
        self.filter = filter
    }

    /// One stored value handed to the transform.
    public struct Value {
        /// The encrypted column it is in.
        public let column: String
        /// The value as stored.
        public let stored: DatabaseValue
        /// The row's key values, in `keyColumns`' order.
        public let key: [DatabaseValue]
        /// The row's `extraColumns` values, in order.
        public let extras: [DatabaseValue]
        /// The row's key as people read it: `alice/theme`, or `row 12`.
        public var rowName: String {
            key.map { value in value.stringValue ?? value.int64Value.map(String.init) ?? "\(value)" }.joined(separator: "/")
        }
    }

    /// Calls `transform` with each value of the encrypted columns (of the rows the filter
    /// keeps) and writes back the values it returns as `.moved`; nil or `.alreadyDone` leave
    /// the value as it is. `looked` is called after each row (for progress).
    /// - returns: how many values moved and were already done.
    public func run(in db: Database, looked: () -> Void = {},
                    _ transform: (Value) throws -> RekeyCrypt.Outcome?) throws -> (moved: Int, alreadyDone: Int) {
        let quotedKeys = keyColumns.map(Self.quote)
        let selected = (quotedKeys + columns.map(Self.quote) + extraColumns.map(Self.quote)).joined(separator: ", ")
        let from = "SELECT \(selected) FROM \(Database.quoteIdentifier(table))"
        let order = " ORDER BY \(quotedKeys.joined(separator: ", ")) LIMIT ?"
        let condition = filter.map { "(\($0))" }
        let keyTuple = "(\(quotedKeys.joined(separator: ", ")))"
        let placeholders = "(\(keyColumns.map { _ in "?" }.joined(separator: ", ")))"
        let first = try db.makeStatement(from + (condition.map { " WHERE " + $0 } ?? "") + order)
        let next = try db.makeStatement(from + " WHERE " + (condition.map { $0 + " AND " } ?? "") + "\(keyTuple) > \(placeholders)" + order)
        let whereKey = quotedKeys.map { "\($0) = ?" }.joined(separator: " AND ")
        let updates = try columns.map { column in
            try db.makeStatement("UPDATE \(Database.quoteIdentifier(table)) SET \(Self.quote(column)) = ? WHERE \(whereKey)")
        }
        var moved = 0, alreadyDone = 0
        var last: [DatabaseValue]?
        var page: [[DatabaseValue]] = []
        let width = keyColumns.count + columns.count + extraColumns.count
        repeat {
            page.removeAll(keepingCapacity: true)
            let collect: (Statement) throws -> Bool = { row in
                page.append((0..<width).map { row.value(at: $0) })
                return true
            }
            if let last {
                try next.forEachRow(StatementArguments(last + [.integer(Int64(Self.pageSize))]), collect)
            } else {
                try first.forEachRow(StatementArguments([.integer(Int64(Self.pageSize))]), collect)
            }
            for row in page {
                let key = Array(row[0..<keyColumns.count])
                let extras = Array(row[(keyColumns.count + columns.count)...])
                for (index, column) in columns.enumerated() {
                    let value = Value(column: column, stored: row[keyColumns.count + index], key: key, extras: extras)
                    switch try transform(value) {
                    case .moved(let data)?:
                        try updates[index].execute(StatementArguments([.blob(data)] + key))
                        moved += 1
                    case .alreadyDone?: alreadyDone += 1
                    case nil: break
                    }
                }
                looked()
            }
            last = page.last.map { Array($0[0..<keyColumns.count]) }
        } while page.count == Self.pageSize
        return (moved, alreadyDone)
    }

    /// The columns that identify a row of `table`: `rowid`, or the primary key's columns of a
    /// `WITHOUT ROWID` table.
    public static func keyColumns(of table: String, in db: Database) throws -> [String] {
        let sql = try db.scalar("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)])?.stringValue ?? ""
        guard sql.uppercased().filter({ !$0.isWhitespace }).contains("WITHOUTROWID") else { return ["rowid"] }
        let info = try db.query("PRAGMA table_info(\(Database.quoteIdentifier(table)))")
        return info.filter { ($0[5].int64Value ?? 0) > 0 }.sorted { ($0[5].int64Value ?? 0) < ($1[5].int64Value ?? 0) }
            .compactMap { $0[1].stringValue }
    }

    /// The names of `table`'s columns.
    public static func columnNames(of table: String, in db: Database) throws -> [String] {
        try db.query("PRAGMA table_info(\(Database.quoteIdentifier(table)))").compactMap { $0[1].stringValue }
    }

    /// `rowid` as it is (quoting it would name a column), other names quoted.
    private static func quote(_ name: String) -> String { name == "rowid" ? name : Database.quoteIdentifier(name) }
}
