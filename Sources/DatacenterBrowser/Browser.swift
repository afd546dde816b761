import DatacenterKit
import Foundation

/// The browser's logic: its state, `handle` (the update function) and `render` (into a
/// `ScreenGrid`). It knows nothing of curses: the terminal edge turns keys, clicks and
/// resizes into `BrowserEvent`s, runs the `BrowserCommand`s it asks for (`takeCommands()`),
/// hands their results back as events, and draws the grid.
///
/// The browser is a frame around panes, as gitui is: the tree (`TreePane`), the grid
/// (`GridPane`), the inspector (`Inspector`), the DAO panel (`DAOPanel`), the SQL console
/// (`ConsolePane`), the staged edits (`ReviewPane`) and the prompt line (`PromptLine`). Each
/// pane owns its state, keys and drawing, and answers a key with `PaneEffect`s; the browser
/// keeps the focus, the header, status line and help, routes events to the panes and does
/// what their effects ask.
package final class Browser {
    /// Which pane takes the keys.
    package enum Focus: Sendable { case tree, grid, inspector, dao, console, review }

    /// What is browsed: the stores, their tree, the keys; another with `o`.
    package internal(set) var catalog: BrowserCatalog
    /// The screen's width in cells.
    package private(set) var width: Int
    /// The screen's height in lines.
    package private(set) var height: Int
    /// The pane that takes the keys.
    package internal(set) var focus: Focus = .tree
    /// True once the user quit: the terminal loop ends.
    package private(set) var isFinished = false
    /// The themes `t` cycles through.
    package private(set) var themes: [Theme]
    /// The index in `themes` of the theme in use.
    package private(set) var themeIndex = 0
    /// The theme in use.
    package var theme: Theme { themes[themeIndex] }

    /// The tree of stores on the left; always there.
    var tree: TreePane
    /// The grid of the leaf opened last, if any.
    var grid: GridPane? {
        didSet {
            // A grid replaced (another table, sort, reload or query) stops its source's work.
            if let old = oldValue?.source, old !== grid?.source { old.retire() }
        }
    }
    /// The value shown in full over the grid, if any.
    var inspector: Inspector?
    /// The DAO methods of a table, while the panel is open.
    var daoPanel: DAOPanel?
    /// The SQL console; kept when it loses focus, so its output and history stay.
    var console: ConsolePane?
    /// The console's history of each store it was opened on this session, by file path:
    /// a store's lines come back when the console returns to it.
    var consoleHistories: [String: LineHistory] = [:]
    /// The staged edits and their review; always there, shown when it has focus.
    var review = ReviewPane()
    /// The line being typed at the bottom (`/` search, `e` edit, `o` insert), if any.
    var prompt: PromptLine?
    /// This session's searches, newest last, walked with ↑ and ↓ in the `/` prompt.
    var searchHistory = LineHistory()
    /// This session's filters, newest last, walked with ↑ and ↓ in the `f` prompt.
    var filterHistory = LineHistory()
    /// True while the help (`H`, or `?` outside the grid) covers the screen; it takes the keys that close it.
    var showHelp = false
    /// The help's first line on screen: the help scrolls when it is taller than the screen.
    var helpScroll = 0
    /// What the status line says, if anything; an error is drawn in the error colour.
    var message: (text: String, isError: Bool)?
    /// Work asked for and not yet taken by the runner (`takeCommands()`).
    var commands: [BrowserCommand] = []
    /// The ids of grids, searches, queries, previews, runs and commits.
    let ids = IDCounter()
    /// True while a `rootCurrentUser` question is out (`pollForChanges`).
    var rootPollPending = false
    /// True while a `dataVersion` question is out (`pollForChanges`).
    var pollPending = false
    /// The grid being read off the input loop (`openGrid`), if any: only its answer counts.
    var opening: GridOpening?
    /// The export running (`E`), if any: the status line shows its progress, Esc cancels it.
    var exportRun: ExportRun?
    /// The export whose file existed, while the prompt asks whether to replace it.
    var exportToReplace: GridExport?
    /// The roots and files browsed lately, newest first (`o`), kept in the state folder.
    var recentFiles = RecentFiles()
    /// The root or file being opened with `o`, if any.
    var catalogOpening: CatalogOpening?
    /// The grids `J` left, newest last: `Backspace` goes back to the last, at its row.
    var jumpStack: [JumpPlace] = []
    /// Text `y` or `Y` copied, until the terminal edge takes it (`takeClipboard()`) and
    /// writes it to the terminal's clipboard.
    var pendingClipboard: String?

    /// A grid left by following a foreign key (`J`): which, how sorted and filtered, and
    /// where its cursor was.
    struct JumpPlace {
        /// The leaf the grid showed.
        let node: TreeNode
        /// Its sort and filter.
        let view: TableView
        /// The row under the cursor.
        let row: GridRow
        /// The column under the cursor.
        let column: Int
    }

    /// A grid on its way from the command runner: opened, or read again after a write.
    struct GridOpening {
        /// The request's id: the answer to another request is dropped.
        let id: Int
        /// The leaf whose grid it is.
        let node: TreeNode
        /// What was asked for (its limit says whether the source may hold more rows).
        let page: PageRequest
        /// True when the grid shown is being read again after a write: it stays shown, and
        /// the fresh one takes its place, cursor, column and focus (`GridPane.keepPlace`).
        let isReload: Bool
        /// The sort and filter asked for.
        let view: TableView
        /// The pane that had the keys when the grid was asked for: a grid opened takes the
        /// keys only if no other pane took them meanwhile.
        let focus: Focus
        /// The grid a `J` leaves, remembered once the grid it leads to is open.
        var leaving: JumpPlace? = nil
        /// Where the cursor goes in the grid opened (`Backspace` back to a grid `J` left).
        var place: JumpPlace? = nil
        /// Set to stop the reading (a sort in memory) when its answer is no longer wanted.
        let cancel: CancellationFlag
    }

    /// The theme files that could not be used, each with its file, line and what is wrong:
    /// the status line says so when the browser starts, and the help (`H`) lists them all.
    package let themeErrors: [ThemeError]
    /// The folder where what the browser remembers between sessions is kept (`StateFolder`),
    /// or nil to remember nothing (tests, a home-less environment).
    package let stateFolder: URL?

    /// A browser over `catalog` on a `width` × `height` screen, in the theme `themeName` of
    /// `themes`; `themeErrors` are the problems found loading them, shown once it starts.
    /// What it remembers between sessions is kept in `stateFolder`, if any.
    package init(catalog: BrowserCatalog, width: Int, height: Int, themes: [Theme] = [Theme.builtIn], themeName: String? = nil,
                 themeErrors: [ThemeError] = [], stateFolder: URL? = nil) {
        self.catalog = catalog
        self.stateFolder = stateFolder
        self.width = width
        self.height = height
        self.themes = themes.isEmpty ? [Theme.builtIn] : themes
        self.themeErrors = themeErrors
        if let themeName, let index = self.themes.firstIndex(where: { $0.name == themeName }) { themeIndex = index }
        tree = TreePane(roots: catalog.roots)
        if let stateFolder {
            // Read once as the browser starts, before the input loop; a damaged list is ignored.
            let (list, warning) = RecentFiles.load(from: stateFolder)
            recentFiles = list
            if let warning { message = (warning, true) }
        }
        if let first = themeErrors.first {
            let more = themeErrors.count > 1 ? " (and \(themeErrors.count - 1) more: H lists them)" : " (H lists it)"
            message = ("theme file skipped: \(first)" + more, true)
        }
    }

    /// The text copied since the last call, if any, for the terminal edge to put on the
    /// terminal's clipboard (`CellCopy.osc52`); the core itself writes nothing to the tty.
    package func takeClipboard() -> String? {
        defer { pendingClipboard = nil }
        return pendingClipboard
    }

    /// The commands asked for since the last call, to run off the input loop.
    package func takeCommands() -> [BrowserCommand] {
        defer { commands.removeAll() }
        return commands
    }

    // MARK: Layout

    /// Lines available to the panes (between the header and the status line).
    var bodyHeight: Int { max(0, height - 2) }
    /// Rows of data the grid shows (below its column header).
    var visibleRowCount: Int { max(1, bodyHeight - 1) }
    /// Columns of the tree: a third of the screen, kept between 14 and 40.
    var treeWidth: Int { min(40, max(14, width / 3)) }
    /// The tree's place: the left column, between the header and the status line.
    var treeArea: PaneArea { PaneArea(x: 0, y: 1, width: treeWidth, height: bodyHeight) }
    /// The right-hand pane's place, right of the tree and its border.
    var paneArea: PaneArea { PaneArea(x: treeWidth + 1, y: 1, width: width - treeWidth - 1, height: bodyHeight) }
    /// What the panes may read while they handle a key.
    var context: PaneContext { PaneContext(catalog: catalog, bodyHeight: bodyHeight, paneWidth: paneArea.width, ids: ids) }

    // MARK: Update

    /// Applies one event.
    package func handle(_ event: BrowserEvent) {
        switch event {
        case let .resize(w, h):
            width = w
            height = h
            refillGrid()
            tree.scrollToCursor(height: bodyHeight)
            inspector?.layOut(width: paneArea.width)
        case let .gridOpened(id, node, source, rows, error): gridOpened(id: id, node: node, source: source, rows: rows, error: error)
        case let .schemaRead(nodeID, lines, error):
            guard let shown = grid, shown.node.id == nodeID, focus == .grid else { return }
            if let error { message = (error, true); return }
            let text = lines.joined(separator: "\n")
            apply([.inspect(Inspector(title: "schema of \(shown.source.title)",
                                      cell: GridCell(text: text, role: .grid, typeName: "schema", content: .database(.text(text)))))])
        case let .rowCount(id, count):
            if grid?.id == id { grid?.total = count }
        case let .dataVersion(id, version): dataVersionRead(gridID: id, version: version)
        case let .rootCurrentUser(rootPath, userId, readable): rootCurrentUserRead(rootPath: rootPath, userId: userId, readable: readable)
        case let .pageLoaded(gridID, requestID, rows, error):
            guard grid?.id == gridID else { return }
            apply(grid?.pageLoaded(requestID: requestID, rows: rows, error: error, context: context) ?? [])
        case let .searchProgress(id, scanned): grid?.searchProgressed(id: id, scanned: scanned)
        case let .searchFinished(id, match, error, wrapped):
            apply(grid?.searchFinished(id: id, match: match, error: error, wrapped: wrapped) ?? [])
        case let .consoleProgress(id, rows): console?.progressed(id: id, rows: rows)
        case let .consoleNames(path, names):
            if console?.storePath == path { console?.completion = SQLCompletion(names: names) }
        case let .consoleGrid(id, node, source, rows):
            guard console?.showedGrid(id: id) == true else { return }
            showConsoleGrid(node: node, source: source, rows: rows)
        case let .consoleFinished(id, output, isError): console?.finished(id: id, output: output, isError: isError)
        case let .commitFinished(id, committed, failure): apply(review.finished(id: id, committed: committed, failure: failure))
        case let .daoPreviewed(id, plans, preparation, error):
            daoPanel?.previewed(id: id, plans: plans, preparation: preparation, error: error, context: context)
        case let .daoFinished(id, lines, isError, wrote):
            guard let effects = daoPanel?.finished(id: id, lines: lines, isError: isError, context: context) else { return }
            apply(effects)
            // Show the change in the grid when it shows the same table.
            if wrote, let node = grid?.node, case let .daoTable(_, table, _, _, _) = node.kind, table == daoPanel?.table {
                reloadGrid()
            }
        case let .exportProgress(id, rows): exportProgressed(id: id, rows: rows)
        case let .exportFinished(id, outcome): exportFinished(id: id, outcome: outcome)
        case let .catalogOpened(id, path, catalog, error): catalogOpened(id: id, path: path, catalog: catalog, error: error)
        case .recentFilesSaved(let error):
            if let error { message = ("recent files not saved: \(error)", true) }
        case let .click(x, y): click(x: x, y: y)
        case let .wheel(x, _, delta):
            let key: Key = delta < 0 ? .up : .down
            for _ in 0..<min(3, abs(delta) * 3) {
                if x < treeWidth { apply(tree.handle(key, height: bodyHeight, hasGrid: grid != nil)) } else { gridKey(key) }
            }
        case .key(let key): handleKey(key)
        }
    }

    /// Routes a key: to an open question or prompt first, then to the frame's shortcuts, then
    /// to the pane with focus.
    private func handleKey(_ key: Key) {
        if review.confirmingQuit { apply(review.handleQuitQuestion(key)); return }
        if key == .character("\u{3}") { requestQuit(); return }
        if grid?.search != nil {
            // While a search runs, Esc cancels it; other keys wait.
            apply(grid?.handleWhileSearching(key) ?? [])
            return
        }
        if prompt != nil { promptKey(key); return }
        if let run = exportRun, key == .escape {
            // Esc cancels the export first; other keys go on while it writes.
            run.export.cancel()
            message = ("cancelling the export…", false)
            return
        }
        if let request = opening, key == .escape, !request.isReload, let shown = grid, shown.node.id == request.node.id,
           request.view != shown.source.view {
            // Esc stops a sort or filter of the grid shown while it is read (a sort in memory
            // reads every row first); the grid stays as it was.
            request.cancel.cancel()
            opening = nil
            message = ("sort and filter cancelled: the grid stays as it was", false)
            return
        }
        if showHelp {
            switch key {
            case .escape, .character("?"), .character("H"), .character("q"), .enter: showHelp = false
            case .down, .character("j"): helpScroll = min(helpScrollLimit, helpScroll + 1)
            case .up, .character("k"): helpScroll = max(0, min(helpScrollLimit, helpScroll) - 1)
            case .pageDown, .character(" "): helpScroll = min(helpScrollLimit, helpScroll + bodyHeight)
            case .pageUp, .character("b"): helpScroll = max(0, min(helpScrollLimit, helpScroll) - bodyHeight)
            case .home, .character("g"): helpScroll = 0
            case .end, .character("G"): helpScroll = helpScrollLimit
            default: break
            }
            return
        }
        // Shortcuts apply where keys are not text being typed (console, DAO form).
        let navigating = focus == .tree || focus == .grid || focus == .review || (focus == .dao && (daoPanel?.stage == .methods || daoPanel?.resultsFocused == true))
        switch key {
        // `?` is the grid's backward search; `H` opens the help everywhere keys navigate.
        case .character("?") where (navigating && focus != .grid) || focus == .inspector: openHelp(); return
        case .character("H") where navigating || focus == .inspector: openHelp(); return
        case .character("d") where focus == .tree || focus == .grid: openDAOPanel(); return
        case .character(":") where focus == .tree || focus == .grid: openConsole(); return
        case .character("R") where focus == .tree:
            refreshTree(reason: nil)
            return
        case .character("o") where focus == .tree, .character("O") where focus == .tree || focus == .grid:
            openFilePrompt()
            return
        case .character("w") where (focus == .tree || focus == .grid) && !review.staged.isEmpty:
            focus = .review
            review.cursor = 0
            return
        case .character("t") where navigating:
            themeIndex = (themeIndex + 1) % themes.count
            message = ("theme: \(theme.name)", false)
            return
        default: break
        }
        message = nil
        switch focus {
        case .tree: apply(tree.handle(key, height: bodyHeight, hasGrid: grid != nil))
        case .grid: gridKey(key)
        case .inspector:
            guard var pane = inspector else { focus = .grid; return }
            let effects = pane.handle(key, width: paneArea.width, height: bodyHeight)
            inspector = pane
            apply(effects)
        case .dao:
            guard var pane = daoPanel else { focus = .tree; return }
            let effects = pane.handle(key, context: context)
            daoPanel = pane
            apply(effects)
        case .console:
            guard var pane = console else { focus = .tree; return }
            let before = pane.history.entries
            let effects = pane.handle(key, height: bodyHeight, context: context)
            console = pane
            if pane.history.entries != before { keepConsoleHistory(pane) }
            apply(effects)
        case .review: apply(review.handle(key))
        }
    }

    private func gridKey(_ key: Key) {
        guard var pane = grid else { focus = .tree; return }
        let effects = pane.handle(key, context: context)
        grid = pane
        apply(effects)
    }

    private func promptKey(_ key: Key) {
        guard var line = prompt else { return }
        let outcome = line.handle(key, screenWidth: width)
        if line.purpose.isSearch, let history = line.editor.history { searchHistory = history }
        if line.purpose == .filter, let history = line.editor.history { filterHistory = history }
        switch outcome {
        case .editing: prompt = line
        case .cancelled:
            prompt = nil
            if line.purpose == .exportReplace {
                exportToReplace = nil
                message = ("export cancelled: the file is left as it was", false)
            }
        case .submitted(let text):
            prompt = nil
            if line.purpose == .open { submitOpen(text); return }
            if line.purpose == .export || line.purpose == .exportReplace {
                let replacing = line.purpose == .exportReplace ? exportToReplace : nil
                exportToReplace = nil
                submitExport(text, replacing: replacing)
                return
            }
            guard var pane = grid else { return }
            let effects = pane.submit(line.purpose, text: text, context: context)
            grid = pane
            apply(effects)
        }
    }

    private func click(x: Int, y: Int) {
        guard y >= 1, y < height - 1 else { return }
        if x < treeWidth {
            apply(tree.click(line: y - 1))
        } else if var pane = grid, inspector == nil, y >= 2, pane.click(x: x, line: y - 2, area: paneArea) {
            grid = pane
            focus = .grid
        }
    }

    /// Does what the panes asked, in order.
    func apply(_ effects: [PaneEffect]) {
        for effect in effects {
            switch effect {
            case .focus(let target): focus = target == .grid && grid == nil ? .tree : target
            case let .message(text, isError): message = (text, isError)
            case .command(let command): commands.append(command)
            case .open(let node):
                // Off the input loop: the grid shows when its first rows are in.
                startOpening(node, page: .first(limit: visibleRowCount * 2), isReload: false, view: TableView())
            case .inspect(var value):
                value.layOut(width: paneArea.width)         // once, not on every key and frame
                inspector = value
                focus = .inspector
            case .prompt(var line):
                if line.purpose.isSearch { line.editor.history = searchHistory }
                if line.purpose == .filter { line.editor.history = filterHistory }
                prompt = line
            case .stage(let edit): apply([review.stage(edit, id: ids.next(), catalog: catalog)])
            case .commit: apply(review.commit(id: ids.next(), catalog: catalog))
            case .reloadGrid: reloadGrid()
            case .view(let view):
                // The first rows of the new order; until they come the grid shown stays.
                if let shown = grid { startOpening(shown.node, page: .first(limit: visibleRowCount * 2), isReload: false, view: view) }
            case .close:
                if focus == .inspector { inspector = nil }
                if focus == .dao { daoPanel = nil }
            case let .copy(text, what):
                pendingClipboard = text
                message = ("copied \(Browser.grouped(text.utf8.count)) bytes: \(what)", false)
            case let .follow(table, columns, values): follow(table: table, columns: columns, values: values)
            case .jumpBack: jumpBack()
            case .quit: requestQuit()
            case .finish: if review.staged.isEmpty { isFinished = true }
            }
        }
    }

    // MARK: Opening panes

    /// Asks for the grid of `node` (`BrowserCommand.openGrid`, reading `page`); an answer
    /// to an earlier opening is dropped from now on.
    private func startOpening(_ node: TreeNode, page: PageRequest, isReload: Bool, view: TableView,
                              leaving: JumpPlace? = nil, place: JumpPlace? = nil) {
        let id = ids.next()
        opening?.cancel.cancel()            // its answer would be dropped: stop its work too
        let cancel = CancellationFlag()
        opening = GridOpening(id: id, node: node, page: page, isReload: isReload, view: view, focus: focus, leaving: leaving, place: place,
                              cancel: cancel)
        commands.append(.openGrid(requestID: id, node: node, catalog: catalog, page: page, view: view, cancel: cancel))
    }

    /// The grid asked for came (or could not be read). A grid opened shows with focus,
    /// unless another pane took the keys while it was read (the DAO panel opened with `d`,
    /// the console): that pane stays, with the grid beside it. A grid read again takes the
    /// place of the one shown, leaving focus and the other panes as they are. Either asks for its row count, and for more rows if the screen grew
    /// taller than the rows asked for.
    private func gridOpened(id: Int, node: TreeNode, source: GridSource?, rows: [GridRow], error: String?) {
        guard let request = opening, request.id == id else { return }
        opening = nil
        if let error {
            message = (request.isReload ? "cannot read \(node.label) again: \(error)" : "cannot open \(node.label): \(error)", true)
            return
        }
        guard let source else { return }
        var (fresh, count) = GridPane.opened(node, source: source, rows: rows, context: context)
        if request.isReload, let old = grid, old.node.id == node.id {
            fresh.keepPlace(of: old, page: visibleRowCount)
            let marked = fresh.markChanges(since: old)
            if marked > 0, message?.isError != true {
                let said = message?.text ?? "\(source.title) read again"
                message = (said + " · \(marked) changed row\(marked == 1 ? "" : "s") marked", false)
            }
            old.search?.cancel.cancel()         // it was scanning the rows replaced here
            if focus == .inspector { focus = .grid }
            inspector = nil
        } else {
            fresh.lastQuery = grid?.lastQuery
            if let old = grid, old.node.id == node.id {
                // The same grid sorted or filtered anew: the cursor stays on its column.
                fresh.column = min(old.column, max(0, source.columns.count - 1))
                fresh.firstColumn = min(old.firstColumn, fresh.column)
                fresh.widthOverrides = old.widthOverrides
            }
            if focus == request.focus {
                daoPanel = nil
                inspector = nil
                focus = .grid
            }
        }
        if let leaving = request.leaving { jumpStack.append(leaving) }
        if let place = request.place, let index = fresh.rows.firstIndex(where: { $0.key == place.row.key }) {
            fresh.cursor = index
            fresh.top = max(0, index - visibleRowCount / 2)
            fresh.column = min(place.column, max(0, source.columns.count - 1))
            fresh.firstColumn = min(fresh.firstColumn, fresh.column)
        }
        grid = fresh
        commands.append(count)
        if rows.count >= request.page.limit { refillGrid() }
    }

    /// Shows the rows of a console SELECT in the grid, with the keys: it takes the place of
    /// the grid shown and of any grid still being opened, and asks for its count and for
    /// rows to fill the screen as an opened grid does.
    private func showConsoleGrid(node: TreeNode, source: GridSource, rows: [GridRow]) {
        opening = nil
        grid?.search?.cancel.cancel()
        var (fresh, count) = GridPane.opened(node, source: source, rows: rows, context: context)
        fresh.lastQuery = grid?.lastQuery
        grid = fresh
        inspector = nil
        daoPanel = nil
        focus = .grid
        commands.append(count)
        if rows.count >= visibleRowCount * 2 { refillGrid() }
    }

    /// Keeps the grid's cursor on screen and asks for rows to fill it (`GridPane.refill`).
    private func refillGrid() {
        guard var pane = grid else { return }
        let effects = pane.refill(context: context)
        grid = pane
        apply(effects)
    }

    /// Asks whether another connection wrote to the shown grid's file since it was last
    /// looked at (`BrowserCommand.dataVersion`); the terminal loop calls this about once a
    /// second. One question at a time, and none while a grid is being read.
    package func pollForChanges() {
        if let rootPath = catalog.rootPath, !rootPollPending, catalogOpening == nil {
            rootPollPending = true
            commands.append(.rootCurrentUser(rootPath: rootPath))
        }
        guard let shown = grid, opening == nil, !pollPending else { return }
        pollPending = true
        commands.append(.dataVersion(gridID: shown.id, source: shown.source))
    }

    /// The answer to `pollForChanges`: a version other than the one seen before means the
    /// file changed, and the grid is read again where the cursor is (`reloadGrid`), with
    /// its count.
    private func dataVersionRead(gridID: Int, version: Int64?) {
        pollPending = false
        guard var shown = grid, shown.id == gridID, let version else { return }
        let seen = shown.dataVersion
        shown.dataVersion = version
        grid = shown
        guard let seen, seen != version, opening == nil else { return }
        reloadGrid()
        message = ("\(shown.source.title) changed on disk: read again", false)
    }

    /// Reads the grid's table again after a write (`openGrid`, the rows around the cursor),
    /// keeping the cursor on its row, the column and the focus when the rows come
    /// (`GridPane.keepPlace`). Until then the grid shown stays, and keys go on.
    ///
    /// A grid still being opened is asked for again instead, so that it shows the write too.
    func reloadGrid() {
        if let request = opening, !request.isReload {
            startOpening(request.node, page: request.page, isReload: false, view: request.view)
            return
        }
        guard let old = grid else { return }
        let page = visibleRowCount
        let request: PageRequest = old.rows.indices.contains(old.cursor)
            ? .around(old.rows[old.cursor], before: page, limit: page * 3)
            : .first(limit: page * 2)
        startOpening(old.node, page: request, isReload: true, view: old.source.view)
    }

    /// Opens the first leaf whose label is `name` (a table, KV business or cache), as
    /// `browse --table` asks, off the input loop like Enter on it (`openGrid`): the grid
    /// shows when its rows are in. Reports in the status line when there is none.
    package func openNode(named name: String) {
        guard let node = tree.select(leafNamed: name) else {
            message = ("no table, business or cache named \(name)", true)
            return
        }
        apply([.open(node)])
    }

    /// Opens the table `table` of the grid's store at the row whose `columns` hold `values`
    /// (`J` on a foreign key column), off the input loop like any grid; once it is open, the
    /// grid left is remembered for `Backspace`. A table the tree does not list says so.
    private func follow(table: String, columns: [String], values: [DatabaseValue]) {
        guard let shown = grid, let path = shown.node.storePath else { return }
        guard let target = BrowserTreeSearch.leaf(table: table, store: path, in: catalog.roots) else {
            message = ("\(table) is not a table of \(catalog.storeName(for: path)) the browser lists", true)
            return
        }
        let here = shown.rows.indices.contains(shown.cursor)
            ? JumpPlace(node: shown.node, view: shown.source.view, row: shown.rows[shown.cursor], column: shown.column) : nil
        startOpening(target, page: .matching(columns: columns, values: values, limit: visibleRowCount * 2), isReload: false,
                     view: TableView(), leaving: here)
    }

    /// Goes back to the grid the last `J` left, at its row and column (`Backspace`).
    private func jumpBack() {
        guard let place = jumpStack.popLast() else {
            message = ("nothing to go back to: Backspace returns to the grid J left", false)
            return
        }
        let page = visibleRowCount
        startOpening(place.node, page: .around(place.row, before: page / 2, limit: page * 3), isReload: false, view: place.view, place: place)
    }

    /// Shows the help from its top.
    private func openHelp() {
        showHelp = true
        helpScroll = 0
    }

    /// Opens the DAO methods of the DAO table under the tree cursor (or shown in the grid).
    func openDAOPanel() {
        do {
            daoPanel = try DAOPanel.open(focus == .tree ? tree.selectedNode : grid?.node, catalog: catalog)
            inspector = nil
            focus = .dao
        } catch {
            message = ("\(error)", true)
        }
    }

    /// Opens the SQL console on the store of the node under the tree cursor (or of the grid's
    /// node), keeping its history across openings.
    func openConsole() {
        if focus == .grid, let shown = grid, case let .query(path, _) = shown.node.kind {
            // The rows of a console query: back to the console they came from.
            showConsole(on: path)
            return
        }
        let gridIndex = focus == .grid ? grid.flatMap { shown in tree.visibleTree.firstIndex { $0.node.id == shown.node.id } } : nil
        guard let path = tree.storePath(around: gridIndex) else { message = ("select a store first", true); return }
        showConsole(on: path)
    }

    /// Gives the keys to the console on the store at `path`: the one open, or a new one
    /// that keeps the history when the store is another.
    private func showConsole(on path: String) {
        if console?.storePath != path {
            console = ConsolePane(storePath: path, storeName: catalog.storeName(for: path), history: consoleHistory(of: path))
            commands.append(.consoleNames(storePath: path, catalog: catalog))
        }
        focus = .console
    }

    /// The console's history of the store at `path`: this session's, else the lines kept in
    /// the state folder (`ConsoleHistoryFile`); a file that cannot be used is reported and
    /// left for the next save to replace.
    private func consoleHistory(of path: String) -> LineHistory {
        if let kept = consoleHistories[path] { return kept }
        guard let stateFolder else { return LineHistory() }
        do {
            return LineHistory(entries: try ConsoleHistoryFile(storePath: path, stateFolder: stateFolder).load())
        } catch {
            message = ("\(error)", true)
            return LineHistory()
        }
    }

    /// Keeps the console's history after a line was run: for this session, and in the state
    /// folder for the next (a few kilobytes, written whole).
    private func keepConsoleHistory(_ pane: ConsolePane) {
        consoleHistories[pane.storePath] = pane.history
        guard let stateFolder else { return }
        do {
            try ConsoleHistoryFile(storePath: pane.storePath, stateFolder: stateFolder).save(pane.history.entries)
        } catch {
            message = ("console history not saved: \(error)", true)
        }
    }

    /// Quits, or first asks what to do with staged edits (they are never dropped unasked).
    /// A DAO method or a commit still running keeps the browser open until it ends.
    func requestQuit() {
        if daoPanel?.running != nil {
            message = ("a DAO method is running: quit when it has ended", true)
            return
        }
        if review.committing != nil {
            message = ("committing: quit when it has been written", true)
            return
        }
        if exportRun != nil {
            message = ("an export is running: Esc cancels it, or quit when it has ended", true)
            return
        }
        if review.staged.isEmpty { isFinished = true } else { review.confirmingQuit = true }
    }
}
