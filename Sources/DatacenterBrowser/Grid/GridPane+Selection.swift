import DatacenterKit

/// Selected rows of a table's grid (VisiData's `s`, `gs`, `|`): `s` selects or unselects the
/// cursor's row, `*` every row the grid shows (its filter), `|` every row the last search
/// matches, `U` none. `x` then stages the deletion of every selected row, and `E` exports
/// only them. Rows are kept by key, so a selection outlives paging, sorting and reading
/// again; a row deleted meanwhile is simply not there.
extension GridPane {
    /// The selection keys.
    static let selectionCommands: [KeyCommand<GridPane>] = [
        KeyCommand([.character("s")], "s", "select the row, or unselect it") { grid, _, context in grid.toggleSelection(context: context) },
        KeyCommand([.character("*"), .character("|")], "*  |", "select the rows filtered / the search's matches") { grid, key, context in
            grid.selectRows(bySearch: key == .character("|"), context: context)
        },
        KeyCommand([.character("U")], "U", "select none") { grid, _, _ in grid.clearSelection() },
    ]

    /// The most rows `*` and `|` select (and `x` stages) at once.
    static let selectionLimit = 10_000

    /// The table whose rows can be selected: one paged by key (a rowid or primary key).
    private var selectableTable: TableSource? {
        guard let table = source as? TableSource, !table.usesOffset, !table.keyColumns.isEmpty else { return nil }
        return table
    }

    /// `s`: selects the cursor's row, or unselects it; the cursor moves down.
    mutating func toggleSelection(context: PaneContext) -> [PaneEffect] {
        guard selectableTable != nil else { return refusal() }
        guard rows.indices.contains(cursor) else { return [] }
        let key = rows[cursor].key
        if selectedKeys.remove(key) == nil {
            guard selectedKeys.count < Self.selectionLimit else {
                return [.message("at most \(Browser.grouped(Self.selectionLimit)) rows are selected at once", isError: true)]
            }
            selectedKeys.insert(key)
        }
        return moveDown(by: 1, context: context)
    }

    /// `U`: selects no row.
    mutating func clearSelection() -> [PaneEffect] {
        let count = selectedKeys.count
        selectedKeys = []
        return [.message(count == 0 ? "no row is selected (s selects the cursor's row)" : "unselected \(Browser.grouped(count)) rows", isError: false)]
    }

    /// `*` (`bySearch` false): every row the grid shows; `|`: every row the last search
    /// matches. Read off the input loop (`BrowserCommand.selectRows`).
    mutating func selectRows(bySearch: Bool, context: PaneContext) -> [PaneEffect] {
        guard let table = selectableTable else { return refusal() }
        if bySearch, lastQuery == nil { return [.message("no search yet: / searches, then | selects the rows it matches", isError: false)] }
        let id = context.ids.next()
        selecting = id
        return [.command(.selectRows(gridID: self.id, requestID: id, source: table, needle: bySearch ? lastQuery : nil,
                                     limit: Self.selectionLimit)),
                .message("selecting…", isError: false)]
    }

    /// The keys `selectRows` read came: they join the selection; more than the limit selects
    /// none of them and says so.
    mutating func rowsSelected(requestID: Int, keys: [[DatabaseValue]]?, error: String?) -> [PaneEffect] {
        guard selecting == requestID else { return [] }
        selecting = nil
        if let error { return [.message("cannot select: \(error)", isError: true)] }
        guard let keys else {
            return [.message("more than \(Browser.grouped(Self.selectionLimit)) rows: narrow them with a filter (f) first", isError: true)]
        }
        let before = selectedKeys.count
        let joined = selectedKeys.union(keys)
        // Over the limit, the selection stays as it was: none of what was selected is dropped.
        guard joined.count <= Self.selectionLimit else {
            return [.message("\(Browser.grouped(joined.count)) rows would be selected, more than \(Browser.grouped(Self.selectionLimit)): "
                             + "U unselects, or narrow them with a filter (f)", isError: true)]
        }
        selectedKeys = joined
        return [.message("selected \(Browser.grouped(selectedKeys.count - before)) more: \(Browser.grouped(selectedKeys.count)) selected · x deletes, E exports them, U unselects",
                         isError: false)]
    }

    /// `x` with rows selected: stages the deletion of each.
    func deleteSelected(_ editable: EditableSource) -> [PaneEffect] {
        var effects: [PaneEffect] = []
        // In key order, as SQLite orders the keys: the review lists them as the grid does.
        for key in selectedKeys.sorted(by: { $0.lexicographicallyPrecedes($1) { SQLiteOrder.compare($0, $1) < 0 } }) {
            let row = GridRow(key: key, cells: [])
            do {
                var edit = try editable.stageDelete(row: row)
                edit.mark = StagedMark(nodeID: node.id, rowKey: key, column: nil)
                effects.append(.stage(edit))
            } catch {
                return [.message("\(error)", isError: true)]
            }
        }
        return effects + [.message("staged the deletion of \(Browser.grouped(selectedKeys.count)) selected rows: w reviews, c commits",
                                   isError: false)]
    }

    /// The SQL condition that keeps only the selected rows of `table` (key values written as
    /// literals), for an export of them; nil with none selected.
    func selectionCondition() -> String? {
        guard !selectedKeys.isEmpty, let table = selectableTable else { return nil }
        let tuple = "(" + table.keyColumns.map(Database.quoteIdentifier).joined(separator: ", ") + ")"
        let values = selectedKeys.map { "(" + $0.map(\.description).joined(separator: ", ") + ")" }.sorted()
        return "\(tuple) IN (VALUES \(values.joined(separator: ", ")))"
    }

    /// Why this grid's rows cannot be selected.
    private func refusal() -> [PaneEffect] {
        [.message("rows are selected in a table with a rowid or primary key: \(source.title) is not one", isError: true)]
    }
}
