import DatacenterKit

/// The columns a grid shows, and in what order: `-` hides the column under the cursor, `+`
/// shows every hidden column again, `{` and `}` move the cursor's column left and right.
///
/// A view of the screen only: the source's columns stay as they are, so editing, the
/// inspector, `F`, `I`, sorting, filtering, `y`/`Y` and `E` work on the table's columns
/// whatever is hidden or moved. `column` and `widthOverrides` are by source column;
/// `firstColumn` is a position among the columns shown.
extension GridPane {
    /// The column keys: jump, width, by name, hide, show, move.
    static let columnCommands: [KeyCommand<GridPane>] = [
        KeyCommand([.character("0"), .character("$")], "0 $", "first / last column") { grid, key, _ in
            grid.jumpColumn(toLast: key == .character("$"))
            return []
        },
        KeyCommand([.character("<"), .character(">"), .character("_")], "< > _", "narrow, widen, fit the column") { grid, key, context in
            let page = context.visibleRowCount
            if key == .character("_") {
                grid.widthOverrides[grid.column] = grid.fittedWidth(of: grid.column, rowCount: page)
                return []
            }
            let widths = grid.columnWidths(rowCount: page)
            let now = widths.indices.contains(grid.column) ? widths[grid.column] : 3
            grid.widthOverrides[grid.column] = min(GridPane.widestColumn, max(3, now + (key == .character(">") ? 2 : -2)))
            return []
        },
        KeyCommand([.character("c")], "c", "go to a column by name") { _, _, _ in
            [.prompt(PromptLine(label: "column: ", text: "", purpose: .column))]
        },
        KeyCommand([.character("-"), .character("+")], "-  +", "hide the column; show the hidden ones again") { grid, key, _ in
            key == .character("-") ? grid.hideColumn() : grid.showHiddenColumns()
        },
        KeyCommand([.character("{"), .character("}")], "{  }", "move the column left / right") { grid, key, _ in
            grid.moveColumn(right: key == .character("}"))
        },
        KeyCommand([.character("^")], "^", "rename the column on screen; =NAME stages ALTER TABLE … RENAME") { grid, _, _ in
            guard grid.source.columns.indices.contains(grid.column) else { return [] }
            let name = grid.source.columns[grid.column]
            return [.prompt(PromptLine(label: "rename \(name) (NEW: shown so; =NEW: renamed in the table, staged): ",
                                       text: grid.columnAliases[grid.column] ?? "", purpose: .renameColumn))]
        },
    ]

    /// What the header shows for the source's column `index`: its name, or the name `^` gave it.
    func header(of index: Int) -> String { columnAliases[index] ?? source.columns[index] }

    /// The text typed at the `^` prompt: a name shown for the cursor's column (empty: its
    /// own again), or `=NAME` the column renamed in its table, staged for the review. A real
    /// rename is refused on what is not a table of the tree's Tables (the engine's own
    /// tables, KV businesses, caches, and tables a DAO config describes, whose code names
    /// the columns), on views, and with `--read-only`.
    mutating func rename(_ text: String, context: PaneContext) -> [PaneEffect] {
        let name = source.columns[column]
        let wanted = text.trimmingCharacters(in: .whitespaces)
        guard wanted.hasPrefix("=") else {
            columnAliases[column] = wanted.isEmpty || wanted == name ? nil : wanted
            return [.message(wanted.isEmpty || wanted == name ? "\(name) shown as itself" : "\(name) shown as \(wanted) (on screen only: nothing is written)",
                             isError: false)]
        }
        let new = wanted.dropFirst().trimmingCharacters(in: .whitespaces)
        guard !new.isEmpty else { return [.message("=NAME renames the column in the table: the name is missing", isError: true)] }
        guard context.catalog.allowsWrites else { return [.message("--read-only: nothing can be staged or written", isError: true)] }
        guard case .table = node.kind, let table = source as? TableSource, !table.isView else {
            return [.message("\(source.title): only a table of the Tables group is renamed here (the engine's tables, DAO tables, "
                             + "caches and views keep their columns: their code names them)", isError: true)]
        }
        if source.columns.contains(where: { $0.lowercased() == new.lowercased() && $0 != name }) {
            return [.message("\(table.table) has a column \(new) already", isError: true)]
        }
        let sql = "ALTER TABLE \(Database.quoteIdentifier(table.table)) RENAME COLUMN \(Database.quoteIdentifier(name)) TO \(Database.quoteIdentifier(new))"
        let inverse = "ALTER TABLE \(Database.quoteIdentifier(table.table)) RENAME COLUMN \(Database.quoteIdentifier(new)) TO \(Database.quoteIdentifier(name))"
        return [.stage(StagedEdit(storePath: table.store.path, action: .executeSchema(sql: sql, inverse: inverse), preview: sql, target: table.table))]
    }

