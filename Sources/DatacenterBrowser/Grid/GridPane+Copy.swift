import DatacenterKit

/// Copying from the grid to the terminal's clipboard: `y` the cell's whole value, `Y` the
/// row (or the selected rows) as JSON, decrypted (`CellCopy`).
extension GridPane {
    /// The copy keys.
    static let copyCommands: [KeyCommand<GridPane>] = [
        KeyCommand([.character("y"), .character("Y")], "y  Y", "copy the cell / the row, or the selected rows, as JSON") { grid, key, context in
            if key == .character("Y"), !grid.selectedKeys.isEmpty { return [grid.copySelectedEffect(context: context)] }
            return [grid.copyEffect(row: key == .character("Y"))]
        },
    ]

    /// What `y` copies (the cursor cell's whole value) or `Y` (the cursor row as a JSON
    /// object), or why nothing is copied.
    private func copyEffect(row wholeRow: Bool) -> PaneEffect {
        guard rows.indices.contains(cursor) else { return .message("no row to copy", isError: true) }
        let row = rows[cursor]
        if wholeRow {
            let (json, locked) = CellCopy.json(of: row, columns: source.columns)
            let note = locked == 0 ? "" : " (\(locked) locked \(locked == 1 ? "value" : "values") as {\"$locked\": …})"
            return .copy(json, what: "the row as JSON" + note)
        }
        guard row.cells.indices.contains(column) else { return .message("no cell to copy", isError: true) }
        let name = source.columns.indices.contains(column) ? source.columns[column] : "the cell"
        do { return .copy(try CellCopy.text(of: row.cells[column], column: name), what: name) } catch {
            return .message(error.description, isError: true)
        }
    }
}
