import DatacenterKit
import Foundation
import DatacenterText

/// The grid over one source: a window of rows around the cursor, never the whole table,
/// paged by key as the cursor moves; its keys move, inspect, search and stage edits, and it
/// draws the rows that fit with a header of column names.
struct GridPane {
    /// A search running in the background (`BrowserCommand.search`).
    struct Search {
        /// The search's id: progress and results of an older search are dropped.
        let id: Int
        /// What is searched for (its `described` text names it in messages).
        let needle: SearchNeedle
        /// True when it looks towards the first row (`?`, or `N` after `/`).
        let backward: Bool
        /// Rows scanned so far, for the status line.
        var scanned: Int
        /// Set by Esc; the search stops at its next page.
        let cancel: CancellationFlag
    }

    /// A move waiting for the page it needs (`BrowserCommand.fetchPage`).
    struct PendingMove {
        /// Down or up by a number of rows, or to the first or last row; or, after a resize,
        /// no move at all: the rows after the window, to fill a taller screen; or to the row
        /// `Ctrl-G` named, which comes first in the page.
        enum Move { case down(Int), up(Int), first, last, fill, goTo(GoToTarget) }
        /// The request's id: a page for another request is dropped.
        let id: Int
        /// Where the cursor goes once the page is in.
        var move: Move
    }

    /// The grid's id: events for a grid no longer shown are dropped.
    let id: Int
    /// What the grid shows.
    let source: GridSource
    /// The tree node it shows.
    let node: TreeNode
    /// The rows on hand: a window of the source around the cursor.
    var rows: [GridRow]
    var cursor = 0          // index into rows
    var top = 0             // first visible index into rows
    /// The column under the cursor (an index into the source's columns).
    var column = 0
    /// The position, among the columns shown, of the first column on screen (the grid
    /// scrolls sideways).
    var firstColumn = 0
    /// The order the columns are drawn in, when `{` `}` moved some (`GridPane+Columns`).
    var columnOrder: [Int]?
    /// The columns `-` hid.
    var hiddenColumns: Set<Int> = []
    /// The names `^` gave columns on screen, by source column (display only).
    var columnAliases: [Int: String] = [:]
    /// The keys of the rows selected (`GridPane+Selection`).
    var selectedKeys: Set<[DatabaseValue]> = []
    /// The `*` or `|` selection being read, by request id.
    var selecting: Int?
    /// The row count, once the background count came back.
    var total: Int?
    /// The search running, if any; keys wait while it runs, but Esc cancels it.
    var search: Search?
    /// The move waiting for a page, if any.
    var pending: PendingMove?
    /// The last search (`/` and `?` start from it, in its mode; `n` and `N` repeat it).
    var lastQuery: SearchNeedle?
    /// True when the last search typed was backward (`?`): `n` goes on that way, `N` the other.
    var lastSearchBackward = false
    /// The store's data version when last looked at (`Browser.pollForChanges`).
    var dataVersion: Int64?
    /// Widths set by hand (`<`, `>`, `_`), by column index; other columns fit what is shown.
    var widthOverrides: [Int: Int] = [:]
    /// The keys of the rows found changed since the user's last key in the grid, when it
    /// was read again (`markChanges(since:)`), drawn in the `changed` role.
    var changedKeys: Set<[DatabaseValue]> = []
    /// The cells (and rows) staged edits change in this grid, drawn in the `staged` role
    /// (set from the staged edits when the screen is drawn).
    var stagedMarks: Set<StagedMark> = []
    /// The new values those edits give the cells, drawn instead of the values read.
    var stagedValues: [StagedMark: StagedValue] = [:]
    /// What Enter does when this grid was made from another (a frequency table, the changes
    /// since a mark); nil for a grid that inspects its cells.
    var derived: DerivedGrid?

    /// The grid of `node` over `source`, showing `rows` (read off the input loop by
    /// `BrowserCommand.openGrid`), and the row count to ask for in the background.
    static func opened(_ node: TreeNode, source: GridSource, rows: [GridRow], context: PaneContext) -> (GridPane, BrowserCommand) {
        var pane = GridPane(id: context.ids.next(), source: source, node: node, rows: rows, column: source.initialColumn)
        pane.dataVersion = source.dataVersionAtOpen
        return (pane, .countRows(gridID: pane.id, source: source))
    }

