import DatacenterKit
import Foundation

/// The browser's logic: its state, `handle` (the update function) and `render` (into a
/// `ScreenGrid`). It knows nothing of curses: the terminal edge turns keys, clicks and
/// resizes into `BrowserEvent`s, runs the `BrowserCommand`s it asks for, and draws the grid.
public final class Browser {
    /// Which pane takes the keys.
    public enum Focus: Sendable { case tree, grid, inspector, dao, console, review }

    /// The grid over one source: a window of rows around the cursor, never the whole table.
    struct GridView {
        let id: Int
        let source: GridSource
        var rows: [GridRow]
        var cursor = 0          // index into rows
        var top = 0             // first visible index into rows
        var column = 0
        var firstColumn = 0
        var total: Int?
    }

    public let catalog: BrowserCatalog
    public private(set) var width: Int
    public private(set) var height: Int
    public internal(set) var focus: Focus = .tree
    public private(set) var isFinished = false
    public private(set) var themes: [Theme]
    public private(set) var themeIndex = 0
    public var theme: Theme { themes[themeIndex] }

    var expanded: Set<String>
    var treeCursor = 0
    var treeTop = 0
    var grid: GridView?
    var inspector: Inspector?
    var daoPanel: DAOPanel?
    var console: SQLConsole?
    /// Edits waiting to be committed, in the order made.
    var staged: [StagedEdit] = []
    var reviewCursor = 0
    /// The tree node the grid shows.
    var gridNode: TreeNode?
    var showHelp = false
    /// True while quitting waits for an answer about staged edits (commit, discard, stay).
    var confirmingQuit = false
    /// The line being typed at the bottom (`/` search), if any.
    var prompt: Prompt?
    /// The search running in the background, if any.
    var search: (id: Int, query: String, scanned: Int, cancel: CancellationFlag)?
    var lastQuery: String?
    private var nextSearchID = 0
    var message: (text: String, isError: Bool)?
    private var nextGridID = 0
    var commands: [BrowserCommand] = []

    /// A browser over `catalog` on a `width` × `height` screen.
    public init(catalog: BrowserCatalog, width: Int, height: Int, themes: [Theme] = [Theme.builtIn], themeName: String? = nil) {
        self.catalog = catalog
        self.width = width
        self.height = height
        self.themes = themes.isEmpty ? [Theme.builtIn] : themes
        if let themeName, let index = self.themes.firstIndex(where: { $0.name == themeName }) { themeIndex = index }
        // Stores and their groups start open, so everything is one keystroke away.
        var open: Set<String> = []
        for store in catalog.roots {
            open.insert(store.id)
            for group in store.children { open.insert(group.id) }
        }
        expanded = open
    }

    /// The commands asked for since the last call (row counts to run in the background).
    public func takeCommands() -> [BrowserCommand] {
        defer { commands.removeAll() }
        return commands
    }

    // MARK: Tree

    /// The tree as displayed: nodes with their depth, children of open nodes included.
    var visibleTree: [(node: TreeNode, depth: Int)] {
        var out: [(TreeNode, Int)] = []
        func walk(_ nodes: [TreeNode], _ depth: Int) {
            for node in nodes {
                out.append((node, depth))
                if expanded.contains(node.id) { walk(node.children, depth + 1) }
            }
        }
        walk(catalog.roots, 0)
        return out
    }

    /// Lines available to the panes (between the header and the status line).
    var bodyHeight: Int { max(0, height - 2) }
    /// Rows of data the grid shows (below its column header).
    var visibleRowCount: Int { max(1, bodyHeight - 1) }
    var treeWidth: Int { min(40, max(14, width / 3)) }

    // MARK: Update

