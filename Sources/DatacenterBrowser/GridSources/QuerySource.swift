import DatacenterKit
import Foundation

/// Rows addressed by their position in a query's result: a SELECT run in the console, a
/// view, or a table whose rowid is hidden, none of which has a key to page by. Every page
/// is a `LIMIT … OFFSET …` read of one query (the relation filtered and sorted as `view`
/// says), so a row's key is its position from 0, and the status line shows `row N`.
///
/// SQLite gives the same rows in the same order each time the same query is read while the
/// data does not change (one plan, the same b-trees), so pages read apart fit together; a
/// write in between shifts them, as it does in any browser that pages a result. Only the
/// page asked for is kept: a 2,000,000-row result costs what its screen of rows costs.
///
/// `/` is one pass in SQLite too (`SearchPredicate` over the same query, read from the
/// row after the cursor), so searching a view stays linear in its rows rather than reading
/// it again from the start for every page.
package final class QuerySource: GridSource, Sendable {
    package let title: String
    package let columns: [String]
    /// The store file the rows are read from.
    let store: Store
    /// What the rows are read from: a quoted table or view name, or a SELECT in parentheses.
    let relation: String
    /// The name `relation` goes by in messages.
    let name: String
    /// The columns whose values are decrypted for display.
    let encryptedColumns: Set<String>
    /// The keys that decrypt them.
    let crypt: any DataCrypt
    package let view: TableView
    /// The query every read pages through: the relation, filtered and sorted.
    private let query: String
    /// Set once the grid no longer shows these rows (`retire()`): the count stops.
    private let retired = CancellationFlag()

    /// The rows of `relation` (a quoted table or view name, or a SELECT in parentheses),
    /// sorted and filtered as `view` says, titled `title`; `name` is what messages call it.
    /// - throws: `TableViewError` for a view the rows cannot be read with; `DatabaseError`
    ///   when the relation cannot be read (a SELECT that does not prepare).
    package init(store: Store, relation: String, name: String, title: String, encryptedColumns: Set<String> = [],
                 crypt: any DataCrypt, view: TableView = TableView()) throws {
        self.store = store
        self.relation = relation
        self.name = name
        self.title = title
        self.encryptedColumns = encryptedColumns
        self.crypt = crypt
        self.view = view
        columns = try store.queue.read { db in try db.makeStatement("SELECT * FROM \(relation) LIMIT 0").columnNames }
        try view.check(columns: columns, encryptedColumns: encryptedColumns, relation: relation, name: name, store: store)
        let order = view.sort.map { " ORDER BY " + Database.quoteIdentifier($0.column) + ($0.descending ? " DESC" : " ASC") } ?? ""
        query = "SELECT * FROM \(relation)\(view.whereClause())\(order)"
    }

    /// The rows of the one SELECT in `sql` (typed in the console), titled with its text.
    /// - throws: `DatabaseError` when it does not prepare as a subquery.
    /// The rows of the SELECT `sql`, titled by `title` (default: `sql` itself, as the console
    /// was given it); `encryptedColumns` are result columns shown decrypted.
    package convenience init(store: Store, select sql: String, title: String? = nil, encryptedColumns: Set<String> = [],
                             crypt: any DataCrypt, view: TableView = TableView()) throws {
        let oneLine = (title ?? sql).split(whereSeparator: \.isNewline).joined(separator: " ")
        // On lines of their own, so a comment at the end of the SELECT cannot hide the `)`.
        try self.init(store: store, relation: "(\n" + sql + "\n)", name: "the query", title: "SQL: " + oneLine,
                      encryptedColumns: encryptedColumns, crypt: crypt, view: view)
    }

    package func viewing(_ view: TableView) throws -> GridSource {
        try QuerySource(store: store, relation: relation, name: name, title: title, encryptedColumns: encryptedColumns,
                        crypt: crypt, view: view)
    }

    package func firstPage(limit: Int) throws -> [GridRow] { try rows(from: 0, limit: limit) }

    /// The first `limit` rows, the read stopped (a `DatabaseError` whose `isInterrupted` is
    /// true) once `cancel` is set: the console's first page of a query that may run long.
    package func firstPage(limit: Int, cancel: CancellationFlag) throws -> [GridRow] {
        try rows(from: 0, limit: limit, cancel: cancel)
    }

    package func page(after row: GridRow, limit: Int) throws -> [GridRow] {
        try rows(from: Self.offset(of: row) + 1, limit: limit)
    }

    package func page(before row: GridRow, limit: Int) throws -> [GridRow] {
        let start = Self.offset(of: row)
        return try rows(from: max(0, start - Int64(limit)), limit: Int(min(Int64(limit), start)))
    }

    package func lastPage(limit: Int) throws -> [GridRow] {
        let total = Int64(try count())
        return try rows(from: max(0, total - Int64(limit)), limit: limit)
    }

    /// `row N`, 1-based: the key is an offset from 0, which means nothing to the user.
    package func position(of row: GridRow) -> String { "row \(Self.offset(of: row) + 1)" }

    /// The search forward from `row` (`match(of:from:to:backward:limit:cancel:)`).
    package func firstMatch(of needle: SearchNeedle, after row: GridRow?, limit: Int, cancel: CancellationFlag) throws -> [GridRow]? {
        try match(of: needle, from: row, to: nil, backward: false, limit: limit, cancel: cancel)
    }

    /// The search in one pass of SQLite (`SearchPredicate`) over the positions between
    /// `start` and `stop` (`stop` included): each row gives only whether it matches, and
    /// the rows from the nearest match are read as a page. Backward, the pass still reads
    /// forwards, from `stop` (or the first row) up to the row before `start`, and keeps the
    /// last match. nil for a needle `SearchPredicate` leaves to the browser's page scan.
    package func match(of needle: SearchNeedle, from start: GridRow?, to stop: GridRow?, backward: Bool, limit: Int,
                       cancel: CancellationFlag) throws -> [GridRow]? {
        guard let predicate = SearchPredicate(needle: needle, columns: columns, encryptedColumns: encryptedColumns) else { return nil }
        let first = backward ? stop.map(Self.offset) ?? 0 : start.map { Self.offset(of: $0) + 1 } ?? 0
        let last = backward ? start.map { Self.offset(of: $0) - 1 } : stop.map(Self.offset)
        if let last, last < first { return [] }
        let crypt = self.crypt
        let found = try position(where: predicate.sql, predicate.arguments, from: first, through: last, last: backward, cancel: cancel) { db in
            try predicate.register(on: db, crypt: crypt)
        }
        guard let found else { return [] }
        return try rows(from: found, limit: limit)
    }

    /// The first row whose columns satisfy `condition` (an SQL expression over them, with
    /// `values` for its `?`), in the grid's order: the row a foreign key references (`J`).
    /// - throws: `DatabaseError`.
    func firstRow(where condition: String, _ values: [DatabaseValue]) throws -> GridRow? {
        guard let found = try position(where: condition, values, from: 0, through: nil, last: false) else { return nil }
        return try rows(from: found, limit: 1).first
    }

    /// One read: the row at position `number - 1`.
    package func row(number: Int) throws -> GridRow? {
        guard number >= 1 else { return nil }
        return try rows(from: Int64(number - 1), limit: 1).first
    }

    /// Rows read by position have no key to go to.
    /// - throws: `GoToError` saying to give a row number.
    package func row(keyText: String) throws -> GridRow? {
        throw GoToError(description: "\(name)'s rows have no key to go to: give a row number")
    }

    /// The position of the first (or, when `last`, the last) row between positions `first`
    /// and `through` (to the end when nil) for which `condition` holds: one pass over the
    /// paging query with the condition as an extra column, so the positions counted are the
    /// pages' offsets. `prepare` readies the connection (functions the condition calls).
    private func position(where condition: String, _ arguments: [DatabaseValue], from first: Int64, through: Int64?, last: Bool,
                          cancel: CancellationFlag? = nil, prepare: (Database) throws -> Void = { _ in }) throws -> Int64? {
        let sql = "SELECT (\(condition)), * FROM (\(query)) LIMIT ? OFFSET ?"
        let count = through.map { $0 - first + 1 } ?? -1
        return try store.queue.read { db in
            try prepare(db)
            var index = first
            var found: Int64?
            let scan = {
                try db.forEachRow(sql, StatementArguments(arguments + [.integer(count), .integer(first)])) { s in
                    if s.value(at: 0).int64Value == 1 {
                        found = index
                        if !last { return false }
                    }
                    index += 1
                    return true
                }
            }
            if let cancel { try db.withInterruptCheck({ cancel.isCancelled }, scan) } else { try scan() }
            return found
        }
    }

    package func dataVersion() throws -> Int64? {
        try store.queue.read { db in try db.scalar("PRAGMA data_version", cached: false)?.int64Value }
    }

    /// The rows counted on a reader of its own, so a slow count never holds up paging; a
    /// count still running when the grid goes (`retire()`) is interrupted, as a console
    /// query's count may run for ever (a cross join of big tables).
    /// - throws: `DatabaseError` (`isInterrupted` once retired).
    package func count() throws -> Int {
        try store.pool.read { db in
            try db.withInterruptCheck({ self.retired.isCancelled }) {
                Int(try db.scalar("SELECT count(*) FROM (\(query))", cached: false)?.int64Value ?? 0)
            }
        }
    }

    package func retire() { retired.cancel() }

    /// True once `retire()` was called.
    var isRetired: Bool { retired.isCancelled }

    /// Where `row` stands: its key, an offset from 0.
    private static func offset(of row: GridRow) -> Int64 { row.key.first?.int64Value ?? 0 }

    /// Up to `limit` rows from offset `start`, stopped once `cancel` is set, if given.
    private func rows(from start: Int64, limit: Int, cancel: CancellationFlag? = nil) throws -> [GridRow] {
        guard limit > 0 else { return [] }
        return try store.queue.read { db in
            var rows: [GridRow] = []
            var index = start
            let read = {
                try db.forEachRow("SELECT * FROM (\(self.query)) LIMIT ? OFFSET ?", [.integer(Int64(limit)), .integer(start)]) { s in
                    let cells = (0..<s.columnCount).map { column in
                        ValueFormatter.cell(s.value(at: column), encrypted: column < self.columns.count
                                                && self.encryptedColumns.contains(self.columns[column]), crypt: self.crypt)
                    }
                    rows.append(GridRow(key: [.integer(index)], cells: cells))
                    index += 1
                    return true
                }
            }
            if let cancel { try db.withInterruptCheck({ cancel.isCancelled }, read) } else { try read() }
            return rows
        }
    }
}
