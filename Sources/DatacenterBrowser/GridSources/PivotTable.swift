import DatacenterKit

/// A pivot of a grid's rows (VisiData's `W`): one row per value of a column (`rows`), one
/// column per value of another (`columns`, at most `columnLimit`: the rest counted in one
/// column named as cut), each cell an aggregate (`count(*)`, `sum(x)`, `avg(x)`, `min(x)`,
/// `max(x)`, …) of the rows holding both, computed by SQLite over the grid's rows as
/// filtered. Crypt columns are read decrypted (`datacenter_decrypt`).
///
/// Its columns are the values SQLite finds, so its SELECT is written when the grid is read,
/// off the input loop (`select(on:)`). Each column is named by its value as an SQL literal
/// (`'red'`, `3`, `NULL`): the name says exactly which rows Enter on a cell filters to.
package struct PivotTable: Sendable, Equatable {
    /// What is pivoted: a quoted table or view name, or a SELECT in parentheses.
    let relation: String
    /// The grid's sort and filter (its filter is the pivot's).
    let view: TableView
    /// The column whose values make the rows, and whether it is a crypt column.
    let rows: String, rowsEncrypted: Bool
    /// The column whose values make the columns, and whether it is a crypt column.
    let columns: String, columnsEncrypted: Bool
    /// The aggregate, as typed: `count(*)` unless another was given.
    let aggregate: String

    /// The most columns of values; more are counted in one column named as cut.
    static let columnLimit = 200

    /// Why `aggregate` cannot be pivoted, or nil: it must be one function of one argument
    /// (`count(*)`, `sum(amount)`), whose argument each column of the pivot narrows.
    static func aggregateRefusal(_ aggregate: String) -> String? {
        parse(aggregate) == nil ? "\(aggregate) is not an aggregate of one argument (count(*), sum(x), avg(x), min(x), max(x))" : nil
    }

    /// `name(argument)` of an aggregate as typed.
    private static func parse(_ aggregate: String) -> (name: String, argument: String)? {
        let text = aggregate.trimmingCharacters(in: .whitespaces)
        guard let open = text.firstIndex(of: "("), text.hasSuffix(")") else { return nil }
        let name = text[..<open].trimmingCharacters(in: .whitespaces)
        let argument = text[text.index(after: open)..<text.index(before: text.endIndex)].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0 == "_" }), !argument.isEmpty else { return nil }
        return (name, argument)
    }

    /// The pivot's SELECT for the values `values` of `columns` (in order; `more` others
    /// beyond them, counted in one last column).
    func select(values: [DatabaseValue], more: Int) -> String {
        let (name, argument) = PivotTable.parse(aggregate) ?? ("count", "*")
        let key = FrequencyTable.valueExpression(column: columns, isEncrypted: columnsEncrypted)
        let each = argument == "*" ? "1" : argument
        var cells = values.map { value in
            "\(name)(CASE WHEN \(key) IS \(value.description) THEN \(each) END) AS \(Database.quoteIdentifier(value.description))"
        }
        if more > 0 {
            let listed = values.map(\.description).joined(separator: ", ")
            cells.append("\(name)(CASE WHEN \(key) IS NULL OR \(key) NOT IN (\(listed)) THEN \(each) END) AS "
                         + Database.quoteIdentifier("(\(more) more values, cut)"))
        }
        let row = FrequencyTable.valueExpression(column: rows, isEncrypted: rowsEncrypted)
        return "SELECT \(row) AS \(Database.quoteIdentifier(rows)), " + cells.joined(separator: ", ")
            + " FROM \(relation)\(view.whereClause()) GROUP BY 1 ORDER BY 1"
    }

    /// The pivot's SELECT, its column values read from `db` (at most `columnLimit`, in
    /// SQLite's order).
    func select(on db: Database) throws -> String {
        let key = FrequencyTable.valueExpression(column: columns, isEncrypted: columnsEncrypted)
        let found = try db.query("SELECT DISTINCT \(key) FROM \(relation)\(view.whereClause()) ORDER BY 1 LIMIT \(PivotTable.columnLimit + 1)")
            .map { $0.values[0] }
        let values = Array(found.prefix(PivotTable.columnLimit))
        let more = found.count > PivotTable.columnLimit
            ? (try db.scalar("SELECT count(DISTINCT \(key)) + (count(*) > count(\(key))) FROM \(relation)\(view.whereClause())")?
                .int64Value).map { Int($0) - values.count } ?? 1
            : 0
        return select(values: values, more: more)
    }

    /// The origin's view filtered to the rows of one cell: its row's value, and its column's
    /// value when the cell is in a column of one (`columnName` the SQL literal naming it).
    func filter(row: DatabaseValue, columnName: String?) -> TableView {
        var conditions = [view.filter.flatMap { $0.isEmpty ? nil : "(" + $0 + ")" }].compactMap { $0 }
        conditions.append("\(FrequencyTable.valueExpression(column: rows, isEncrypted: rowsEncrypted)) IS \(row.description)")
        if let columnName {
            conditions.append("\(FrequencyTable.valueExpression(column: columns, isEncrypted: columnsEncrypted)) IS \(columnName)")
        }
        var filtered = view
        filtered.filter = conditions.joined(separator: " AND ")
        return filtered
    }
}

extension GridSource {
    /// The pivot of this source's rows by `rows` and `columns` (column indexes) with
    /// `aggregate`; nil for a source that is not a table, view or query.
    func pivotTable(rows: Int, columns: Int, aggregate: String) -> PivotTable? {
        guard self.columns.indices.contains(rows), self.columns.indices.contains(columns) else { return nil }
        let (relation, view, encrypted): (String, TableView, Set<String>)
        if let table = self as? TableSource {
            (relation, view, encrypted) = (Database.quoteIdentifier(table.table), table.view, table.encryptedColumns)
        } else if let query = self as? QuerySource {
            (relation, view, encrypted) = (query.relation, query.view, query.encryptedColumns)
        } else {
            return nil
        }
        let (r, c) = (self.columns[rows], self.columns[columns])
        return PivotTable(relation: relation, view: view, rows: r, rowsEncrypted: encrypted.contains(r), columns: c,
                          columnsEncrypted: encrypted.contains(c), aggregate: aggregate)
    }
}