    // MARK: Keys

    /// One key (`GridPane.keys`). A move past the rows on hand asks for the page it needs
    /// (`BrowserCommand.fetchPage`, a keyset query of one page) and is done when it comes
    /// (`pageLoaded`); moves within the rows on hand are done at once.
    mutating func handle(_ key: Key, context: PaneContext) -> [PaneEffect] {
        changedKeys = []            // looked at: rows changed from now on are marked anew
        let effects = GridPane.keys.run(key, on: &self, context: context) ?? PaneEffect.unknownKey(key, in: "grid")
        firstColumn = min(firstColumn, columnPosition)
        return effects
    }

    /// The grid's keys, each feature's declared in its file.
    static let keys = KeyMap<GridPane>("Grid", movementCommands + columnCommands + searchCommands + sortCommands
        + derivedCommands + selectionCommands + copyCommands + exportCommands + structureCommands + editingCommands + [
            KeyCommand([.character("r")], "r", "read again (itself when the file changes)") { grid, _, _ in
                [.reloadGrid, .message("reading \(grid.source.title) again", isError: false)]
            },
            KeyCommand([.character("q")], "q", "quit: asks first if edits are staged", hint: "q quit") { _, _, _ in [.quit] },
        ])

    /// Moving about the grid: rows, pages, ends, a row by number or key, and leaving it.
    static let movementCommands: [KeyCommand<GridPane>] = [
        KeyCommand([.down, .character("j"), .up, .character("k")], "↑ ↓ j k", "move", hint: "↑↓ g G move") { grid, key, context in
            key == .down || key == .character("j") ? grid.moveDown(by: 1, context: context) : grid.moveUp(by: 1, context: context)
        },
        KeyCommand([.pageDown, .character(" "), .pageUp, .character("b")], "PgUp PgDn", "page (also Space, b)") { grid, key, context in
            let page = context.visibleRowCount
            return key == .pageDown || key == .character(" ") ? grid.moveDown(by: page, context: context) : grid.moveUp(by: page, context: context)
        },
        KeyCommand([.home, .character("g"), .end, .character("G")], "g G Home End", "first / last row") { grid, key, context in
            let page = context.visibleRowCount
            return key == .home || key == .character("g") ? grid.request(.first(limit: page * 2), for: .first, context: context)
                : grid.request(.last(limit: page * 2), for: .last, context: context)
        },
        KeyCommand([.left, .character("h"), .right, .character("l")], "← → h l", "column", hint: "←→ column") { grid, key, _ in
            grid.stepColumn(key == .left || key == .character("h") ? -1 : 1)
            return []
        },
        KeyCommand([.character("\u{7}")], "Ctrl-G", "go to row N, or key VALUE (key 42, key 1, x)") { _, _, _ in
            [.prompt(PromptLine(label: GoToTarget.promptLabel, text: "", purpose: .goTo))]
        },
        KeyCommand([.enter], "Enter", "inspect the cell; in a frequency table: its rows;",
                   "in the changes since a mark: that table's", hint: "Enter inspect") { grid, _, context in
            if let derived = grid.derived { return derived.enter(in: grid) }
            guard grid.rows.indices.contains(grid.cursor), grid.rows[grid.cursor].cells.indices.contains(grid.column) else { return [] }
            let name = grid.source.columns.indices.contains(grid.column) ? grid.source.columns[grid.column] : "value"
            let row = grid.rows[grid.cursor]
            // A staged update: its new value, the value read one key away.
            if let staged = context.stagedValues[StagedMark(nodeID: grid.node.id, rowKey: row.key, column: grid.column)] {
                return [.inspect(Inspector(title: name, staged: staged, replacing: row.cells[grid.column]))]
            }
            return [.inspect(Inspector(title: name, cell: row.cells[grid.column]))]
        },
        KeyCommand([.tab, .escape, .backTab], "Tab Esc", "to the tree") { _, _, _ in [.focus(.tree)] },
    ]