    /// Applies one event.
    public func handle(_ event: BrowserEvent) {
        switch event {
        case let .resize(w, h):
            width = w
            height = h
            refillGrid()
        case let .rowCount(id, count):
            if grid?.id == id { grid?.total = count }
        case let .searchProgress(id, scanned):
            if search?.id == id { search?.scanned += scanned }
        case let .searchFinished(id, match, error):
            guard let current = search, current.id == id else { return }
            search = nil
            if let error { message = (error == "cancelled" ? "search cancelled" : "search failed: \(error)", error != "cancelled"); return }
            guard let match, var view = grid else {
                message = ("not found: \(current.query) (after \(Browser.grouped(current.scanned)) rows; g goes back to the top)", true)
                return
            }
            view.rows = match
            view.cursor = 0
            view.top = 0
            grid = view
            message = ("found \(current.query) · n: next", false)
        case let .click(x, y): click(x: x, y: y)
        case let .wheel(x, _, delta):
            let key: Key = delta < 0 ? .up : .down
            let target: Focus = x < treeWidth ? .tree : .grid
            for _ in 0..<min(3, abs(delta) * 3) { target == .tree ? treeKey(key) : gridKey(key) }
        case .key(let key): handleKey(key)
        }
    }

    private func handleKey(_ key: Key) {
        if confirmingQuit { quitDialogKey(key); return }
        if key == .character("\u{3}") { requestQuit(); return }
        if let current = search {
            // While a search runs, Esc cancels it; other keys wait.
            if key == .escape {
                current.cancel.cancel()
                search = nil
                message = ("search cancelled after \(Browser.grouped(current.scanned)) rows", false)
            }
            return
        }
        if prompt != nil { promptKey(key); return }
        if showHelp {
            if key == .escape || key == .character("?") || key == .character("q") || key == .enter { showHelp = false }
            return
        }
        // Shortcuts apply where keys are not text being typed (console, DAO form).
        let navigating = focus == .tree || focus == .grid || focus == .review || (focus == .dao && daoPanel?.stage == .methods)
        switch key {
        case .character("?") where navigating || focus == .inspector: showHelp = true; return
        case .character("d") where focus == .tree || focus == .grid:
            openDAOPanel()
            return
        case .character(":") where focus == .tree || focus == .grid:
            openConsole()
            return
        case .character("w") where (focus == .tree || focus == .grid) && !staged.isEmpty:
            focus = .review
            reviewCursor = 0
            return
        case .character("t") where navigating:
            themeIndex = (themeIndex + 1) % themes.count
            message = ("theme: \(theme.name)", false)
            return
        default: break
        }
        message = nil
        switch focus {
        case .tree: treeKey(key)
        case .grid: gridKey(key)
        case .inspector: inspectorKey(key)
        case .dao: daoKey(key)
        case .console: consoleKey(key)
        case .review: reviewKey(key)
        }
    }

    private func treeKey(_ key: Key) {
        let nodes = visibleTree
        guard !nodes.isEmpty else {
            if key == .character("q") { requestQuit() }
            return
        }
        treeCursor = min(treeCursor, nodes.count - 1)
        let node = nodes[treeCursor].node
        switch key {
        case .up, .character("k"): treeCursor = max(0, treeCursor - 1)
        case .down, .character("j"): treeCursor = min(nodes.count - 1, treeCursor + 1)
        case .pageUp: treeCursor = max(0, treeCursor - bodyHeight)
        case .pageDown: treeCursor = min(nodes.count - 1, treeCursor + bodyHeight)
        case .home, .character("g"): treeCursor = 0
        case .end, .character("G"): treeCursor = nodes.count - 1
        case .right, .character("l"), .enter:
            if node.isLeaf { open(node) } else if expanded.contains(node.id), key == .right || key == .character("l") {
                if treeCursor + 1 < nodes.count { treeCursor += 1 }
            } else {
                expanded.insert(node.id)
            }
        case .left, .character("h"):
            if !node.isLeaf, expanded.contains(node.id) { expanded.remove(node.id) }
            else if let parent = nodes[..<treeCursor].lastIndex(where: { $0.depth < nodes[treeCursor].depth }) { treeCursor = parent }
        case .tab, .escape: if grid != nil { focus = .grid }
        case .character("q"): requestQuit()
        default: break
        }
        scrollTreeToCursor()
    }

    private func scrollTreeToCursor() {
        if treeCursor < treeTop { treeTop = treeCursor }
        if treeCursor >= treeTop + bodyHeight { treeTop = treeCursor - bodyHeight + 1 }
        treeTop = max(0, treeTop)
    }

