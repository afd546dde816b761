import DatacenterKit

/// How a table grid is sorted and filtered (`[`, `]`, `f`): an `ORDER BY` one column and a
/// `WHERE` expression, both pushed into SQLite, the rows still paged by key (the sort
/// column's value, then the row's key), so `End` and every page stay one indexed read
/// where an index serves the sort, and one sort of the matching rows where none does.
///
/// SQLite cannot sort what it holds encoded or encrypted: a keyed table sorted by an
/// encrypted column, and KV business and cache grids sorted by any column, are ordered in
/// memory instead (`InMemoryOrder`, up to its bound); KV and cache filters are SQL over the
/// stored columns (`StoredKeyView`).
package struct TableView: Sendable, Equatable {
    /// A sort by one column.
    package struct Sort: Sendable, Equatable {
        /// The column.
        package var column: String
        /// True for descending.
        package var descending: Bool

        /// A sort by `column`, ascending unless `descending`.
        package init(column: String, descending: Bool) {
            self.column = column
            self.descending = descending
        }
    }

    /// The sort, or nil for the table's own order (its key).
    package var sort: Sort?
    /// A SQL expression the rows shown satisfy, or nil for every row.
    package var filter: String?

    /// A view sorted by `sort` and filtered by `filter`.
    package init(sort: Sort? = nil, filter: String? = nil) {
        self.sort = sort
        self.filter = filter
    }

    /// True when the grid shows every row in the table's own order.
    package var isDefault: Bool { sort == nil && (filter ?? "").isEmpty }

    /// The sort and filter in words, for the status line: `sorted by time ↓ · where read = 0`.
    package var summary: String {
        var parts: [String] = []
        if let sort { parts.append("sorted by \(sort.column) \(sort.descending ? "↓" : "↑")") }
        if let filter, !filter.isEmpty { parts.append("where \(filter)") }
        return parts.joined(separator: " · ")
    }
}

/// Why a grid cannot be sorted or filtered as asked.
package struct TableViewError: Error, CustomStringConvertible, Equatable {
    package let description: String

    /// The error that says `description`.
    package init(_ description: String) { self.description = description }
}

extension TableView {
    /// Refuses a sort or filter that the rows of `relation` (a quoted table name, or a
    /// SELECT in parentheses; `name` in messages) cannot be read with, before any page is
    /// read: a sort column it lacks or holds encrypted, a filter that is not one read-only
    /// expression SQLite accepts.
    /// - throws: `TableViewError`, or `DatabaseError` when the store cannot be read.
    func check(columns: [String], encryptedColumns: Set<String>, relation: String, name: String, store: Store) throws {
        if let sort {
            guard columns.contains(sort.column) else { throw TableViewError("\(name) has no column \(sort.column)") }
            guard !encryptedColumns.contains(sort.column) else {
                throw TableViewError("\(sort.column) is encrypted: SQLite holds only its ciphertext, so it cannot sort by it")
            }
        }
        guard let filter, !filter.isEmpty else { return }
        do {
            let readOnly = try store.queue.read { db in try db.makeStatement("SELECT 1 FROM \(relation) WHERE (\(filter))").isReadOnly }
            guard readOnly else { throw TableViewError("filter \(filter): it would write") }
        } catch let error as DatabaseError {
            throw TableViewError("filter \(filter): \(error.message)")
        }
    }

    /// ` WHERE` the filter and `condition` (either may be absent), or nothing.
    func whereClause(and condition: String? = nil) -> String {
        let filter = filter.flatMap { $0.isEmpty ? nil : "(" + $0 + ")" }
        let parts = [filter, condition].compactMap { $0 }
        return parts.isEmpty ? "" : " WHERE " + parts.joined(separator: " AND ")
    }
}
