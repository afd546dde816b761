import DatacenterKit
import Foundation

/// How a KV business or a cache grid is sorted and filtered (`[`, `]`, `f`), whose values
/// are decoded (and decrypted) in Swift rather than held by SQLite as the grid shows them.
///
/// - The filter is a SQL `WHERE` expression over the stored columns of the table behind the
///   grid (`filterColumns`: for KV `key`, `value`, `encoding`, `options`, `modified`; for a
///   cache `key`, `value`, `encoding`, `expires`, `accessed`, `size`), run by SQLite: an
///   encrypted value is its ciphertext there, so only keys, types, sizes, dates and values
///   stored in the clear filter well (`/` searches the decoded values). Filtered and not
///   sorted, the rows still page by key, with no bound.
/// - A sort, by any column, orders the rows by what the grid shows (`SortValue.init(cell:)`)
///   in memory (`InMemoryOrder`), so up to `InMemoryOrder.rowBound` rows the filter keeps.
///   Each entry is read and shown once for it: at the bound, 200,000 KV strings took 4.1 s
///   in a debug build and 45 MB more memory (peak 60 MB), in the background, cancellable.
struct StoredKeyView: Sendable {
    /// The store file the table is in.
    let store: Store
    /// The table (unquoted): `datacenter_kv`, or a cache's table.
    let table: String
    /// The condition that keeps the grid's rows of the table (`business = ?`), or nil.
    let scope: String?
    /// The arguments of `scope`.
    let scopeArguments: [DatabaseValue]
    /// The sort and filter.
    let view: TableView
    /// The keys in order when the grid is sorted, else nil.
    let order: InMemoryOrder?

    /// The columns a filter can name, for the table of a KV business (`kv`) or a cache.
    static func filterColumns(kv: Bool) -> [String] {
        kv ? ["key", "value", "encoding", "options", "modified"] : ["key", "value", "encoding", "expires", "accessed", "size"]
    }

    /// The view of `table` (rows `scope` keeps) that `view` asks for, for a grid named
    /// `name` with `columns`; sorted, its rows are read in key order a chunk at a time by
    /// `chunk` (the rows after a key, or from the first with nil) to order them, until
    /// `cancel` is set.
    /// - throws: `TableViewError` for a sort column the grid lacks, a filter SQLite refuses or
    ///   that would write, more rows than the bound, a sort cancelled; `DatabaseError`.
    init(store: Store, table: String, scope: String?, scopeArguments: [DatabaseValue], view: TableView, name: String,
         columns: [String], cancel: CancellationFlag, chunk: (String?) throws -> [GridRow]) throws {
        self.store = store
        self.table = table
        self.scope = scope
        self.scopeArguments = scopeArguments
        self.view = view
        try view.check(columns: columns, encryptedColumns: [], relation: Database.quoteIdentifier(table), name: name, store: store)
        guard let sort = view.sort, let column = columns.firstIndex(of: sort.column) else { order = nil; return }
        let count = try Self.count(store: store, table: table, condition: Self.condition(scope: scope, view: view), arguments: scopeArguments)
        try InMemoryOrder.checkBound(count: count, name: name, column: sort.column, why: "is decoded in Swift (SQLite holds it encoded)")
        let kept: Set<String>? = (view.filter ?? "").isEmpty ? nil : Set(try store.queue.read { db in
            try db.query("SELECT key FROM \(Database.quoteIdentifier(table))\(Self.condition(scope: scope, view: view))",
                         StatementArguments(scopeArguments)).compactMap { $0[0].stringValue }
        })
        var entries: [(key: [DatabaseValue], value: SortValue)] = []
        var last: String?
        while true {
            guard !cancel.isCancelled else { throw InMemoryOrder.cancelled }
            let rows = try chunk(last)
            for row in rows where kept?.contains(row.key.first?.stringValue ?? "") ?? true {
                entries.append((row.key, row.cells.indices.contains(column) ? SortValue(cell: row.cells[column]) : .null))
            }
            guard let next = rows.last?.key.first?.stringValue, next != last else { break }
            last = next
        }
        order = InMemoryOrder(entries: entries, descending: sort.descending)
    }