    /// The text typed at the prompt the grid asked for: a search, a new value for the cell
    /// under the cursor, a row to insert, or a row to go to (read off the input loop, a
    /// `fetchPage` of `PageRequest.at`, the row first in the window).
    /// `regex`: the search prompt was in its regular-expression mode (`Ctrl-R`).
    mutating func submit(_ purpose: PromptLine.Purpose, text: String, regex: Bool = false, context: PaneContext) -> [PaneEffect] {
        let keys = context.catalog.keys
        switch purpose {
        case .search, .searchBackward:
            guard !text.isEmpty else { return [] }
            let needle: SearchNeedle
            do {
                needle = try SearchNeedle(text, regex: regex)
            } catch {
                return [.message("\(error)", isError: true)]
            }
            lastQuery = needle
            lastSearchBackward = purpose == .searchBackward
            return startSearch(needle, backward: lastSearchBackward, context: context)
        case .filter:
            var view = source.view
            let filter = text.trimmingCharacters(in: .whitespaces)
            view.filter = filter.isEmpty ? nil : filter
            return view == source.view ? [] : [.view(view)]
        case .edit:
            guard let editable = source as? EditableSource, rows.indices.contains(cursor) else { return [] }
            let (row, column) = (rows[cursor], self.column)
            return stage(marking: StagedMark(nodeID: node.id, rowKey: row.key, column: column)) {
                try editable.stageUpdate(row: row, column: column, text: text, keys: keys)
            }
        case .insert:
            guard let editable = source as? EditableSource else { return [] }
            return stage { try editable.stageInsert(text: text, keys: keys) }
        case .export, .exportReplace, .open: return []  // the browser's (`submitExport`, `submitOpen`)
        case .pivot: return pivot(text)
        case .renameColumn: return rename(text, context: context)
        case .column:
            let wanted = text.trimmingCharacters(in: .whitespaces)
            guard !wanted.isEmpty else { return [] }
            guard let index = GridPane.column(named: wanted, in: source.columns) else {
                return [.message("no column named \(wanted) (columns: \(source.columns.joined(separator: ", ")))", isError: true)]
            }
            goToColumn(index)
            return []
        case .goTo:
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return [] }
            let target: GoToTarget
            do { target = try GoToTarget.parse(text) } catch { return [.message(error.description, isError: true)] }
            return request(.at(target, limit: context.visibleRowCount * 2), for: .goTo(target), context: context)
        }
    }

    // MARK: Paging

    /// Moves the cursor down; when it would leave the window, asks for the next page first
    /// (a move asked for while that page is on its way is added to it).
    mutating func moveDown(by count: Int, context: PaneContext) -> [PaneEffect] {
        if let waiting = pending, case .down(let before) = waiting.move {
            pending?.move = .down(before + count)
            return []
        }
        if cursor + count >= rows.count, let last = rows.last {
            return request(.after(last, limit: max(context.visibleRowCount, count)), for: .down(count), context: context)
        }
        dropPendingMove()
        applyDown(count, more: [], page: context.visibleRowCount)
        return []
    }

    /// Moves the cursor up; when it would leave the window, asks for the page before first.
    mutating func moveUp(by count: Int, context: PaneContext) -> [PaneEffect] {
        if let waiting = pending, case .up(let before) = waiting.move {
            pending?.move = .up(before + count)
            return []
        }
        if cursor - count < 0, let first = rows.first {
            return request(.before(first, limit: max(context.visibleRowCount, count)), for: .up(count), context: context)
        }
        dropPendingMove()
        applyUp(count, more: [], page: context.visibleRowCount)
        return []
    }

    /// A move done within the rows on hand drops a move waiting for its page (it would move
    /// the cursor again when the page came), but not a fill, which moves nothing and whose
    /// rows still follow the window's last.
    private mutating func dropPendingMove() {
        if case .fill? = pending?.move { return }
        pending = nil
    }

    /// Asks for a page for `move`; a move still waiting for its page is dropped.
    mutating func request(_ page: PageRequest, for move: PendingMove.Move, context: PaneContext) -> [PaneEffect] {
        let request = context.ids.next()
        pending = PendingMove(id: request, move: move)
        return [.command(.fetchPage(gridID: id, requestID: request, source: source, request: page))]
    }

    /// The page a waiting move asked for came: the move is done. A page for a move that was
    /// dropped (another replaced it) changes nothing.
    mutating func pageLoaded(requestID: Int, rows more: [GridRow], error: String?, context: PaneContext) -> [PaneEffect] {
        guard let waiting = pending, waiting.id == requestID else { return [] }
        pending = nil
        if let error {
            if case .goTo = waiting.move { return [.message(error, isError: true)] }   // says which row is not there
            return [.message("read failed: \(error)", isError: true)]
        }
        let page = context.visibleRowCount
        switch waiting.move {
        case .down(let count): applyDown(count, more: more, page: page)
        case .up(let count): applyUp(count, more: more, page: page)
        case .fill: applyDown(0, more: more, page: page)
        case .first:
            rows = more
            cursor = 0
            top = 0
        case .last:
            rows = more
            cursor = max(0, rows.count - 1)
            top = max(0, rows.count - page)
        case .goTo(let target):
            rows = more
            cursor = 0
            top = 0
            return [.message("went to \(target)", isError: false)]
        }
        return []
    }

    /// Appends `more` after the window (keeping at most three pages) and moves the cursor
    /// down by `count`, within the rows there are.
    private mutating func applyDown(_ count: Int, more: [GridRow], page: Int) {
        rows += more
        let excess = rows.count - page * 3
        if excess > 0, !more.isEmpty {
            rows.removeFirst(excess)
            cursor -= excess
            top -= excess
        }
        cursor = min(max(0, rows.count - 1), cursor + count)
        if cursor >= top + page { top = cursor - page + 1 }
        top = max(0, top)
    }

    /// Puts `more` before the window (keeping at most three pages) and moves the cursor up by
    /// `count`, within the rows there are.
    private mutating func applyUp(_ count: Int, more: [GridRow], page: Int) {
        rows = more + rows
        cursor += more.count
        top += more.count
        if rows.count > page * 3 { rows.removeLast(rows.count - page * 3) }
        cursor = max(0, cursor - count)
        if cursor < top { top = cursor }
    }

    /// After a resize (or a grid opened for a smaller screen): keeps the cursor shown, and
    /// when the rows on hand end before the screen does, asks for the next page
    /// (`BrowserCommand.fetchPage`), which `pageLoaded` adds without moving the cursor.
    /// Not while a page or a search is on its way: the rows the page follows must stay the
    /// last ones, and a search replaces them.
    mutating func refill(context: PaneContext) -> [PaneEffect] {
        let page = context.visibleRowCount
        if cursor >= top + page { top = cursor - page + 1 }
        top = max(0, min(top, cursor))
        guard pending == nil, search == nil, rows.count - top < page, let last = rows.last else { return [] }
        return request(.after(last, limit: page), for: .fill, context: context)
    }

    /// Takes the place `old` had, as this grid is the same node read again after a write:
    /// its column and last search, and the cursor on the same row (by key) when it is still
    /// among the rows, else on the row that followed it, else after the row that preceded
    /// it, else at the same index; the cursor stays on the same line of the screen when
    /// there are rows enough above it.
    mutating func keepPlace(of old: GridPane, page: Int) {
        keepColumns(of: old)
        lastQuery = old.lastQuery
        lastSearchBackward = old.lastSearchBackward
        dataVersion = source.dataVersionAtOpen ?? old.dataVersion
        guard !rows.isEmpty else { return }
        func index(ofOld oldIndex: Int) -> Int? {
            guard old.rows.indices.contains(oldIndex) else { return nil }
            return rows.firstIndex { $0.key == old.rows[oldIndex].key }
        }
        if let same = index(ofOld: old.cursor) { cursor = same }
        else if let next = index(ofOld: old.cursor + 1) { cursor = next }
        else if let previous = index(ofOld: old.cursor - 1) { cursor = min(previous + 1, rows.count - 1) }
        else { cursor = min(old.cursor, rows.count - 1) }
        top = max(0, cursor - max(0, old.cursor - old.top), cursor - page + 1)
        // Rows that came in above the cursor push it down the screen rather than hide the
        // first rows while the screen has room below (a row put back looked deleted).
        top = min(top, max(0, rows.count - page))
    }

    // MARK: Mouse

    /// A click on data line `line` (0: the first row shown) at screen column `x`: moves the
    /// cursor to that row and column.
    mutating func click(x: Int, line: Int, area: PaneArea) -> Bool {
        let index = top + line
        guard rows.indices.contains(index) else { return false }
        pending = nil               // the click decides where the cursor goes
        cursor = index
        let widths = columnWidths(rowCount: area.height - 1)
        var left = area.x
        for column in shownColumns.dropFirst(firstColumn) {
            if x < left + widths[column] + 1 { self.column = column; break }
            left += widths[column] + 1
        }
        return true
    }

    // MARK: Drawing

    /// The status line's right part: the sort and filter, the cursor row's key (or 1-based
    /// number, for rows paged by offset: `GridSource.position(of:)`) and the row count (of
    /// the rows the filter keeps).
    var position: String {
        let count = total.map { " of " + Browser.grouped($0) } ?? " of …"
        let row = rows.indices.contains(cursor) ? source.position(of: rows[cursor]) : "key -"
        let view = source.view.summary
        let selected = selectedKeys.isEmpty ? "" : "\(Browser.grouped(selectedKeys.count)) selected · "
        return selected + (view.isEmpty ? "" : view + " · ") + "\(row)\(count) rows "
    }

    /// The widest a column is drawn (a cell keeps at most 256 characters of its value).
    static let widestColumn = 256

    /// Column widths: a width set by hand, else what the header and the `rowCount` rows
    /// shown need (a staged cell's new value too), 3 to 40 columns.
    func columnWidths(rowCount: Int) -> [Int] {
        source.columns.indices.map { index in widthOverrides[index] ?? min(40, fittedWidth(of: index, rowCount: rowCount, limit: 40)) }
    }

    /// The width the header and the `rowCount` rows shown need in column `index` (`_`),
    /// at least 3, at most `limit`.
    func fittedWidth(of index: Int, rowCount: Int, limit: Int = GridPane.widestColumn) -> Int {
        guard source.columns.indices.contains(index) else { return 3 }
        var w = TerminalText.width(of: header(of: index), upTo: limit)
        // A cell shown cut to `limit` is at least `limit` wide with its marker, so only
        // widths up to `limit` matter: counted without laying out the cut text.
        for row in rows.dropFirst(top).prefix(rowCount) where row.cells.indices.contains(index) && w < limit {
            w = max(w, TerminalText.width(of: row.cells[index].text, upTo: limit))
            if !stagedValues.isEmpty, let staged = stagedValues[StagedMark(nodeID: node.id, rowKey: row.key, column: index)] {
                w = max(w, TerminalText.width(of: staged.cell.text, upTo: limit))
            }
        }
        return min(limit, max(3, w))
    }

    /// Draws the header and the rows that fit in `area`; the cursor cell stands out when the
    /// grid has focus.
    func draw(into screen: inout ScreenGrid, area: PaneArea, focused: Bool) {
        let rowCount = max(1, area.height - 1)
        let right = area.x + area.width
        let sourceWidths = columnWidths(rowCount: rowCount)
        let shown = shownColumns
        let widths = shown.map { sourceWidths[$0] }
        // Make the cursor column visible: shift the first column right until the cursor
        // column starts on screen with at least six characters of it shown.
        let cursorPosition = columnPosition
        var first = min(firstColumn, cursorPosition)
        while first < cursorPosition,
              widths[first..<cursorPosition].reduce(0, +) + (cursorPosition - first) + min(widths[cursorPosition], 6) > area.width { first += 1 }
        var x = area.x
        var columns: [(index: Int, x: Int, width: Int)] = []
        for position in first..<widths.count where x < right {
            columns.append((shown[position], x, min(widths[position], right - x)))
            x += widths[position] + 1
        }
        screen.fill(x: area.x, y: area.y, count: area.width, role: .gridHeader)
        for column in columns {
            screen.write(header(of: column.index), x: column.x, y: area.y, maxWidth: column.width, role: .gridHeader)
        }
        for line in 0..<rowCount {
            let y = area.y + 1 + line
            let index = top + line
            guard rows.indices.contains(index) else { screen.fill(x: area.x, y: y, count: area.width, role: .grid); continue }
            let isCursorRow = index == cursor
            let isChanged = !changedKeys.isEmpty && changedKeys.contains(rows[index].key)
            let isSelected = !selectedKeys.isEmpty && selectedKeys.contains(rows[index].key)
            let rowStaged = !stagedMarks.isEmpty && stagedMarks.contains(StagedMark(nodeID: node.id, rowKey: rows[index].key, column: nil))
            screen.fill(x: area.x, y: y, count: area.width, role: isCursorRow ? .gridSelected : (isChanged ? .changed : .grid))
            for column in columns where rows[index].cells.indices.contains(column.index) {
                let cell = rows[index].cells[column.index]
                // Nothing staged (the common case): no mark made or looked up per cell.
                let mark = stagedMarks.isEmpty ? nil : StagedMark(nodeID: node.id, rowKey: rows[index].key, column: column.index)
                let staged = rowStaged || mark.map(stagedMarks.contains) == true
                let role: StyleRole = isCursorRow && (column.index != self.column || !focused) ? .gridSelected
                    : (isCursorRow ? .treeSelected : (staged ? .staged : (isChanged ? .changed : (isSelected ? .marker : cell.role))))
                // A staged update shows its new value, as VisiData shows an edited cell.
                let text = mark.flatMap { stagedValues[$0]?.cell.text } ?? cell.text
                GridPane.drawCell(text, x: column.x, y: y, width: column.width, role: role, &screen)
            }
        }
    }

    /// Draws text in a cell of `width` columns, ending in a `…` marker when cut
    /// (`ScreenGrid.writeCut`).
    private static func drawCell(_ text: String, x: Int, y: Int, width: Int, role: StyleRole, _ screen: inout ScreenGrid) {
        screen.writeCut(text, x: x, y: y, width: width, role: role, markerRole: role == .grid ? .marker : role)
    }
}

