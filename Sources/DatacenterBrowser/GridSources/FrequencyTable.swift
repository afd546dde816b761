import DatacenterKit

/// The frequency table of a column (VisiData's `F`): each distinct value with how many rows
/// hold it, their percent of the rows shown and a bar, most frequent first, counted by
/// SQLite over the grid's rows as filtered. A crypt column is counted by its decrypted value
/// (`datacenter_decrypt`): its ciphertexts differ for equal values.
///
/// Enter on a value filters the grid it was made from to the rows holding it (`filter(for:)`).
struct FrequencyTable: Sendable, Equatable {
    /// The grid the table counts: its node and view, and the column counted.
    let origin: TreeNode
    let view: TableView
    let column: String
    let isEncrypted: Bool
    /// The SELECT that counts (shown as a query grid).
    let select: String

    /// Bar width of the most frequent value, in cells.
    static let barWidth = 30

    /// The table of `column` over `relation` (a quoted table or view name, or a SELECT in
    /// parentheses) as `view` filters it.
    init(origin: TreeNode, relation: String, view: TableView, column: String, isEncrypted: Bool) {
        self.origin = origin
        self.view = view
        self.column = column
        self.isEncrypted = isEncrypted
        let value = FrequencyTable.valueExpression(column: column, isEncrypted: isEncrypted)
        let bar = String(repeating: "█", count: FrequencyTable.barWidth)
        select = """
            SELECT value, count, printf('%.1f%%', 100.0 * count / sum(count) OVER ()) AS percent,
              substr('\(bar)', 1, (\(FrequencyTable.barWidth) * count + max(count) OVER () - 1) / max(count) OVER ()) AS bar
            FROM (SELECT \(value) AS value, count(*) AS count FROM \(relation)\(view.whereClause()) GROUP BY 1)
            ORDER BY count DESC, value
            """
    }

    /// The SQL of the column's value: decrypted for a crypt column.
    static func valueExpression(column: String, isEncrypted: Bool) -> String {
        let name = Database.quoteIdentifier(column)
        return isEncrypted ? "datacenter_decrypt(\(name))" : name
    }

    /// The origin's view filtered to the rows whose column holds `value` (ANDed with the
    /// filter it had).
    func filter(for value: DatabaseValue) -> TableView {
        let expression = FrequencyTable.valueExpression(column: column, isEncrypted: isEncrypted)
        let condition = value.isNull ? "\(expression) IS NULL" : "\(expression) = \(value.description)"
        var filtered = view
        filtered.filter = [view.filter.flatMap { $0.isEmpty ? nil : "(" + $0 + ")" }, condition].compactMap { $0 }
            .joined(separator: " AND ")
        return filtered
    }

    /// The grid of the table, a query of the store at `path`: its node.
    func node(in path: String) -> TreeNode {
        TreeNode(id: path + "#frequency#" + origin.id + "#" + column, label: "frequency of \(column) in \(origin.label)",
                 detail: "", kind: .query(store: path, sql: select), children: [])
    }
}

extension GridSource {
    /// The frequency table of `column` of this source's rows, for a grid showing `node`;
    /// nil for a source that is not a table, view or query (its rows are not read by SQL).
    func frequencyTable(column: Int, node: TreeNode) -> FrequencyTable? {
        guard columns.indices.contains(column) else { return nil }
        if let table = self as? TableSource {
            return FrequencyTable(origin: node, relation: Database.quoteIdentifier(table.table), view: table.view,
                                  column: columns[column], isEncrypted: table.encryptedColumns.contains(columns[column]))
        }
        if let query = self as? QuerySource {
            return FrequencyTable(origin: node, relation: query.relation, view: query.view, column: columns[column],
                                  isEncrypted: query.encryptedColumns.contains(columns[column]))
        }
        return nil
    }
}
