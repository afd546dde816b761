/// The grid's sort and filter: `[` ascending, `]` descending by the cursor's column, as
/// SQLite's `ORDER BY` in the grid's `TableView` (still paged by key; an encrypted DAO column
/// is sorted by its decrypted values in memory, `InMemoryOrder`); `f` a SQL `WHERE`.
extension GridPane {
    /// The sort and filter keys.
    static let sortCommands: [KeyCommand<GridPane>] = [
        KeyCommand([.character("["), .character("]")], "[  ]", "sort by the column ↑ / ↓ (again: off)") { grid, key, _ in
            [grid.sortEffect(descending: key == .character("]"))]
        },
        KeyCommand([.character("f")], "f", "filter rows (SQL WHERE; an empty one clears it)") { grid, _, _ in
            [.prompt(PromptLine(label: "filter (SQL WHERE): ", text: grid.source.view.filter ?? "", purpose: .filter))]
        },
    ]

    /// The view sorted by the cursor's column (`[` ascending, `]` descending); the same key
    /// again on the column the grid is sorted by puts it back in its own order.
    func sortEffect(descending: Bool) -> PaneEffect {
        guard source.columns.indices.contains(column) else { return .message("no column to sort by", isError: true) }
        var view = source.view
        let sort = TableView.Sort(column: source.columns[column], descending: descending)
        view.sort = view.sort == sort ? nil : sort
        return .view(view)
    }
}