    /// Opens a leaf in the grid.
    func open(_ node: TreeNode) {
        do {
            guard let source = try catalog.source(for: node.kind) else { return }
            nextGridID += 1
            let rows = try source.firstPage(limit: visibleRowCount * 2)
            grid = GridView(id: nextGridID, source: source, rows: rows, column: source.initialColumn)
            gridNode = node
            daoPanel = nil
            inspector = nil
            focus = .grid
            commands.append(.countRows(gridID: nextGridID, source: source))
        } catch {
            message = ("cannot open \(node.label): \(error)", true)
        }
    }

    private func gridKey(_ key: Key) {
        guard var view = grid else { focus = .tree; return }
        defer { grid = view }
        let page = visibleRowCount
        do {
            switch key {
            case .down, .character("j"): try moveDown(&view, by: 1)
            case .up, .character("k"): try moveUp(&view, by: 1)
            case .pageDown, .character(" "): try moveDown(&view, by: page)
            case .pageUp, .character("b"): try moveUp(&view, by: page)
            case .home, .character("g"):
                view.rows = try view.source.firstPage(limit: page * 2)
                view.cursor = 0
                view.top = 0
            case .end, .character("G"):
                view.rows = try view.source.lastPage(limit: page * 2)
                view.cursor = max(0, view.rows.count - 1)
                view.top = max(0, view.rows.count - page)
            case .left, .character("h"): view.column = max(0, view.column - 1)
            case .right, .character("l"): view.column = min(max(0, view.source.columns.count - 1), view.column + 1)
            case .enter:
                if view.rows.indices.contains(view.cursor), view.rows[view.cursor].cells.indices.contains(view.column) {
                    let name = view.source.columns.indices.contains(view.column) ? view.source.columns[view.column] : "value"
                    inspector = Inspector(title: name, cell: view.rows[view.cursor].cells[view.column])
                    focus = .inspector
                }
            case .tab, .escape, .backTab: focus = .tree
            case .character("/"): prompt = Prompt(label: "/", text: lastQuery ?? "", purpose: .search)
            case .character("e"):
                guard let source = editableSource(view), view.rows.indices.contains(view.cursor) else { break }
                let row = view.rows[view.cursor]
                if let refusal = source.editRefusal(row: row, column: view.column, keys: catalog.keys) {
                    message = (refusal, true)
                    break
                }
                let name = view.source.columns[view.column]
                prompt = Prompt(label: "edit \(name): ", text: source.editText(row: row, column: view.column), purpose: .edit)
            case .character("o"):
                guard let source = editableSource(view) else { break }
                if let refusal = source.insertRefusal { message = (refusal, true); break }
                prompt = Prompt(label: "insert (JSON object of columns): ", text: "{}", purpose: .insert)
            case .character("x"):
                guard let source = editableSource(view), view.rows.indices.contains(view.cursor) else { break }
                if let refusal = source.deleteRefusal(row: view.rows[view.cursor]) { message = (refusal, true); break }
                stage(on: view) { try source.stageDelete(row: view.rows[view.cursor]) }
            case .character("n"):
                if let query = lastQuery { startSearch(query, in: view, fromCursor: true) }
            case .character("q"): requestQuit()
            default: break
            }
        } catch {
            message = ("read failed: \(error)", true)
        }
        if view.column < view.firstColumn { view.firstColumn = view.column }
    }

    /// Moves the cursor down, fetching the next page when it leaves the window; the window
    /// keeps at most three pages.
    private func moveDown(_ view: inout GridView, by count: Int) throws {
        let page = visibleRowCount
        if view.cursor + count >= view.rows.count, let last = view.rows.last {
            let more = try view.source.page(after: last, limit: max(page, count))
            view.rows += more
            let excess = view.rows.count - page * 3
            if excess > 0 {
                view.rows.removeFirst(excess)
                view.cursor -= excess
                view.top -= excess
            }
        }
        view.cursor = min(max(0, view.rows.count - 1), view.cursor + count)
        if view.cursor >= view.top + page { view.top = view.cursor - page + 1 }
        view.top = max(0, view.top)
    }

