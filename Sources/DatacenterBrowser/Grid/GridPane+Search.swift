import DatacenterKit

/// Searching the grid: `/` forward, `?` backward, `n` `N` again; the rows on hand first,
/// then the source in the background (`GridSearch`, where an encrypted column is searched
/// decrypted), wrapping round the end. The search runs while other keys wait; Esc cancels it.
extension GridPane {
    /// The search keys.
    static let searchCommands: [KeyCommand<GridPane>] = [
        KeyCommand([.character("/"), .character("?")], "/  ?", "search forward / backward (wraps round; Esc cancels;",
                   "Ctrl-R in the prompt: a regular expression)", hint: "/ ? search") { grid, key, _ in
            [.prompt(PromptLine(searching: grid.lastQuery, backward: key == .character("?")))]
        },
        KeyCommand([.character("n"), .character("N")], "n  N", "next, previous match") { grid, key, context in
            guard let query = grid.lastQuery else { return [.message("no search yet: / searches forward, ? backward", isError: false)] }
            return grid.startSearch(query, backward: grid.lastSearchBackward != (key == .character("N")), context: context)
        },
    ]

    /// A key while a search runs: Esc cancels it; other keys wait.
    mutating func handleWhileSearching(_ key: Key) -> [PaneEffect] {
        guard let current = search, key == .escape else { return [] }
        current.cancel.cancel()
        search = nil
        return [.message("search cancelled after \(Browser.grouped(current.scanned)) rows", isError: false)]
    }

    /// Looks for `needle` after the cursor (before it when `backward`): in the rows on hand
    /// first, else in the background (`BrowserCommand.search`, which wraps round the end),
    /// its progress in the status line and Esc cancelling it.
    mutating func startSearch(_ needle: SearchNeedle, backward: Bool = false, context: PaneContext) -> [PaneEffect] {
        pending = nil               // the search decides where the cursor goes
        func holds(_ row: GridRow) -> Bool { row.cells.contains { GridSearch.holds($0, needle) } }
        let near = backward ? rows[..<min(cursor, rows.count)].lastIndex(where: holds)
            : (cursor + 1 < rows.count ? rows[(cursor + 1)...].firstIndex(where: holds) : nil)
        if let index = near {
            let page = context.visibleRowCount
            cursor = index
            if index >= top + page || index < top { top = max(0, index - page / 2) }
            return [.message(GridPane.foundMessage(needle.described, backward: backward, wrapped: false), isError: false)]
        }
        let cancel = CancellationFlag()
        let id = context.ids.next()
        search = Search(id: id, needle: needle, backward: backward, scanned: 0, cancel: cancel)
        let start = backward ? rows.first : rows.last
        return [.command(.search(searchID: id, source: source, start: start, needle: needle, backward: backward, cancel: cancel))]
    }

    /// What the status line says of a match: found, and whether the search wrapped round
    /// the end (to the top, going forward) or the start (to the bottom, going backward).
    static func foundMessage(_ query: String, backward: Bool, wrapped: Bool) -> String {
        let wrap = wrapped ? (backward ? "search wrapped to the bottom: " : "search wrapped to the top: ") : ""
        return wrap + "found \(query) · n: next  N: previous"
    }

    /// A search scanned more rows.
    mutating func searchProgressed(id: Int, scanned: Int) {
        if search?.id == id { search?.scanned += scanned }
    }

    /// A search ended: the match becomes the window, the cursor on it.
    mutating func searchFinished(id: Int, match: [GridRow]?, error: String?, wrapped: Bool = false) -> [PaneEffect] {
        guard let current = search, current.id == id else { return [] }
        search = nil
        if let error {
            return [.message(error == "cancelled" ? "search cancelled" : "search failed: \(error)", isError: error != "cancelled")]
        }
        guard let match else {
            let scanned = current.scanned == 0 ? "" : " (\(Browser.grouped(current.scanned)) rows scanned)"
            return [.message("no match: \(current.needle.described)\(scanned)", isError: true)]
        }
        rows = match
        pending = nil               // a page asked for meanwhile followed the rows replaced here
        cursor = 0
        top = 0
        return [.message(GridPane.foundMessage(current.needle.described, backward: current.backward, wrapped: wrapped), isError: false)]
    }

    /// The status line while a search runs: what it looks for, the rows scanned, and how to
    /// cancel; nil when none runs.
    var searchStatus: String? {
        guard let search else { return nil }
        let of = total.map { " of " + Browser.grouped($0) } ?? ""
        // A table is searched by one query in SQLite, which reports no rows scanned.
        let progress = search.scanned == 0 ? "" : " \(Browser.grouped(search.scanned))\(of) rows scanned ·"
        return " searching \"\(search.needle.described)\"\(search.backward ? " backward" : "")…\(progress) Esc cancels"
    }
}
