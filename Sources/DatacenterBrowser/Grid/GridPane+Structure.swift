import DatacenterKit

/// The table's structure from the grid: `S` its schema (columns, indexes, foreign keys,
/// triggers), `J` follows the cell's foreign key to the row it references, `Backspace` goes
/// back to where `J` (or `F`, `I`, `M`) left.
extension GridPane {
    /// The structure keys.
    static let structureCommands: [KeyCommand<GridPane>] = [
        KeyCommand([.character("S")], "S", "schema: columns, indexes, foreign keys, triggers") { grid, _, context in
            switch grid.node.kind {
            case .table, .daoTable: return [.command(.schema(node: grid.node, catalog: context.catalog))]
            default: return [.message("S shows the schema of tables and views: \(grid.source.title) is not one", isError: true)]
            }
        },
        KeyCommand([.character("J")], "J", "follow the cell's foreign key to its row") { grid, _, _ in [grid.followEffect()] },
        KeyCommand([.backspace], "Backspace", "back to where J, F, I or M left") { _, _, _ in [.jumpBack] },
    ]

    /// Where `J` leads from the cursor's cell: the row its foreign key references, or why
    /// nowhere (not a foreign key column, a NULL, a locked value).
    private func followEffect() -> PaneEffect {
        guard rows.indices.contains(cursor), source.columns.indices.contains(column) else { return .message("no cell to follow", isError: true) }
        let name = source.columns[column]
        guard let table = source as? TableSource, let key = table.foreignKeys.first(where: { $0.from.contains(name) }) else {
            return .message("\(name) is not a foreign key: J follows one to the row it references", isError: true)
        }
        var values: [DatabaseValue] = []
        for from in key.from {
            guard let index = source.columns.firstIndex(of: from), rows[cursor].cells.indices.contains(index),
                  case .database(let value) = rows[cursor].cells[index].content else {
                return .message("\(from) cannot be read here (locked?): J has no value to follow", isError: true)
            }
            if value == .null { return .message("\(from) is NULL: it references no row", isError: false) }
            values.append(value)
        }
        return .follow(table: key.table, columns: key.to, values: values)
    }
}

extension GridPane {
    /// Where the grid is (its view, row and column), for `Backspace` to come back to from a
    /// grid opened from it (`J`, `F`, `I`). A grid without rows has a place too, with no
    /// row: `F` and `I` work on it, and lead back to it.
    var place: GridLifecycle.JumpPlace {
        GridLifecycle.JumpPlace(node: node, view: source.view, row: rows.indices.contains(cursor) ? rows[cursor] : nil, column: column)
    }
}
