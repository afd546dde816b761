import DatacenterKit

/// How a table grid is sorted and filtered (`[`, `]`, `f`): an `ORDER BY` one column and a
/// `WHERE` expression, both pushed into SQLite, the rows still paged by key (the sort
/// column's value, then the row's key), so `End` and every page stay one indexed read
/// where an index serves the sort, and one sort of the matching rows where none does.
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
