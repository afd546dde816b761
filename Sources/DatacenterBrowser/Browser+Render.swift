import DatacenterKit
import Foundation

extension Browser {
    /// The smallest screen the browser draws on; smaller shows a notice.
    public static let minimumSize = (width: 30, height: 6)

    /// Draws the whole screen. Drawing never changes state.
    public func render() -> ScreenGrid {
        var screen = ScreenGrid(width: width, height: height)
        guard width >= Browser.minimumSize.width, height >= Browser.minimumSize.height else {
            let notice = "Terminal too small (\(width)×\(height)): need \(Browser.minimumSize.width)×\(Browser.minimumSize.height)"
            for y in 0..<height { screen.fill(x: 0, y: y, count: width, role: .dialog) }
            screen.write(notice, x: 0, y: height / 2, maxWidth: width, role: .dialog)
            return screen
        }
        renderHeader(&screen)
        renderTree(&screen)
        for y in 1..<(height - 1) { screen.write("│", x: treeWidth, y: y, maxWidth: 1, role: .tree) }
        if showHelp { renderHelp(&screen) }
        else if focus == .dao, let daoPanel { renderDAOPanel(daoPanel, &screen) }
        else if focus == .console, let console { renderConsole(console, &screen) }
        else if focus == .review || confirmingQuit { renderReview(&screen) }
        else if let inspector { renderInspector(inspector, &screen) }
        else if let grid { renderGrid(grid, &screen) }
        else { screen.write("Select a business, table or cache on the left (Enter).", x: treeWidth + 2, y: 2, maxWidth: width - treeWidth - 3, role: .null) }
        renderStatus(&screen)
        return screen
    }

    private func renderHeader(_ screen: inout ScreenGrid) {
        screen.fill(x: 0, y: 0, count: width, role: .header)
        // What the grid shows, and from which store, comes before the root: a long path is
        // what gets cut.
        var title = " datacenter │ "
        if let grid {
            title += grid.source.title
            if let path = gridNode?.storePath { title += " · " + catalog.storeName(for: path) }
            title += " │ "
        }
        title += catalog.title
        if !catalog.keys.isEmpty { title += " │ keys: " + catalog.keys.keys.map(\.fingerprint).joined(separator: ",") }
        screen.write(title, x: 0, y: 0, maxWidth: width, role: .header)
    }

    private func renderTree(_ screen: inout ScreenGrid) {
        let nodes = visibleTree
        for line in 0..<bodyHeight {
            let index = treeTop + line
            let y = line + 1
            guard nodes.indices.contains(index) else { screen.fill(x: 0, y: y, count: treeWidth, role: .tree); continue }
            let (node, depth) = nodes[index]
            let selected = index == treeCursor
            let role: StyleRole = selected ? (focus == .tree ? .treeSelected : .gridSelected) : .tree
            screen.fill(x: 0, y: y, count: treeWidth, role: role)
            let marker = node.isLeaf ? "  " : (expanded.contains(node.id) ? "▾ " : "▸ ")
            let indent = String(repeating: " ", count: depth * 2)
            let used = screen.write(indent + marker + node.label, x: 0, y: y, maxWidth: treeWidth, role: role)
            if !node.detail.isEmpty, used + 2 < treeWidth {
                screen.write(" " + node.detail, x: used, y: y, maxWidth: treeWidth - used, role: selected ? role : .null)
            }
        }
    }

    private func renderGrid(_ view: GridView, _ screen: inout ScreenGrid) {
        let left = treeWidth + 1
        let paneWidth = width - left
        let widths = columnWidths(view)
        // Make the cursor column visible: shift the first column right until the cursor
        // column starts on screen with at least six characters of it shown.
        var first = min(view.firstColumn, view.column)
        while first < view.column,
              widths[first..<view.column].reduce(0, +) + (view.column - first) + min(widths[view.column], 6) > paneWidth { first += 1 }
        var x = left
        var columns: [(index: Int, x: Int, width: Int)] = []
        for index in first..<widths.count where x < width {
            columns.append((index, x, min(widths[index], width - x)))
            x += widths[index] + 1
        }
        screen.fill(x: left, y: 1, count: paneWidth, role: .gridHeader)
        for column in columns {
            screen.write(view.source.columns[column.index], x: column.x, y: 1, maxWidth: column.width, role: .gridHeader)
        }
        for line in 0..<visibleRowCount {
            let y = line + 2
            let index = view.top + line
            guard view.rows.indices.contains(index) else { screen.fill(x: left, y: y, count: paneWidth, role: .grid); continue }
            let isCursorRow = index == view.cursor
            screen.fill(x: left, y: y, count: paneWidth, role: isCursorRow ? .gridSelected : .grid)
            for column in columns where view.rows[index].cells.indices.contains(column.index) {
                let cell = view.rows[index].cells[column.index]
                let role: StyleRole = isCursorRow && (column.index != view.column || focus != .grid) ? .gridSelected
                    : (isCursorRow ? .treeSelected : cell.role)
                drawCell(cell.text, x: column.x, y: y, width: column.width, role: role, &screen)
            }
        }
    }