    private func moveUp(_ view: inout GridView, by count: Int) throws {
        let page = visibleRowCount
        if view.cursor - count < 0, let first = view.rows.first {
            let more = try view.source.page(before: first, limit: max(page, count))
            view.rows = more + view.rows
            view.cursor += more.count
            view.top += more.count
            if view.rows.count > page * 3 { view.rows.removeLast(view.rows.count - page * 3) }
        }
        view.cursor = max(0, view.cursor - count)
        if view.cursor < view.top { view.top = view.cursor }
    }

    /// After a resize, fetches rows so the taller grid is full, and keeps the cursor shown.
    private func refillGrid() {
        guard var view = grid else { return }
        let page = visibleRowCount
        if view.rows.count - view.top < page, let last = view.rows.last {
            view.rows += (try? view.source.page(after: last, limit: page)) ?? []
        }
        if view.cursor >= view.top + page { view.top = view.cursor - page + 1 }
        view.top = max(0, min(view.top, view.cursor))
        grid = view
        scrollTreeToCursor()
    }

    private func inspectorKey(_ key: Key) {
        guard var current = inspector else { focus = .grid; return }
        let lines = current.lines(width: width - treeWidth - 1).count
        switch key {
        case .down, .character("j"): current.scroll = min(max(0, lines - 1), current.scroll + 1)
        case .up, .character("k"): current.scroll = max(0, current.scroll - 1)
        case .pageDown, .character(" "): current.scroll = min(max(0, lines - 1), current.scroll + bodyHeight - 1)
        case .pageUp: current.scroll = max(0, current.scroll - bodyHeight + 1)
        case .home, .character("g"): current.scroll = 0
        case .end, .character("G"): current.scroll = max(0, lines - (bodyHeight - 1))
        case .character("m"):
            let modes = Inspector.Mode.allCases
            current.mode = modes[(modes.firstIndex(of: current.mode)! + 1) % modes.count]
            current.scroll = 0
        case .escape, .character("q"), .enter, .tab:
            inspector = nil
            focus = .grid
            return
        default: break
        }
        inspector = current
    }

    private func click(x: Int, y: Int) {
        guard y >= 1, y < height - 1 else { return }
        if x < treeWidth {
            let index = treeTop + (y - 1)
            let nodes = visibleTree
            guard nodes.indices.contains(index) else { return }
            focus = .tree
            treeCursor = index
            let node = nodes[index].node
            if node.isLeaf { open(node) } else if expanded.contains(node.id) { expanded.remove(node.id) } else { expanded.insert(node.id) }
        } else if var view = grid, inspector == nil, y >= 2 {
            let index = view.top + (y - 2)
            guard view.rows.indices.contains(index) else { return }
            view.cursor = index
            let widths = columnWidths(view)
            var left = treeWidth + 1
            for column in view.firstColumn..<widths.count {
                if x < left + widths[column] + 1 { view.column = column; break }
                left += widths[column] + 1
            }
            grid = view
            focus = .grid
        }
    }

    /// Column widths from the header and the rows on screen, 3 to 40 columns each.
    func columnWidths(_ view: GridView) -> [Int] {
        let visible = view.rows.dropFirst(view.top).prefix(visibleRowCount)
        return view.source.columns.enumerated().map { index, name in
            var w = TerminalText.width(of: name)
            for row in visible where row.cells.indices.contains(index) {
                w = max(w, TerminalText.width(of: TerminalText.visible(row.cells[index].text, limit: 40)))
            }
            return min(40, max(3, w))
        }
    }
}

extension Browser {
    /// Opens the first leaf whose label is `name` (a table, KV business or cache), as
    /// `browse --table` asks; reports in the status line when there is none.
    public func openNode(named name: String) {
        func find(_ nodes: [TreeNode], _ path: [String]) -> (TreeNode, [String])? {
            for node in nodes {
                if node.isLeaf, node.label == name { return (node, path) }
                if let found = find(node.children, path + [node.id]) { return found }
            }
            return nil
        }
        guard let (node, ancestors) = find(catalog.roots, []) else {
            message = ("no table, business or cache named \(name)", true)
            return
        }
        expanded.formUnion(ancestors)
        if let index = visibleTree.firstIndex(where: { $0.node.id == node.id }) { treeCursor = index }
        open(node)
    }
}

