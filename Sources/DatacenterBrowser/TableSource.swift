import DatacenterKit
import Foundation

/// The rows of one table (or view), paged by key: the rowid, or the primary key of a
/// WITHOUT ROWID table; views, which have neither, page by offset.
///
/// The rowid is reached through whichever of its names (`_rowid_`, `rowid`, `oid`) no
/// column of the table shadows; a table whose columns take all three is paged by offset
/// and cannot be edited here.
package final class TableSource: GridSource, Sendable {
    package let title: String
    package let columns: [String]
    /// The store file the table is in.
    let store: Store
    /// The table's name.
    let table: String
    /// The columns that order and address rows: a rowid name, or the primary key.
    let keyColumns: [String]
    /// True when rows page by offset (no key to page by: a view, or a hidden rowid).
    let usesOffset: Bool
    /// True for a view (no row can be addressed to edit it).
    let isView: Bool
    /// Why rows cannot be edited (no key to address them by), or nil.
    let editRefusal: String?
    /// The columns whose values are decrypted for display.
    let encryptedColumns: Set<String>
    /// The keys that decrypt them.
    let crypt: any DataCrypt
    private let selectList: String

    /// The names SQLite gives the rowid, in the order they are tried.
    static let rowidNames = ["_rowid_", "rowid", "oid"]

    /// Reads `table` of `store`; values of `encryptedColumns` are decrypted with `crypt`.
    package init(store: Store, table: String, encryptedColumns: Set<String> = [], crypt: any DataCrypt, title: String? = nil) throws {
        self.store = store
        self.table = table
        self.encryptedColumns = encryptedColumns
        self.crypt = crypt
        self.title = title ?? table
        struct Shape { var names: [String]; var keys: [String]; var isView: Bool; var refusal: String? }
        let shape: Shape = try store.queue.read { db in
            let info = try db.query("SELECT name, pk FROM pragma_table_info(?) ORDER BY cid", [.text(table)])
            let names = info.compactMap { $0[0].stringValue }
            let isView = try db.scalar("SELECT 1 FROM sqlite_master WHERE type = 'view' AND name = ?", [.text(table)]) != nil
            if isView { return Shape(names: names, keys: [], isView: true, refusal: "\(table) is a view: its rows cannot be edited here (use the SQL console)") }
            let withoutRowID = try db.scalar("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", [.text(table)])?.int64Value == 1
            if withoutRowID {
                let pk = info.filter { ($0[1].int64Value ?? 0) > 0 }.sorted { ($0[1].int64Value ?? 0) < ($1[1].int64Value ?? 0) }.compactMap { $0[0].stringValue }
                return Shape(names: names, keys: pk, isView: false, refusal: pk.isEmpty ? "\(table) has no primary key: its rows cannot be edited here (use the SQL console)" : nil)
            }
            let taken = Set(names.map { $0.lowercased() })
            guard let alias = TableSource.rowidNames.first(where: { !taken.contains($0) }) else {
                return Shape(names: names, keys: [], isView: false,
                             refusal: "\(table) has columns named _rowid_, rowid and oid, which hide its rowid: its rows cannot be addressed to edit them (use the SQL console)")
            }
            return Shape(names: names, keys: [alias], isView: false, refusal: nil)
        }
        columns = shape.names
        keyColumns = shape.keys
        usesOffset = shape.keys.isEmpty
        isView = shape.isView
        editRefusal = shape.refusal
        selectList = (shape.keys.map(Database.quoteIdentifier) + ["*"]).joined(separator: ", ")
    }

    private var quoted: String { Database.quoteIdentifier(table) }
    private var keyTuple: String { "(" + keyColumns.map(Database.quoteIdentifier).joined(separator: ", ") + ")" }
    private func order(_ direction: String) -> String {
        keyColumns.map { Database.quoteIdentifier($0) + " " + direction }.joined(separator: ", ")
    }

    package func firstPage(limit: Int) throws -> [GridRow] {
        if usesOffset { return try offsetPage(from: 0, limit: limit) }
        return try fetch("SELECT \(selectList) FROM \(quoted) ORDER BY \(order("ASC")) LIMIT ?", [.integer(Int64(limit))])
    }

    package func page(after row: GridRow, limit: Int) throws -> [GridRow] {
        if usesOffset { return try offsetPage(from: (row.key.first?.int64Value ?? 0) + 1, limit: limit) }
        let marks = "(" + Array(repeating: "?", count: keyColumns.count).joined(separator: ", ") + ")"
        return try fetch("SELECT \(selectList) FROM \(quoted) WHERE \(keyTuple) > \(marks) ORDER BY \(order("ASC")) LIMIT ?",
                         row.key + [.integer(Int64(limit))])
    }

    package func page(before row: GridRow, limit: Int) throws -> [GridRow] {
        if usesOffset {
            let start = row.key.first?.int64Value ?? 0
            return try offsetPage(from: max(0, start - Int64(limit)), limit: Int(min(Int64(limit), start)))
        }
        let marks = "(" + Array(repeating: "?", count: keyColumns.count).joined(separator: ", ") + ")"
        return try fetch("SELECT \(selectList) FROM \(quoted) WHERE \(keyTuple) < \(marks) ORDER BY \(order("DESC")) LIMIT ?",
                         row.key + [.integer(Int64(limit))]).reversed()
    }

    package func lastPage(limit: Int) throws -> [GridRow] {
        if usesOffset {
            let total = Int64(try count())
            return try offsetPage(from: max(0, total - Int64(limit)), limit: limit)
        }
        return try fetch("SELECT \(selectList) FROM \(quoted) ORDER BY \(order("DESC")) LIMIT ?", [.integer(Int64(limit))]).reversed()
    }

    /// `row N`, 1-based, for rows paged by offset (a view, a hidden rowid); else `key` and
    /// the rowid or primary key.
    package func position(of row: GridRow) -> String {
        guard usesOffset else { return "key " + row.key.map(\.description).joined(separator: ",") }
        return "row \((row.key.first?.int64Value ?? 0) + 1)"
    }

    package func count() throws -> Int {
        // On its own read connection, so a slow count never holds up paging.
        try store.pool.read { db in Int(try db.scalar("SELECT count(*) FROM \(quoted)", cached: false)?.int64Value ?? 0) }
    }

    private func offsetPage(from start: Int64, limit: Int) throws -> [GridRow] {
        guard limit > 0 else { return [] }
        var index = start
        return try store.queue.read { db in
            var rows: [GridRow] = []
            try db.forEachRow("SELECT * FROM \(quoted) LIMIT ? OFFSET ?", [.integer(Int64(limit)), .integer(start)]) { s in
                rows.append(GridRow(key: [.integer(index)], cells: (0..<s.columnCount).map { cell(s.value(at: $0), column: $0) }))
                index += 1
                return true
            }
            return rows
        }
    }

    private func fetch(_ sql: String, _ arguments: [DatabaseValue]) throws -> [GridRow] {
        let keyCount = keyColumns.count
        return try store.queue.read { db in
            var rows: [GridRow] = []
            try db.forEachRow(sql, StatementArguments(arguments)) { s in
                let key = (0..<keyCount).map { s.value(at: $0) }
                let cells = (keyCount..<s.columnCount).map { cell(s.value(at: $0), column: $0 - keyCount) }
                rows.append(GridRow(key: key, cells: cells))
                return true
            }
            return rows
        }
    }

    private func cell(_ value: DatabaseValue, column: Int) -> GridCell {
        if column < columns.count, encryptedColumns.contains(columns[column]) {
            return ValueFormatter.encryptedCell(value, crypt: crypt)
        }
        return ValueFormatter.cell(value)
    }
}