    /// The source's columns in the order they are drawn, hidden ones left out.
    var shownColumns: [Int] {
        let order = columnOrder ?? Array(source.columns.indices)
        return hiddenColumns.isEmpty ? order : order.filter { !hiddenColumns.contains($0) }
    }

    /// The position of the cursor's column among the columns shown (0 when it is hidden,
    /// which the keys never leave it).
    var columnPosition: Int { shownColumns.firstIndex(of: column) ?? 0 }

    /// `-`: hides the cursor's column, the cursor going to the next one shown (the one
    /// before, at the end); the last column shown stays.
    mutating func hideColumn() -> [PaneEffect] {
        let shown = shownColumns
        guard shown.count > 1, let position = shown.firstIndex(of: column) else {
            return [.message("- hides a column: \(source.title) has one column shown, which stays", isError: true)]
        }
        let name = source.columns[column]
        hiddenColumns.insert(column)
        column = position + 1 < shown.count ? shown[position + 1] : shown[position - 1]
        firstColumn = min(firstColumn, columnPosition)
        return [.message("hid \(name): \(hiddenColumns.count) hidden · + shows them again", isError: false)]
    }

    /// `+`: shows every hidden column again, where it was.
    mutating func showHiddenColumns() -> [PaneEffect] {
        guard !hiddenColumns.isEmpty else { return [.message("no column is hidden (- hides the cursor's column)", isError: false)] }
        let count = hiddenColumns.count
        hiddenColumns = []
        firstColumn = min(firstColumn, columnPosition)
        return [.message("showing \(count) hidden column\(count == 1 ? "" : "s") again", isError: false)]
    }

    /// `{` (`right` false) and `}`: moves the cursor's column past the column shown before
    /// (after) it; the cursor stays on the column moved.
    mutating func moveColumn(right: Bool) -> [PaneEffect] {
        let shown = shownColumns
        guard let position = shown.firstIndex(of: column) else { return [] }
        let neighbour = position + (right ? 1 : -1)
        guard shown.indices.contains(neighbour) else { return [] }
        var order = columnOrder ?? Array(source.columns.indices)
        guard let from = order.firstIndex(of: column), let to = order.firstIndex(of: shown[neighbour]) else { return [] }
        order.remove(at: from)
        order.insert(column, at: to)
        columnOrder = order
        firstColumn = min(firstColumn, columnPosition)
        return []
    }

    /// ← (`step` -1), → (+1): the column shown before or after the cursor's.
    mutating func stepColumn(_ step: Int) {
        let shown = shownColumns
        guard !shown.isEmpty else { return }
        column = shown[min(max(0, columnPosition + step), shown.count - 1)]
    }

    /// `0` and `$`: the first or last column shown.
    mutating func jumpColumn(toLast: Bool) {
        if let edge = toLast ? shownColumns.last : shownColumns.first { column = edge }
    }

    /// Shows `index` (hidden, it is shown again) and puts the cursor on it (`c`, going back
    /// to where `J` left).
    mutating func goToColumn(_ index: Int) {
        guard source.columns.indices.contains(index) else { return }
        hiddenColumns.remove(index)
        column = index
        firstColumn = min(firstColumn, columnPosition)
    }

    /// Keeps `old`'s hidden and moved columns when the source has the same columns.
    mutating func keepColumnLayout(of old: GridPane) {
        guard old.source.columns == source.columns else { return }
        columnOrder = old.columnOrder
        hiddenColumns = old.hiddenColumns
    }
}