/// A line typed at the bottom of the screen.
struct Prompt {
    enum Purpose { case search, edit, insert }
    let label: String
    var text: String
    let purpose: Purpose
}

extension Browser {
    func promptKey(_ key: Key) {
        guard var current = prompt else { return }
        switch key {
        case .escape: prompt = nil; return
        case .enter:
            prompt = nil
            guard let view = grid else { return }
            switch current.purpose {
            case .search:
                guard !current.text.isEmpty else { return }
                lastQuery = current.text
                startSearch(current.text, in: view, fromCursor: true)
            case .edit:
                guard let source = view.source as? EditableSource, view.rows.indices.contains(view.cursor) else { return }
                let keys = catalog.keys
                stage(on: view) { try source.stageUpdate(row: view.rows[view.cursor], column: view.column, text: current.text, keys: keys) }
            case .insert:
                guard let source = view.source as? EditableSource else { return }
                let keys = catalog.keys
                stage(on: view) { try source.stageInsert(text: current.text, keys: keys) }
            }
            return
        case .backspace: _ = current.text.popLast()
        case .character(let c) where !c.unicodeScalars.contains(where: { $0.value < 0x20 }): current.text.append(c)
        default: break
        }
        prompt = current
    }

    /// Starts a background search after the cursor row: its progress shows in the status
    /// line and Esc cancels it.
    func startSearch(_ query: String, in view: GridView, fromCursor: Bool) {
        // Rows already on hand first: no need to go to the file for a match in the window.
        let needle = query.lowercased()
        let from = fromCursor ? view.cursor + 1 : 0
        if from < view.rows.count, let index = view.rows[from...].firstIndex(where: { $0.cells.contains { $0.text.lowercased().contains(needle) } }) {
            var moved = view
            moved.cursor = index
            if index >= moved.top + visibleRowCount || index < moved.top { moved.top = max(0, index - visibleRowCount / 2) }
            grid = moved
            message = ("found \(query) · n: next", false)
            return
        }
        nextSearchID += 1
        let cancel = CancellationFlag()
        search = (nextSearchID, query, 0, cancel)
        commands.append(.search(searchID: nextSearchID, source: view.source, start: view.rows.last, query: query, cancel: cancel))
    }
}

extension Browser {
    /// The store file of the node under the tree cursor (or of the grid's node).
    var currentStorePath: String? {
        let nodes = visibleTree
        guard !nodes.isEmpty else { return nil }
        var index = min(treeCursor, nodes.count - 1)
        if focus == .grid, let node = gridNode, let gridIndex = nodes.firstIndex(where: { $0.node.id == node.id }) { index = gridIndex }
        // Walk up to the enclosing store node.
        while index >= 0 {
            if case .store(let path) = nodes[index].node.kind { return path }
            index -= 1
        }
        return nil
    }

    /// Opens the SQL console on the current store (keeping its history across openings).
    func openConsole() {
        guard let path = currentStorePath else { message = ("select a store first", true); return }
        if console?.storePath != path {
            var fresh = SQLConsole(storePath: path)
            fresh.history = console?.history ?? []
            console = fresh
        }
        focus = .console
    }

    func consoleKey(_ key: Key) {
        guard var current = console else { focus = .tree; return }
        defer { console = current }
        switch key {
        case .escape: focus = grid == nil ? .tree : .grid
        case .enter: current.run(catalog: catalog)
        case .up: current.historyBack()
        case .down: current.historyForward()
        case .pageUp: current.scroll = max(0, current.scroll - (bodyHeight - 3))
        case .pageDown: current.scroll = min(max(0, current.output.count - 1), current.scroll + (bodyHeight - 3))
        case .backspace: _ = current.input.popLast()
        case .character(let c) where !c.unicodeScalars.contains(where: { $0.value < 0x20 }): current.input.append(c)
        default: break
        }
    }
}

extension Browser {
    /// The grid's source when its rows can be changed; otherwise nil, with the reason in
    /// the status line. Said at the key, before anything is typed.
    func editableSource(_ view: GridView) -> EditableSource? {
        guard catalog.allowsWrites else {
            message = ("--read-only: nothing can be staged or written", true)
            return nil
        }
        guard let source = view.source as? EditableSource else {
            message = ("\(view.source.title) cannot be edited here", true)
            return nil
        }
        return source
    }

