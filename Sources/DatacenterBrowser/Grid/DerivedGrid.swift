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
