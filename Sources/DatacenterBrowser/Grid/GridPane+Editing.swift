import DatacenterKit

/// Editing a table's rows from the grid: `e` edits the cell, `x` deletes the row (or the
/// selected rows), `o` inserts one. Each is staged (`ReviewPane`), never written at the key:
/// `w` reviews the SQL, `c` commits it (`StagedCommit`).
extension GridPane {
    /// The editing keys.
    static let editingCommands: [KeyCommand<GridPane>] = [
        KeyCommand([.character("e")], "e", "edit the cell (staged); values: NULL 42 1.5 X'00ff' 'quoted text'",
                   hint: "e edit") { grid, _, context in
            var effects: [PaneEffect] = []
            guard let editable = grid.editableSource(context, &effects), grid.rows.indices.contains(grid.cursor) else { return effects }
            var row = grid.rows[grid.cursor]
            // A cell already staged is edited from its new value.
            if let staged = context.stagedValues[StagedMark(nodeID: grid.node.id, rowKey: row.key, column: grid.column)] {
                var cells = row.cells
                cells[grid.column] = staged.cell
                row = GridRow(key: row.key, cells: cells, orderKey: row.orderKey)
            }
            if let refusal = editable.editRefusal(row: row, column: grid.column, keys: context.catalog.keys) {
                return [.message(refusal, isError: true)]
            }
            let name = grid.source.columns[grid.column]
            return [.prompt(PromptLine(label: "edit \(name): ", text: editable.editText(row: row, column: grid.column), purpose: .edit))]
        },
        KeyCommand([.character("x")], "x", "delete the row, or the selected rows (staged)", hint: "x delete") { grid, _, context in
            var effects: [PaneEffect] = []
            guard let editable = grid.editableSource(context, &effects) else { return effects }
            if !grid.selectedKeys.isEmpty { return grid.deleteSelected(editable) }
            guard grid.rows.indices.contains(grid.cursor) else { return [] }
            let row = grid.rows[grid.cursor]
            if let refusal = editable.deleteRefusal(row: row) { return [.message(refusal, isError: true)] }
            return grid.stage(marking: StagedMark(nodeID: grid.node.id, rowKey: row.key, column: nil)) { try editable.stageDelete(row: row) }
        },
        KeyCommand([.character("u"), .control("r")], "u  Ctrl-R", "undo the last staged edit / redo it") { _, key, _ in
            [key == .character("u") ? .undoStaged : .redoStaged]
        },
        KeyCommand([.character("o")], "o", "insert a row, a JSON object of columns (staged)", hint: "o insert") { grid, _, context in
            var effects: [PaneEffect] = []
            guard let editable = grid.editableSource(context, &effects) else { return effects }
            if let refusal = editable.insertRefusal { return [.message(refusal, isError: true)] }
            return [.prompt(PromptLine(label: "insert (JSON object of columns): ", text: "{}", purpose: .insert))]
        },
    ]

    /// The source when its rows can be changed; otherwise nil, with the reason in the status
    /// line. Said at the key, before anything is typed.
    private func editableSource(_ context: PaneContext, _ effects: inout [PaneEffect]) -> EditableSource? {
        guard context.catalog.allowsWrites else {
            effects.append(.message("--read-only: nothing can be staged or written", isError: true))
            return nil
        }
        guard let editable = source as? EditableSource else {
            effects.append(.message("\(source.title) cannot be edited here", isError: true))
            return nil
        }
        return editable
    }

    /// The edit `make` builds, to stage, or why it cannot be made; an edit that would change
    /// nothing (nil) stages nothing.
    func stage(marking mark: StagedMark? = nil, _ make: () throws -> StagedEdit?) -> [PaneEffect] {
        do {
            guard var edit = try make() else { return [.message("unchanged: nothing staged", isError: false)] }
            edit.mark = mark
            return [.stage(edit)]
        } catch {
            return [.message("\(error)", isError: true)]
        }
    }
}