extension GridPane: Pane {
    static var keyMaps: [KeyMap<GridPane>] { [keys] }
    var keyMap: KeyMap<GridPane> { GridPane.keys }

    /// The map's hints, the editing keys' only on rows that can be edited (a table's, a KV
    /// business's): a pivot, a frequency table or a console result does not offer them.
    var statusHints: [String] {
        source is EditableSource ? keyMap.hints : keyMap.hints.filter { !GridPane.editingHints.contains($0) }
    }

    /// The editing keys' hints (`editingCommands`).
    private static let editingHints = Set(editingCommands.compactMap(\.hint))
}

extension GridPane {
    /// Keeps the column under the cursor, the columns scrolled past and the widths set by
    /// hand of `old`, the same table's grid before a new sort or filter.
    mutating func keepColumns(of old: GridPane) {
        keepColumnLayout(of: old)
        selectedKeys = old.selectedKeys
        column = min(old.column, max(0, source.columns.count - 1))
        if hiddenColumns.contains(column) { column = shownColumns.first ?? 0 }
        firstColumn = min(old.firstColumn, columnPosition)
        widthOverrides = old.widthOverrides
        columnAliases = old.columnAliases
    }

    /// Puts the cursor on the row with `row`'s key, if the rows read hold it, in the middle
    /// of the screen, on `column` (going back to where `J`, `F` or `I` left); with no row
    /// (they left a grid without rows), on `column` only.
    mutating func move(to row: GridRow?, column: Int, visibleRows: Int) {
        if let row {
            guard let index = rows.firstIndex(where: { $0.key == row.key }) else { return }
            cursor = index
            top = max(0, index - visibleRows / 2)
        }
        goToColumn(min(column, max(0, source.columns.count - 1)))
    }
}

extension GridPane {
    /// The column `name` names (`c`): the one of that name in any case, else the first whose
    /// name holds it.
    static func column(named name: String, in columns: [String]) -> Int? {
        let lowered = name.lowercased()
        return columns.firstIndex { $0.lowercased() == lowered } ?? columns.firstIndex { $0.lowercased().contains(lowered) }
    }
}