    /// Draws text in a cell of `width` columns, ending in a `…` marker when cut. The cut
    /// falls between terminal cells, so the marker follows the last character shown (no gap
    /// when a wide character did not fit) and the zero-width scalars shown stay.
    private func drawCell(_ text: String, x: Int, y: Int, width: Int, role: StyleRole, _ screen: inout ScreenGrid) {
        // Only what can show is escaped and measured (a cell may hold 256 characters).
        let visible = TerminalText.visible(text, limit: width + 1)
        if TerminalText.width(of: visible) <= width {
            screen.write(visible, x: x, y: y, maxWidth: width, role: role)
        } else {
            // Cut to leave the marker its column: what fits in width - 1, then "…".
            let cut = String(TerminalText.visible(text, limit: width - 1).unicodeScalars.dropLast())
            let used = screen.write(cut, x: x, y: y, maxWidth: width - 1, role: role)
            screen.write("…", x: x + used, y: y, maxWidth: 1, role: role == .grid ? .marker : role)
        }
    }

    private func renderInspector(_ inspector: Inspector, _ screen: inout ScreenGrid) {
        let left = treeWidth + 1
        let paneWidth = width - left
        screen.fill(x: left, y: 1, count: paneWidth, role: .gridHeader)
        screen.write(inspector.summary, x: left, y: 1, maxWidth: paneWidth, role: .gridHeader)
        let role: StyleRole
        switch inspector.cell.encryption {
        case .plain: role = .grid
        case .decrypted: role = .decrypted
        case .locked: role = .locked
        }
        let lines = inspector.lines(width: paneWidth)
        for line in 0..<(bodyHeight - 1) {
            let index = inspector.scroll + line
            guard lines.indices.contains(index) else { break }
            screen.write(lines[index], x: left, y: line + 2, maxWidth: paneWidth, role: role)
        }
    }

    private func renderConsole(_ console: SQLConsole, _ screen: inout ScreenGrid) {
        let left = treeWidth + 1
        let paneWidth = width - left
        screen.fill(x: left, y: 1, count: paneWidth, role: .gridHeader)
        screen.write("SQL · " + catalog.storeName(for: console.storePath) + " (read-only)", x: left, y: 1, maxWidth: paneWidth, role: .gridHeader)
        let inputLine = height - 2
        let outputLines = console.output.dropFirst(console.scroll).flatMap { Inspector.wrap($0, width: paneWidth) }
        for (offset, text) in outputLines.prefix(max(0, inputLine - 2)).enumerated() {
            let role: StyleRole = console.outputIsError && offset > 0 ? .error : .grid
            screen.write(text, x: left, y: 2 + offset, maxWidth: paneWidth, role: role)
        }
        screen.fill(x: left, y: inputLine, count: paneWidth, role: .dialog)
        let text = "sql> " + console.input
        // Keep the end of a long input line in view.
        let visible = TerminalText.width(of: text) + 1 > paneWidth ? "…" + String(text.suffix(max(1, paneWidth - 3))) : text
        screen.write(visible + "▏", x: left, y: inputLine, maxWidth: paneWidth, role: .dialog)
    }

    private func renderReview(_ screen: inout ScreenGrid) {
        let left = treeWidth + 1
        let paneWidth = width - left
        screen.fill(x: left, y: 1, count: paneWidth, role: .gridHeader)
        screen.write("Staged edits (\(staged.count)): the SQL they run, one transaction per store", x: left, y: 1, maxWidth: paneWidth, role: .gridHeader)
        var y = 2
        for (index, edit) in staged.enumerated() {
            let role: StyleRole = index == reviewCursor ? .gridSelected : .staged
            for (i, part) in Inspector.wrapWords("[\(edit.storeName)] " + edit.preview, width: max(8, paneWidth - 4)).enumerated() where y < height - 1 {
                screen.fill(x: left, y: y, count: paneWidth, role: role)
                screen.write((i == 0 ? "\(index + 1). " : "   ") + part, x: left + 1, y: y, maxWidth: paneWidth - 1, role: role)
                y += 1
            }
        }
    }

