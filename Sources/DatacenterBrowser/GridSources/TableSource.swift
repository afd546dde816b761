import DatacenterKit
import Foundation

/// The rows of one table (or view), paged by key: the rowid, or the primary key of a
/// WITHOUT ROWID table; views, which have neither, page by position (`QuerySource`).
/// Sorted by a column (`TableView`), rows page by that column's value and then the key.
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
    /// The rows read by position, when there is no key to page by (`usesOffset`).
    private let offsetRows: QuerySource?
    /// The columns that hold nothing but numbers and NULL (`numericOnlyColumns`): a search
    /// for text no number holds skips them.
    private let numericOnly: Set<String>
    /// The rows in order, when the grid is sorted by an encrypted column: SQLite holds only
    /// its ciphertext, so the decrypted values are sorted in memory (`InMemoryOrder`, up to
    /// its bound) and pages are read by key in that order. Nil otherwise.
    private let memoryOrder: InMemoryOrder?

    /// The names SQLite gives the rowid, in the order they are tried.
    static let rowidNames = ["_rowid_", "rowid", "oid"]

    /// Reads `table` of `store`, sorted and filtered as `view` says; values of
    /// `encryptedColumns` are decrypted with `crypt`.
    /// - throws: `TableViewError` for a sort column the table lacks or holds encrypted, or
    ///   a filter that is not one expression SQLite accepts; `DatabaseError`.
    /// A sort by an encrypted column stops (`InMemoryOrder.cancelled`) once `cancel` is set.
    package init(store: Store, table: String, encryptedColumns: Set<String> = [], crypt: any DataCrypt, title: String? = nil,
                 view: TableView = TableView(), cancel: CancellationFlag = CancellationFlag()) throws {
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
            if isView { return Shape(names: names, keys: [], isView: true, refusal: "\(table) is a view: its rows cannot be edited here (`datacenter sql` can write them: the console here is read-only)") }
            let withoutRowID = try db.scalar("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", [.text(table)])?.int64Value == 1
            if withoutRowID {
                let pk = info.filter { ($0[1].int64Value ?? 0) > 0 }.sorted { ($0[1].int64Value ?? 0) < ($1[1].int64Value ?? 0) }.compactMap { $0[0].stringValue }
                return Shape(names: names, keys: pk, isView: false, refusal: pk.isEmpty ? "\(table) has no primary key: its rows cannot be edited here (`datacenter sql` can write them: the console here is read-only)" : nil)
            }
            let taken = Set(names.map { $0.lowercased() })
            guard let alias = TableSource.rowidNames.first(where: { !taken.contains($0) }) else {
                return Shape(names: names, keys: [], isView: false,
                             refusal: "\(table) has columns named _rowid_, rowid and oid, which hide its rowid: its rows cannot be addressed to edit them (`datacenter sql` can write them: the console here is read-only)")
            }
            return Shape(names: names, keys: [alias], isView: false, refusal: nil)
        }
        shape.foreignKeys = try store.queue.read { db in try TableSchema.foreignKeys(of: table, in: db) }
        foreignKeys = shape.foreignKeys
        columns = shape.names
        numericOnly = shape.isView ? [] : try store.queue.read { db in try TableSource.numericOnlyColumns(of: table, on: db) }
        keyColumns = shape.keys
        usesOffset = shape.keys.isEmpty
        isView = shape.isView
        editRefusal = shape.refusal
        let sortColumn = view.sort.map { Database.quoteIdentifier($0.column) }
        selectList = ((sortColumn.map { [$0] } ?? []) + shape.keys.map(Database.quoteIdentifier) + ["*"]).joined(separator: ", ")
        // A keyed table sorts by an encrypted column in memory; rows paged by offset cannot
        // (they have no key to read a page by), so the check refuses it for them.
        let sortsDecrypted = view.sort.map { encryptedColumns.contains($0.column) && !shape.keys.isEmpty } ?? false
        try view.check(columns: columns, encryptedColumns: sortsDecrypted ? encryptedColumns.subtracting([view.sort?.column ?? ""]) : encryptedColumns,
                       relation: Database.quoteIdentifier(table), name: table, store: store)
        memoryOrder = try view.sort.flatMap { sort in
            guard sortsDecrypted else { return nil }
            return try TableSource.decryptedOrder(of: table, by: sort, keyColumns: shape.keys, view: view, store: store, crypt: crypt,
                                                 cancel: cancel)
        }
        offsetRows = usesOffset
            ? try QuerySource(store: store, relation: Database.quoteIdentifier(table), name: table, title: self.title,
                              encryptedColumns: encryptedColumns, crypt: crypt, view: view)
            : nil
    }

    /// The columns of `table` that can hold nothing but numbers (and NULL): the rowid's
    /// alias (the one INTEGER PRIMARY KEY column, the primary key SQLite keeps no index
    /// for) and the INT, INTEGER and REAL columns of a STRICT table. Any other column takes
    /// text whatever its declared type.
    package static func numericOnlyColumns(of table: String, on db: Database) throws -> Set<String> {
        guard let list = try db.queryFirst("SELECT wr, strict FROM pragma_table_list WHERE schema = 'main' AND name = ?", [.text(table)]) else {
            return []
        }
        var numeric = Set<String>()
        if list[1].int64Value == 1 {
            numeric.formUnion(try db.query("SELECT name FROM pragma_table_info(?) WHERE upper(type) IN ('INT', 'INTEGER', 'REAL')",
                                           [.text(table)]).compactMap { $0[0].stringValue })
        }
        if list[0].int64Value == 0 {
            let key = try db.query("SELECT name FROM pragma_table_info(?) WHERE pk > 0", [.text(table)]).compactMap { $0[0].stringValue }
            let keyIndexed = try db.scalar("SELECT 1 FROM pragma_index_list(?) WHERE origin = 'pk'", [.text(table)]) != nil
            if key.count == 1, !keyIndexed { numeric.insert(key[0]) }
        }
        return numeric
    }

    /// The keys of the rows of `table` that `view`'s filter keeps, ordered by the values of
    /// the encrypted column `sort` names, decrypted with `crypt` (`InMemoryOrder`). Read on
    /// a reader of the store's pool, so the grid's pages are not held up meanwhile.
    /// - throws: `TableViewError` when more rows match than `InMemoryOrder.rowBound`;
    ///   `DatabaseError`.
    private static func decryptedOrder(of table: String, by sort: TableView.Sort, keyColumns: [String], view: TableView,
                                       store: Store, crypt: any DataCrypt, cancel: CancellationFlag) throws -> InMemoryOrder {
        let quoted = Database.quoteIdentifier(table)
        let entries: [(key: [DatabaseValue], value: SortValue)] = try store.pool.read { db in
            let count = Int(try db.scalar("SELECT count(*) FROM \(quoted)\(view.whereClause())", cached: false)?.int64Value ?? 0)
            try InMemoryOrder.checkBound(count: count, name: table, column: sort.column,
                                         why: "is encrypted (SQLite holds only its ciphertext)")
            let list = (keyColumns + [sort.column]).map(Database.quoteIdentifier).joined(separator: ", ")
            var entries: [(key: [DatabaseValue], value: SortValue)] = []
            entries.reserveCapacity(count)
            // In key order, which `InMemoryOrder` keeps for ties (the table's own order: no sort).
            let keyOrder = keyColumns.map(Database.quoteIdentifier).joined(separator: ", ")
            do {
                try db.withInterruptCheck({ cancel.isCancelled }) {
                    try db.forEachRow("SELECT \(list) FROM \(quoted)\(view.whereClause()) ORDER BY \(keyOrder)") { s in
                        let key = (0..<keyColumns.count).map { s.value(at: $0) }
                        entries.append((key, SortValue.decrypted(s.value(at: keyColumns.count), crypt: crypt)))
                        return true
                    }
                }
            } catch let error as DatabaseError where error.isInterrupted {
                throw InMemoryOrder.cancelled
            }
            guard !cancel.isCancelled else { throw InMemoryOrder.cancelled }
            return entries
        }
        return InMemoryOrder(entries: entries, descending: sort.descending)
    }

    /// True when the grid is sorted in memory (by an encrypted column): no `ORDER BY`
    /// reads the rows in its order.
    var sortsInMemory: Bool { memoryOrder != nil }

    /// The rows of `keys` that still exist, in any order.
    private func rows(keyed keys: [[DatabaseValue]]) throws -> [GridRow] {
        guard !keys.isEmpty else { return [] }
        let tuple = "(" + Array(repeating: "?", count: keyColumns.count).joined(separator: ", ") + ")"
        let values = Array(repeating: tuple, count: keys.count).joined(separator: ", ")
        return try fetch("SELECT \(selectList) FROM \(quoted) WHERE \(keyTuple) IN (VALUES \(values))", keys.flatMap { $0 })
    }

    /// A source of the same table, sorted and filtered as `view` says.
    /// - throws: what `init` throws for the view.
    package func viewing(_ view: TableView) throws -> GridSource { try viewing(view, cancel: CancellationFlag()) }

    package func viewing(_ view: TableView, cancel: CancellationFlag) throws -> GridSource {
        try TableSource(store: store, table: table, encryptedColumns: encryptedColumns, crypt: crypt, title: title, view: view, cancel: cancel)
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

    /// The `ORDER BY` that reads the rows in the grid's order (the sort column, then the
    /// key), for an export of what the grid shows; nil for a view in its own order.
    /// nil too for a grid sorted in memory (`sortsInMemory`), which export refuses.
    var gridOrder: String? {
        if memoryOrder != nil { return nil }
        let order = order(forward: true)
        return order.isEmpty ? nil : order
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
        if let memoryOrder { return try memoryOrder.firstPage(limit: limit, fetch: rows(keyed:)) }
        if let offsetRows { return try offsetRows.firstPage(limit: limit) }
        return try fetch("SELECT \(selectList) FROM \(quoted)\(view.whereClause()) ORDER BY \(order(forward: true)) LIMIT ?", [.integer(Int64(limit))])
    }

    package func page(after row: GridRow, limit: Int) throws -> [GridRow] {
        if let memoryOrder { return try memoryOrder.page(after: row, limit: limit, fetch: rows(keyed:)) }
        if let offsetRows { return try offsetRows.page(after: row, limit: limit) }
        let (condition, arguments) = keyset(from: row, forward: true)
        return try fetch("SELECT \(selectList) FROM \(quoted)\(view.whereClause(and: condition)) ORDER BY \(order(forward: true)) LIMIT ?",
                         arguments + [.integer(Int64(limit))])
    }

    package func page(before row: GridRow, limit: Int) throws -> [GridRow] {
        if let memoryOrder { return try memoryOrder.page(before: row, limit: limit, fetch: rows(keyed:)) }
        if let offsetRows { return try offsetRows.page(before: row, limit: limit) }
        let (condition, arguments) = keyset(from: row, forward: false)
        return try fetch("SELECT \(selectList) FROM \(quoted)\(view.whereClause(and: condition)) ORDER BY \(order(forward: false)) LIMIT ?",
                         arguments + [.integer(Int64(limit))]).reversed()
    }

    package func lastPage(limit: Int) throws -> [GridRow] {
        if let memoryOrder { return try memoryOrder.lastPage(limit: limit, fetch: rows(keyed:)) }
        if let offsetRows { return try offsetRows.lastPage(limit: limit) }
        return try fetch("SELECT \(selectList) FROM \(quoted)\(view.whereClause()) ORDER BY \(order(forward: false)) LIMIT ?",
                         [.integer(Int64(limit))]).reversed()
    }

    /// `row N`, 1-based, for rows paged by offset (a view, a hidden rowid); else `key` and
    /// the rowid or primary key.
    package func position(of row: GridRow) -> String {
        if let offsetRows { return offsetRows.position(of: row) }
        return "key " + row.key.map(\.description).joined(separator: ",")
    }

    /// The search in SQLite, forward from `row` (`match(of:from:to:backward:limit:cancel:)`).
    package func firstMatch(of needle: SearchNeedle, after row: GridRow?, limit: Int, cancel: CancellationFlag) throws -> [GridRow]? {
        try match(of: needle, from: row, to: nil, backward: false, limit: limit, cancel: cancel)
    }

    /// The search in SQLite (`SearchPredicate`): the nearest match is one keyset query, the
    /// rows between `start` and `stop` (`keyset`; `stop` included) ordered in the grid's
    /// order or against it (`backward`), `LIMIT 1`. Rows paged by position are searched by
    /// `QuerySource`; nil for a needle the predicate leaves to the browser's page scan.
    package func match(of needle: SearchNeedle, from start: GridRow?, to stop: GridRow?, backward: Bool, limit: Int,
                       cancel: CancellationFlag) throws -> [GridRow]? {
        if let offsetRows { return try offsetRows.match(of: needle, from: start, to: stop, backward: backward, limit: limit, cancel: cancel) }
        // Sorted in memory, no query reads the rows in the grid's order: the browser scans.
        if memoryOrder != nil { return nil }
        guard let predicate = SearchPredicate(needle: needle, columns: columns, encryptedColumns: encryptedColumns,
                                              numericOnly: numericOnly) else { return nil }
        // Past `start` in the search's direction, and up to `stop`, `stop` itself included.
        let upTo = stop.map { row -> (String, [DatabaseValue]) in
            let (before, arguments) = keyset(from: row, forward: backward)
            return ("(\(before) OR \(keyTuple) = \(keyMarks))", arguments + row.key)
        }
        let bounds = [start.map { keyset(from: $0, forward: !backward) }, upTo].compactMap { $0 }
        let condition = bounds.map(\.0) + [predicate.sql]
        let sql = "SELECT \(selectList) FROM \(quoted)\(view.whereClause(and: condition.joined(separator: " AND "))) ORDER BY \(order(forward: !backward)) LIMIT 1"
        let crypt = self.crypt
        let found: [GridRow] = try store.queue.read { db in
            try predicate.register(on: db, crypt: crypt)
            return try db.withInterruptCheck({ cancel.isCancelled }) {
                try fetch(sql, bounds.flatMap(\.1) + predicate.arguments, on: db)
            }
        }
        guard let match = found.first else { return [] }
        return [match] + (try page(after: match, limit: max(0, limit - 1)))
    }

    /// The keys of the rows the grid shows (its filter) that hold `needle` (every row when
    /// nil), in the table's order, by one query in SQLite; nil when there are more than
    /// `limit` (selecting them would be a mistake more often than not).
    /// - throws: `DatabaseError` (`isInterrupted` once `cancel` is set).
    func keys(matching needle: SearchNeedle?, limit: Int, cancel: CancellationFlag) throws -> [[DatabaseValue]]? {
        let predicate = needle.flatMap { SearchPredicate(needle: $0, columns: columns, encryptedColumns: encryptedColumns, numericOnly: numericOnly) }
        if let needle, predicate == nil {
            // A needle SQLite cannot test (non-ASCII text): the rows are scanned here.
            var found: [[DatabaseValue]] = []
            var page = try firstPage(limit: 500)
            while !page.isEmpty {
                if cancel.isCancelled { return [] }
                for row in page where row.cells.contains(where: { GridSearch.holds($0, needle) }) {
                    found.append(row.key)
                    if found.count > limit { return nil }
                }
                page = try self.page(after: page[page.count - 1], limit: 500)
            }
            return found
        }
        let list = keyColumns.map(Database.quoteIdentifier).joined(separator: ", ")
        let sql = "SELECT \(list) FROM \(quoted)\(view.whereClause(and: predicate?.sql)) LIMIT \(limit + 1)"
        let crypt = self.crypt
        let rows: [Row] = try store.queue.read { db in
            try predicate?.register(on: db, crypt: crypt)
            return try db.withInterruptCheck({ cancel.isCancelled }) { try db.query(sql, StatementArguments(predicate?.arguments ?? [])) }
        }
        return rows.count > limit ? nil : rows.map(\.values)
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
        // A view: its rows are numbered by their position.
        if let offsetRows { return try offsetRows.firstRow(where: condition, values) }
        return try fetch("SELECT \(selectList) FROM \(quoted)\(view.whereClause(and: condition)) ORDER BY \(order(forward: true)) LIMIT 1", values).first
    }

    /// One read: `LIMIT 1 OFFSET number - 1` in the grid's order (SQLite still steps over
    /// the rows before it, but in C, without building them).
    package func row(number: Int) throws -> GridRow? {
        if let offsetRows { return try offsetRows.row(number: number) }
        return try fetch("SELECT \(selectList) FROM \(quoted)\(view.whereClause()) ORDER BY \(order(forward: true)) LIMIT 1 OFFSET ?",
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
        return try fetch("SELECT \(selectList) FROM \(quoted)\(view.whereClause(and: "\(keyTuple) = \(keyMarks)")) LIMIT 1", key).first
    }

    package func dataVersion() throws -> Int64? {
        try store.queue.read { db in try db.scalar("PRAGMA data_version", cached: false)?.int64Value }
    }

    package func count() throws -> Int {
        if let memoryOrder { return memoryOrder.count }
        // On its own read connection, so a slow count never holds up paging.
        return try store.pool.read { db in Int(try db.scalar("SELECT count(*) FROM \(quoted)\(view.whereClause())", cached: false)?.int64Value ?? 0) }
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
        ValueFormatter.cell(value, encrypted: column < columns.count && encryptedColumns.contains(columns[column]), crypt: crypt)
    }
}