    /// Stages the edit `make` builds for the store of `view`, or says why it cannot be made;
    /// an edit that would change nothing (nil) stages nothing.
    func stage(on view: GridView, _ make: () throws -> StagedEdit?) {
        do {
            guard var edit = try make() else {
                message = ("unchanged: nothing staged", false)
                return
            }
            edit.storeName = catalog.storeName(for: edit.storePath)
            staged.append(edit)
            message = ("staged (\(staged.count)) in \(edit.storeName): \(edit.preview) · w review, c commit", false)
        } catch {
            message = ("\(error)", true)
        }
    }

    /// Quits, or first asks what to do with staged edits (they are never dropped unasked).
    func requestQuit() {
        if staged.isEmpty { isFinished = true } else { confirmingQuit = true }
    }

    /// The quit question's keys: c commits then quits (staying if the commit fails), d
    /// discards then quits, Esc or s stays.
    func quitDialogKey(_ key: Key) {
        switch key {
        case .character("c"), .character("C"):
            confirmingQuit = false
            commitStaged()
            if staged.isEmpty { isFinished = true }
        case .character("d"), .character("D"):
            confirmingQuit = false
            staged.removeAll()
            isFinished = true
        case .escape, .character("s"), .character("S"):
            confirmingQuit = false
            message = ("\(staged.count) staged edit(s) kept · w review", false)
        default: break
        }
    }

    func reviewKey(_ key: Key) {
        switch key {
        case .up, .character("k"): reviewCursor = max(0, reviewCursor - 1)
        case .down, .character("j"): reviewCursor = min(max(0, staged.count - 1), reviewCursor + 1)
        case .character("x"), .backspace:
            if staged.indices.contains(reviewCursor) { staged.remove(at: reviewCursor) }
            reviewCursor = min(reviewCursor, max(0, staged.count - 1))
            if staged.isEmpty { focus = grid == nil ? .tree : .grid }
        case .character("u"):
            message = ("discarded \(staged.count) edit(s); nothing was written", false)
            staged.removeAll()
            focus = grid == nil ? .tree : .grid
        case .character("c"): commitStaged()
        case .escape, .tab: focus = grid == nil ? .tree : .grid
        default: break
        }
    }

    /// Writes every staged edit: one transaction per store, in the order they were made. A
    /// store whose transaction fails is rolled back whole and its edits stay staged.
    func commitStaged() {
        guard catalog.allowsWrites else {
            message = ("--read-only: edits are not written", true)
            return
        }
        var remaining: [StagedEdit] = []
        var committed = 0
        var failure: String?
        var order: [String] = []
        for edit in staged where !order.contains(edit.storePath) { order.append(edit.storePath) }
        for path in order {
            let edits = staged.filter { $0.storePath == path }
            guard failure == nil else { remaining += edits; continue }
            do {
                // A connection that changes nothing but what the edits say: no tables
                // created, the journal mode left as it is.
                let store = try Store(existingAt: path, crypt: catalog.keys, busyTimeout: catalog.busyTimeout)
                try store.queue.inTransaction { db in
                    for edit in edits { try edit.apply(to: store, in: db) }
                }
                committed += edits.count
            } catch {
                failure = "\(error)"
                remaining += edits
            }
        }
        staged = remaining
        // The grid shows what was written (a store that changed nothing needs no reload, and
        // a failure's message must not give way to the reload's).
        if committed > 0, let node = gridNode {
            let keep = grid.map { ($0.cursor, $0.top, $0.column) }
            open(node)
            if let keep, var view = grid {
                view.cursor = min(keep.0, max(0, view.rows.count - 1))
                view.top = min(keep.1, view.cursor)
                view.column = keep.2
                grid = view
            }
        }
        if let failure {
            message = ("commit failed, that store is unchanged: \(failure)", true)
            focus = .review
        } else {
            message = ("committed \(committed) edit(s)", false)
            focus = grid == nil ? .tree : .grid
        }
    }
}
