/// A grid made from another that answers Enter itself, rather than inspecting the cell as
/// other grids do: a frequency table (`F`) shows the grid it counts filtered to the value
/// under the cursor; the changes since a mark (`M`) show the changes of the business, table
/// or cache under the cursor. `I`'s statistics have no Enter of their own.
enum DerivedGrid: Sendable {
    /// A frequency table of a column (`FrequencyTable`).
    case frequency(FrequencyTable)
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
            return [.frequency(table)]
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