    /// ` WHERE` the scope and the filter, or nothing.
    private static func condition(scope: String?, view: TableView) -> String {
        let filter = (view.filter ?? "").isEmpty ? nil : "(" + (view.filter ?? "") + ")"
        let parts = [scope, filter].compactMap { $0 }
        return parts.isEmpty ? "" : " WHERE " + parts.joined(separator: " AND ")
    }

    /// How many rows of `table` `condition` keeps.
    private static func count(store: Store, table: String, condition: String, arguments: [DatabaseValue]) throws -> Int {
        try store.queue.read { db in
            Int(try db.scalar("SELECT count(*) FROM \(Database.quoteIdentifier(table))\(condition)", StatementArguments(arguments),
                              cached: false)?.int64Value ?? 0)
        }
    }

    /// True when the grid shows every row in key order: its own paging serves.
    var isDefault: Bool { view.isDefault }

    /// How many rows the grid shows.
    func count() throws -> Int {
        if let order { return order.count }
        return try Self.count(store: store, table: table, condition: Self.condition(scope: scope, view: view), arguments: scopeArguments)
    }

    /// The keys of up to `limit` rows the filter keeps, after `after` (or from the first),
    /// in key order.
    func keys(after: String?, limit: Int) throws -> [String] { try keys(from: after, forward: true, limit: limit) }

    /// The keys before `before` (from the last with nil), in key order.
    func keys(before: String?, limit: Int) throws -> [String] { try keys(from: before, forward: false, limit: limit).reversed() }

    /// Up to `limit` keys the filter keeps past `key` (from the first, or the last, with
    /// nil), `forward` in key order or backwards against it, in the order read.
    private func keys(from key: String?, forward: Bool, limit: Int) throws -> [String] {
        let comparison = key.map { _ in forward ? "key > ?" : "key < ?" }
        let parts = [scope, (view.filter ?? "").isEmpty ? nil : "(" + (view.filter ?? "") + ")", comparison].compactMap { $0 }
        let sql = "SELECT key FROM \(Database.quoteIdentifier(table))" + (parts.isEmpty ? "" : " WHERE " + parts.joined(separator: " AND "))
            + " ORDER BY key " + (forward ? "ASC" : "DESC") + " LIMIT ?"
        let arguments = scopeArguments + (key.map { [DatabaseValue.text($0)] } ?? []) + [.integer(Int64(limit))]
        return try store.queue.read { db in try db.query(sql, StatementArguments(arguments)).compactMap { $0[0].stringValue } }
    }
}

extension SortValue {
    /// What a KV or cache grid's cell is sorted by: what it shows. A locked value is
    /// `.locked`; a value the inspector holds whole is ordered by it (numbers as numbers,
    /// text as text, bytes as a BLOB, a property list by its text); a derived cell by its
    /// text, as an integer when it is one (a size).
    init(cell: GridCell) {
        if case .locked = cell.encryption { self = .locked; return }
        switch cell.content {
        case .database(let value): self = value == .null ? .null : .value(value)
        case .kv(let value):
            switch value {
            case .string(let s): self = .value(.text(s))
            case .integer(let v): self = .value(.integer(v))
            case .double(let d): self = .value(.real(d))
            case .bool(let b): self = .value(.integer(b ? 1 : 0))
            case .archive(let d): self = .value(.blob(d))
            case .json, .plist: self = .value(.text(value.displayString))
            }
        case .propertyList(let list):
            if case .data(let d) = list { self = .value(.blob(d)) } else { self = .value(.text(KVValue.plist(list).displayString)) }
        case .none:
            if cell.typeName == "integer", let number = Int64(cell.text) { self = .value(.integer(number)) } else { self = .value(.text(cell.text)) }
        }
    }
}
