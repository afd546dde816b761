import DatacenterKit
import Foundation

/// The rows of one table (or view), paged by key: the rowid, or the primary key of a
/// WITHOUT ROWID table; views, which have neither, page by offset. Sorted by a column
/// (`TableView`), rows page by that column's value and then the key.
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
    /// The sort and filter the rows are read with.
    package let view: TableView
    /// The table's foreign keys, which `J` follows from a cell of one of their columns.
    let foreignKeys: [TableSchema.ForeignKey]
    private let selectList: String

    /// The names SQLite gives the rowid, in the order they are tried.
    static let rowidNames = ["_rowid_", "rowid", "oid"]

    /// Reads `table` of `store`, sorted and filtered as `view` says; values of
    /// `encryptedColumns` are decrypted with `crypt`.
    /// - throws: `TableViewError` for a sort column the table lacks or holds encrypted, or
    ///   a filter that is not one expression SQLite accepts; `DatabaseError`.
    package init(store: Store, table: String, encryptedColumns: Set<String> = [], crypt: any DataCrypt, title: String? = nil,
                 view: TableView = TableView()) throws {
        self.store = store
        self.view = view
        self.table = table
        self.encryptedColumns = encryptedColumns
        self.crypt = crypt
        self.title = title ?? table
        struct Shape { var names: [String]; var keys: [String]; var isView: Bool; var refusal: String?; var foreignKeys: [TableSchema.ForeignKey] = [] }
        var shape: Shape = try store.queue.read { db in
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
        shape.foreignKeys = try store.queue.read { db in try TableSchema.foreignKeys(of: table, in: db) }
        foreignKeys = shape.foreignKeys
        columns = shape.names
        keyColumns = shape.keys
        usesOffset = shape.keys.isEmpty
        isView = shape.isView
        editRefusal = shape.refusal
        let sortColumn = view.sort.map { Database.quoteIdentifier($0.column) }
        selectList = ((sortColumn.map { [$0] } ?? []) + shape.keys.map(Database.quoteIdentifier) + ["*"]).joined(separator: ", ")
        try checkView()
    }

    /// A source of the same table, sorted and filtered as `view` says.
    /// - throws: what `init` throws for the view.
    package func viewing(_ view: TableView) throws -> GridSource {
        try TableSource(store: store, table: table, encryptedColumns: encryptedColumns, crypt: crypt, title: title, view: view)
    }

    /// Refuses a sort or filter this table cannot be read with, before any page is read.
    private func checkView() throws {
        if let sort = view.sort {
            guard columns.contains(sort.column) else { throw TableViewError("\(table) has no column \(sort.column)") }
            guard !encryptedColumns.contains(sort.column) else {
                throw TableViewError("\(sort.column) is encrypted: SQLite holds only its ciphertext, so it cannot sort by it")
            }
        }
        if let filter = view.filter, !filter.isEmpty {
            let sql = "SELECT 1 FROM \(quoted) WHERE (\(filter))"
            do {
                let readOnly = try store.queue.read { db in try db.makeStatement(sql).isReadOnly }
                guard readOnly else { throw TableViewError("filter \(filter): it would write") }
            } catch let error as DatabaseError {
                throw TableViewError("filter \(filter): \(error.message)")
            }
        }
    }

    private var quoted: String { Database.quoteIdentifier(table) }
    private var keyTuple: String { "(" + keyColumns.map(Database.quoteIdentifier).joined(separator: ", ") + ")" }
    private var keyMarks: String { "(" + Array(repeating: "?", count: keyColumns.count).joined(separator: ", ") + ")" }

    /// The `ORDER BY` of a read in the grid's order (`forward`) or against it.
    private func order(forward: Bool) -> String {
        let ascending = forward != (view.sort?.descending ?? false)
        let direction = ascending ? " ASC" : " DESC"
        let sort = view.sort.map { [Database.quoteIdentifier($0.column) + direction] } ?? []
        return (sort + keyColumns.map { Database.quoteIdentifier($0) + direction }).joined(separator: ", ")
    }

    /// `WHERE` with the filter and `condition` (either may be absent), or nothing.
    private func clause(_ condition: String?) -> String {
        let filter = view.filter.flatMap { $0.isEmpty ? nil : "(" + $0 + ")" }
        let parts = [filter, condition].compactMap { $0 }
        return parts.isEmpty ? "" : " WHERE " + parts.joined(separator: " AND ")
    }

    /// The rows after `row` in the grid's order (`forward`) or before it, as a condition and
    /// its arguments: the key compared as a row value, after the sort column's value when
    /// the grid is sorted (NULLs first when ascending, last when descending, as SQLite
    /// orders them).
    private func keyset(from row: GridRow, forward: Bool) -> (String, [DatabaseValue]) {
        let greater = forward != (view.sort?.descending ?? false)
        let comparison = greater ? ">" : "<"
        let keyCondition = "\(keyTuple) \(comparison) \(keyMarks)"
        guard let sort = view.sort, let value = row.orderKey.first else { return (keyCondition, row.key) }
        let column = Database.quoteIdentifier(sort.column)
        switch (value, greater) {
        case (.null, true): return ("((\(column) IS NULL AND \(keyCondition)) OR \(column) IS NOT NULL)", row.key)
        case (.null, false): return ("(\(column) IS NULL AND \(keyCondition))", row.key)
        case (_, true): return ("(\(column) > ? OR (\(column) = ? AND \(keyCondition)))", [value, value] + row.key)
        case (_, false): return ("(\(column) < ? OR \(column) IS NULL OR (\(column) = ? AND \(keyCondition)))", [value, value] + row.key)
        }
    }

    package func firstPage(limit: Int) throws -> [GridRow] {
        if usesOffset { return try offsetPage(from: 0, limit: limit) }
        return try fetch("SELECT \(selectList) FROM \(quoted)\(clause(nil)) ORDER BY \(order(forward: true)) LIMIT ?", [.integer(Int64(limit))])
    }

    package func page(after row: GridRow, limit: Int) throws -> [GridRow] {
        if usesOffset { return try offsetPage(from: (row.key.first?.int64Value ?? 0) + 1, limit: limit) }
        let (condition, arguments) = keyset(from: row, forward: true)
        return try fetch("SELECT \(selectList) FROM \(quoted)\(clause(condition)) ORDER BY \(order(forward: true)) LIMIT ?",
                         arguments + [.integer(Int64(limit))])
    }

    package func page(before row: GridRow, limit: Int) throws -> [GridRow] {
        if usesOffset {
            let start = row.key.first?.int64Value ?? 0
            return try offsetPage(from: max(0, start - Int64(limit)), limit: Int(min(Int64(limit), start)))
        }
        let (condition, arguments) = keyset(from: row, forward: false)
        return try fetch("SELECT \(selectList) FROM \(quoted)\(clause(condition)) ORDER BY \(order(forward: false)) LIMIT ?",
                         arguments + [.integer(Int64(limit))]).reversed()
    }

    package func lastPage(limit: Int) throws -> [GridRow] {
        if usesOffset {
            let total = Int64(try count())
            return try offsetPage(from: max(0, total - Int64(limit)), limit: limit)
        }
        return try fetch("SELECT \(selectList) FROM \(quoted)\(clause(nil)) ORDER BY \(order(forward: false)) LIMIT ?",
                         [.integer(Int64(limit))]).reversed()
    }

    /// `row N`, 1-based, for rows paged by offset (a view, a hidden rowid); else `key` and
    /// the rowid or primary key.
    package func position(of row: GridRow) -> String {
        guard usesOffset else { return "key " + row.key.map(\.description).joined(separator: ",") }
        return "row \((row.key.first?.int64Value ?? 0) + 1)"
    }

    /// The search in SQLite, forward from `row` (`match(of:from:to:backward:limit:cancel:)`).
    package func firstMatch(of needle: String, after row: GridRow?, limit: Int, cancel: CancellationFlag) throws -> [GridRow]? {
        try match(of: needle, from: row, to: nil, backward: false, limit: limit, cancel: cancel)
    }

    /// The search in SQLite: a row matches when the text SQLite gives one of its columns
    /// (`CAST(column AS TEXT)`, as `LIKE` reads it) holds `needle`, ASCII letters in any
    /// case; an encrypted
    /// column is decrypted first (`datacenter_crypt_holds`, registered on the connection for
    /// the query). The nearest match is one keyset query: the rows between `start` and `stop`
    /// (`keyset`; `stop` included), ordered in the grid's order or against it (`backward`), `LIMIT 1`.
    /// nil for rows paged by offset and for a needle with non-ASCII letters,
    /// whose case SQLite does not fold: those are scanned page by page.
    package func match(of needle: String, from start: GridRow?, to stop: GridRow?, backward: Bool, limit: Int,
                       cancel: CancellationFlag) throws -> [GridRow]? {
        guard !usesOffset, !needle.isEmpty, needle.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var tests: [String] = []
        var arguments: [DatabaseValue] = []
        // LIKE folds ASCII case without copying each value, as lower() would.
        let pattern = "%" + needle.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        for column in columns {
            let name = Database.quoteIdentifier(column)
            if encryptedColumns.contains(column) {
                tests.append("datacenter_crypt_holds(\(name), ?)")
                arguments.append(.text(needle))
            } else {
                tests.append("\(name) LIKE ? ESCAPE '\\'")
                arguments.append(.text(pattern))
            }
        }
        // Past `start` in the search's direction, and up to `stop`, `stop` itself included.
        let upTo = stop.map { row -> (String, [DatabaseValue]) in
            let (before, arguments) = keyset(from: row, forward: backward)
            return ("(\(before) OR \(keyTuple) = \(keyMarks))", arguments + row.key)
        }
        let bounds = [start.map { keyset(from: $0, forward: !backward) }, upTo].compactMap { $0 }
        let condition = bounds.map(\.0) + ["(" + tests.joined(separator: " OR ") + ")"]
        let sql = "SELECT \(selectList) FROM \(quoted)\(clause(condition.joined(separator: " AND "))) ORDER BY \(order(forward: !backward)) LIMIT 1"
        let crypt = self.crypt
        let found: [GridRow] = try store.queue.read { db in
            if !encryptedColumns.isEmpty {
                try db.createFunction("datacenter_crypt_holds", argumentCount: 2) { values in
                    guard case .blob(let ciphertext) = values[0], let needle = values[1].stringValue,
                          let plain = try? crypt.decrypt(ciphertext) else { return .integer(0) }
                    return .integer(String(decoding: plain, as: UTF8.self).lowercased().contains(needle) ? 1 : 0)
                }
            }
            return try db.withInterruptCheck({ cancel.isCancelled }) {
                try fetch(sql, bounds.flatMap(\.1) + arguments, on: db)
            }
        }
        guard let match = found.first else { return [] }
        return [match] + (try page(after: match, limit: max(0, limit - 1)))
    }

    /// The first row, in the grid's order, whose `columns` hold `values` (the row a foreign
    /// key references: `J`), or nil; no columns named means the primary key (or the rowid).
    /// - throws: `DatabaseError`.
    func row(whereColumns names: [String], equal values: [DatabaseValue]) throws -> GridRow? {
        // A foreign key that names no columns references the declared primary key, which in
        // a rowid table need not be the rowid (a TEXT PRIMARY KEY is not).
        let declared = names.isEmpty ? try store.queue.read { db in
            try db.query("SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", [.text(table)]).compactMap { $0.values[0].stringValue }
        } : names
        let targets = declared.isEmpty ? keyColumns : declared
        guard !targets.isEmpty, targets.count == values.count else { return nil }
        let condition = targets.map { Database.quoteIdentifier($0) + " = ?" }.joined(separator: " AND ")
        if usesOffset {
            // A view: its rows are numbered, so the row is read with its number.
            let sortOrder = view.sort.map { " ORDER BY " + Database.quoteIdentifier($0.column) + ($0.descending ? " DESC" : " ASC") } ?? ""
            let numbered = "SELECT row_number() OVER (\(sortOrder.trimmingCharacters(in: .whitespaces))) - 1 AS n, * FROM \(quoted)\(clause(nil))"
            let sql = "SELECT n FROM (\(numbered)) WHERE \(condition) LIMIT 1"
            guard let index = try store.queue.read({ db in try db.scalar(sql, StatementArguments(values))?.int64Value }) else { return nil }
            return try offsetPage(from: index, limit: 1).first
        }
        return try fetch("SELECT \(selectList) FROM \(quoted)\(clause(condition)) ORDER BY \(order(forward: true)) LIMIT 1", values).first
    }

    /// One read: `LIMIT 1 OFFSET number - 1` in the grid's order (SQLite still steps over
    /// the rows before it, but in C, without building them).
    package func row(number: Int) throws -> GridRow? {
        if usesOffset { return try offsetPage(from: Int64(number - 1), limit: 1).first }
        return try fetch("SELECT \(selectList) FROM \(quoted)\(clause(nil)) ORDER BY \(order(forward: true)) LIMIT 1 OFFSET ?",
                         [.integer(Int64(number - 1))]).first
    }

    /// The key typed as SQL literals (`TypedValue`: `42`, `'text'`, `X'00ff'`), one per key
    /// column, separated by commas; the row is read by its key, and must pass the filter.
    package func row(keyText: String) throws -> GridRow? {
        guard !usesOffset else {
            throw GoToError(description: "\(table)'s rows have no key to go to (\(isView ? "a view" : "its rowid is hidden")): give a row number")
        }
        let parts = keyColumns.count == 1 ? [keyText] : keyText.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == keyColumns.count else {
            throw GoToError(description: "\(table)'s key has \(keyColumns.count) columns (\(keyColumns.joined(separator: ", "))): give one value for each, separated by commas")
        }
        // The rowid's alias reads any integer; typed text that is a number is taken as one.
        let key = parts.map(TypedValue.parse)
        return try fetch("SELECT \(selectList) FROM \(quoted)\(clause("\(keyTuple) = \(keyMarks)")) LIMIT 1", key).first
    }

    package func dataVersion() throws -> Int64? {
        try store.queue.read { db in try db.scalar("PRAGMA data_version", cached: false)?.int64Value }
    }

    package func count() throws -> Int {
        // On its own read connection, so a slow count never holds up paging.
        try store.pool.read { db in Int(try db.scalar("SELECT count(*) FROM \(quoted)\(clause(nil))", cached: false)?.int64Value ?? 0) }
    }

    private func offsetPage(from start: Int64, limit: Int) throws -> [GridRow] {
        guard limit > 0 else { return [] }
        var index = start
        return try store.queue.read { db in
            var rows: [GridRow] = []
            let order = view.sort.map { " ORDER BY " + Database.quoteIdentifier($0.column) + ($0.descending ? " DESC" : " ASC") } ?? ""
            try db.forEachRow("SELECT * FROM \(quoted)\(clause(nil))\(order) LIMIT ? OFFSET ?", [.integer(Int64(limit)), .integer(start)]) { s in
                rows.append(GridRow(key: [.integer(index)], cells: (0..<s.columnCount).map { cell(s.value(at: $0), column: $0) }))
                index += 1
                return true
            }
            return rows
        }
    }

    private func fetch(_ sql: String, _ arguments: [DatabaseValue]) throws -> [GridRow] {
        try store.queue.read { db in try fetch(sql, arguments, on: db) }
    }

    /// The rows `sql` reads on `db`: the order key, the key and the cells of each.
    private func fetch(_ sql: String, _ arguments: [DatabaseValue], on db: Database) throws -> [GridRow] {
        let orderCount = view.sort == nil ? 0 : 1
        let keyCount = keyColumns.count
        let lead = orderCount + keyCount
        var rows: [GridRow] = []
        try db.forEachRow(sql, StatementArguments(arguments)) { s in
            let orderKey = (0..<orderCount).map { s.value(at: $0) }
            let key = (orderCount..<lead).map { s.value(at: $0) }
            let cells = (lead..<s.columnCount).map { cell(s.value(at: $0), column: $0 - lead) }
            rows.append(GridRow(key: key, cells: cells, orderKey: orderKey))
            return true
        }
        return rows
    }

    private func cell(_ value: DatabaseValue, column: Int) -> GridCell {
        if column < columns.count, encryptedColumns.contains(columns[column]) {
            return ValueFormatter.encryptedCell(value, crypt: crypt)
        }
        return ValueFormatter.cell(value)
    }
}
