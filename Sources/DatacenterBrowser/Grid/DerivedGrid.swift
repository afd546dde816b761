/// A grid made from another that answers Enter itself, rather than inspecting the cell as
/// other grids do: a frequency table (`F`) shows the grid it counts filtered to the value
/// under the cursor, a pivot (`W`) to the rows of the cell; the changes since a mark (`M`)
/// show the changes of the business, table or cache under the cursor. `I`'s statistics have
/// no Enter of their own.
enum DerivedGrid: Sendable {
    /// A frequency table of a column (`FrequencyTable`).
    case frequency(FrequencyTable)
    /// A pivot (`PivotTable`) of the grid of `origin`.
    case pivot(PivotTable, origin: TreeNode)
    /// The summary of the changes since the mark (`ChangesSummarySource`).
    case changesSummary

    /// What Enter on the cursor's row of `grid` asks of the browser.
    func enter(in grid: GridPane) -> [PaneEffect] {
        guard grid.rows.indices.contains(grid.cursor) else { return [] }
        let row = grid.rows[grid.cursor]
        switch self {
        case .frequency(let table):
            guard case .database(let value) = row.cells.first?.content else { return [] }
            return [.openFiltered(table.origin, view: table.filter(for: value))]
        case let .pivot(table, origin):
            guard case .database(let value) = row.cells.first?.content else { return [] }
            // A cell of a column of one value: its rows; the first column or the one of the
            // values cut: the row's.
            let name = grid.source.columns.indices.contains(grid.column) ? grid.source.columns[grid.column] : ""
            let isValue = grid.column > 0 && !name.hasSuffix("more values, cut)")
            return [.openFiltered(origin, view: table.filter(row: value, columnName: isValue ? name : nil))]
        case .changesSummary:
            guard let summary = grid.source as? ChangesSummarySource, let entry = summary.entry(of: row) else { return [] }
            guard let section = entry.section else {
                return [.message(entry.table == "schema" ? "the schema changed: datacenter diff names each object"
                                     : "a whole store: nothing to list row by row", isError: false)]
            }
            return [.openDerived(TreeNode(id: "changes#" + summary.mark + "#" + entry.store + "#" + entry.table + "#\(section)",
                                          label: "changes", detail: "",
                                          kind: .changesOf(mark: summary.mark, live: summary.live, store: entry.store,
                                                           table: entry.table, section: section),
                                          children: []))]
        }
    }
}

extension GridPane {
    /// The keys that make a grid from the one shown: `F` the frequency of the cursor's
    /// column's values, `I` statistics of every column.
    static let derivedCommands: [KeyCommand<GridPane>] = [
        KeyCommand([.character("F")], "F", "frequency of the column: value, count, %, bar;",
                   "Enter on a value filters the grid to it") { grid, _, _ in
            guard let table = grid.source.frequencyTable(column: grid.column, node: grid.node) else {
                return [.message("F counts the values of a column of a table, view or query: \(grid.source.title) is not one", isError: true)]
            }
            guard let path = grid.node.storePath else { return [] }
            return [.derive(table.node(in: path), .frequency(table))]
        },
        KeyCommand([.character("W")], "W", "pivot: rows by the column, columns by another's values,",
                   "each cell an aggregate (count(*), sum(x), …); Enter: its rows") { grid, _, _ in
            guard grid.source.pivotTable(rows: grid.column, columns: grid.column, aggregate: "count(*)") != nil else {
                return [.message("W pivots the rows of a table, view or query: \(grid.source.title) is not one", isError: true)]
            }
            let name = grid.source.columns[grid.column]
            return [.prompt(PromptLine(label: "pivot rows by \(name); columns by (COLUMN[, AGGREGATE]): ", text: "", purpose: .pivot))]
        },
        KeyCommand([.character("I")], "I", "statistics of every column: types, nulls,",
                   "distinct, min, max, mean (Esc stops a long one)") { grid, _, _ in
            guard let select = grid.source.statisticsSelect(), let path = grid.node.storePath else {
                return [.message("I describes the columns of a table, view or query: \(grid.source.title) is not one", isError: true)]
            }
            return [.openDerived(TreeNode(id: path + "#statistics#" + grid.node.id, label: "statistics of the columns of \(grid.source.title)",
                                          detail: "", kind: .query(store: path, sql: select), children: []))]
        },
    ]
}

extension GridPane {
    /// The text typed at the `W` prompt: `COLUMN` or `COLUMN, AGGREGATE` (`count(*)` when
    /// none): the pivot of the grid's rows by the cursor's column and that one.
    func pivot(_ text: String) -> [PaneEffect] {
        let parts = text.split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let wanted = parts.first, !wanted.isEmpty else { return [] }
        guard let index = GridPane.column(named: wanted, in: source.columns) else {
            return [.message("no column named \(wanted) (columns: \(source.columns.joined(separator: ", ")))", isError: true)]
        }
        let aggregate = parts.count > 1 && !parts[1].isEmpty ? parts[1] : "count(*)"
        if let refusal = PivotTable.aggregateRefusal(aggregate) { return [.message(refusal, isError: true)] }
        guard let table = source.pivotTable(rows: column, columns: index, aggregate: aggregate), let path = node.storePath else { return [] }
        let (rows, columns) = (source.columns[column], source.columns[index])
        let node = TreeNode(id: path + "#pivot#" + self.node.id + "#" + rows + "#" + columns + "#" + aggregate,
                            label: "pivot of \(self.node.label): \(rows) by \(columns), \(aggregate)", detail: "",
                            kind: .pivot(store: path, table: table), children: [])
        return [.derive(node, .pivot(table, origin: self.node))]
    }
}
