/// One result row: the values of a query's columns, in order, with their names.
public struct Row: Sendable, Equatable {
    /// The column names, shared by every row of one query.
    public let columnNames: [String]
    /// The values, one per column.
    public let values: [DatabaseValue]

    /// A row of `values` under `columnNames`, one value per name.
    public init(columnNames: [String], values: [DatabaseValue]) {
        self.columnNames = columnNames
        self.values = values
    }

    /// The value of the column at `index`.
    public subscript(index: Int) -> DatabaseValue { values[index] }

    /// The value of the first column of that name (compared case-insensitively, as SQL does),
    /// or nil when there is no such column.
    public subscript(name: String) -> DatabaseValue? {
        if let i = columnNames.firstIndex(of: name) { return values[i] }
        let lower = name.lowercased()
        return columnNames.firstIndex { $0.lowercased() == lower }.map { values[$0] }
    }

    /// The row as a column → value dictionary (a later duplicate name wins).
    public var dictionary: [String: DatabaseValue] {
        Dictionary(zip(columnNames, values), uniquingKeysWith: { _, last in last })
    }
}