    /// The key help, shown with `?`.
    public static let helpLines = [
        "Keys",
        "",
        "  ↑ ↓ j k        move            PgUp PgDn  page",
        "  g G Home End   first / last    ← → h l    column",
        "  Enter          open / inspect  Tab Esc    switch pane",
        "  m              inspector view: text, json, hex",
        "  /  n           search the grid (streams, Esc cancels), next",
        "  :              SQL console on the current store (read-only)",
        "  e  x  o        edit cell, delete row, insert row (staged)",
        "                 values: NULL 42 1.5 X'00ff' 'quoted text'",
        "  w              review staged edits: c commit, u discard",
        "  t              next theme      ?          this help",
        "  d              DAO methods of a DAO table: form, SQL preview, run",
        "  q  Ctrl-C      quit: asks first if edits are staged",
        "  mouse          click, wheel",
        "",
        "Encrypted values show decrypted (green) when a --key opens",
        "them, else as [locked: reason]; never as ciphertext.",
        "The browser writes nothing until you commit staged edits",
        "or confirm a DAO write; then it runs exactly the statements",
        "shown, one transaction per store, and changes nothing else",
        "(no tables added, journal mode kept). --read-only: no writes.",
    ]

    private func renderHelp(_ screen: inout ScreenGrid) {
        let left = treeWidth + 1
        for (line, text) in Browser.helpLines.enumerated() where line + 1 < height - 1 {
            screen.fill(x: left, y: line + 1, count: width - left, role: .dialog)
            screen.write(text, x: left + 1, y: line + 1, maxWidth: width - left - 1, role: .dialog)
        }
    }

    private func renderStatus(_ screen: inout ScreenGrid) {
        let y = height - 1
        if confirmingQuit {
            screen.fill(x: 0, y: y, count: width, role: .dialog)
            screen.write(" Quit with \(staged.count) staged edit(s) not written? c commit and quit · d discard and quit · Esc stay",
                         x: 0, y: y, maxWidth: width, role: .dialog)
            return
        }
        if let prompt {
            screen.fill(x: 0, y: y, count: width, role: .dialog)
            screen.write(prompt.label + prompt.text + "▏", x: 0, y: y, maxWidth: width, role: .dialog)
            return
        }
        if let search {
            let total = grid?.total.map { " of " + Browser.grouped($0) } ?? ""
            screen.fill(x: 0, y: y, count: width, role: .status)
            screen.write(" searching \"\(search.query)\"… \(Browser.grouped(search.scanned))\(total) rows scanned · Esc cancels",
                         x: 0, y: y, maxWidth: width, role: .status)
            return
        }
        if let message {
            screen.fill(x: 0, y: y, count: width, role: message.isError ? .error : .status)
            screen.write(" " + message.text, x: 0, y: y, maxWidth: width, role: message.isError ? .error : .status)
            return
        }
        screen.fill(x: 0, y: y, count: width, role: .status)
        let hints: String
        switch focus {
        case .tree: hints = " ↑↓ move  Enter open  Tab grid  ? help  t theme  q quit"
        case .grid: hints = (staged.isEmpty ? "" : " \(staged.count) staged · w review ·") + " ↑↓ g G move  ←→ column  Enter inspect  / search  e edit  x delete  o insert  d DAO  : SQL  ? help  q quit"
        case .inspector: hints = " ↑↓ scroll  m view  Esc back  ? help"
        case .console: hints = " Enter run  ↑↓ history  PgUp PgDn scroll  Esc close"
        case .review: hints = " c commit all  u discard all  x drop one  Esc back"
        case .dao:
            switch daoPanel?.stage {
            case .form?: hints = " type a JSON value (\"strings\" quoted)  ↑↓ Tab field  Ctrl-N nil  Enter run  Esc methods"
            case .confirm?: hints = " y run it  n cancel"
            default: hints = " ↑↓ choose  Enter form  Esc back"
            }
        }
        var position = ""
        if let view = grid {
            let total = view.total.map { " of " + Browser.grouped($0) } ?? " of …"
            let key = view.rows.indices.contains(view.cursor) ? view.rows[view.cursor].key.map(\.description).joined(separator: ",") : "-"
            position = "key \(key)\(total) rows "
        }
        // The position matters more than the hints: it keeps its place, the hints are cut.
        let positionWidth = min(TerminalText.width(of: position), width / 2)
        screen.write(hints, x: 0, y: y, maxWidth: width - positionWidth - 1, role: .status)
        screen.write(position, x: width - positionWidth, y: y, maxWidth: positionWidth, role: .status)
    }

    /// 2000000 → "2,000,000".
    static func grouped(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.reversed().enumerated() {
            if i > 0 && i % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return String(out.reversed())
    }
}
