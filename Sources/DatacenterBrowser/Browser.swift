import DatacenterKit
import Foundation

/// The browser's logic: its state, `handle` (the update function) and `render` (into a
/// `ScreenGrid`). It knows nothing of curses: the terminal edge turns keys, clicks and
/// resizes into `BrowserEvent`s, runs the `BrowserCommand`s it asks for (`takeCommands()`),
/// hands their results back as events, and draws the grid.
///
/// The browser is a frame around panes, as gitui is: the tree (`TreePane`), the grid
/// (`GridPane`), the inspector (`Inspector`), the DAO panel (`DAOPanel`), the SQL console
/// (`ConsolePane`), the staged edits (`ReviewPane`), the help (`HelpScreen`) and the prompt
/// line (`PromptLine`). Each pane owns its state, keys (`KeyCommand`) and drawing, and answers
/// a key with `PaneEffect`s. The frame is a router: it keeps what they share (focus, layout,
/// the status line, the commands for the event loop), hands each event to the part it
/// concerns, and does what their effects ask.
package final class Browser {
    /// Which pane takes the keys.
    package enum Focus: Sendable { case tree, grid, inspector, dao, console, review }

    /// What is browsed: the stores, their tree, the keys; another with `o`.
    package internal(set) var catalog: BrowserCatalog
    /// The screen's size and where the tree and panes go on it.
    var layout: FrameLayout
    /// The pane that takes the keys (the tree, hidden, shows again when it takes them).
    package internal(set) var focus: Focus = .tree {
        didSet { if focus == .tree { layout.treeHidden = false } }
    }
    /// True once the user quit: the terminal loop ends.
    package internal(set) var isFinished = false
    /// The themes `t` cycles through, the one in use, the theme files skipped.
    var themeChoice: ThemeChoice
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
    /// The SQL console, its histories and the favourite queries.
    var consoleSession: ConsoleSession
    /// The staged edits and their review; always there, shown when it has focus.
    var review = ReviewPane()
    /// The line being typed at the bottom (`/` search, `e` edit, `o` insert), if any.
    var prompt: PromptLine?
    /// This session's searches and filters, walked with ↑ and ↓ at their prompts.
    var promptHistories = PromptHistories()
    /// The help, while it covers the panes (`H`, or `?` outside the grid); it takes the keys.
    var help: HelpScreen?
    /// The status line's message, and the last one said (`Ctrl-P`).
    var status = StatusLine()
    /// Work asked for and not yet taken by the runner (`takeCommands()`).
    var commands: [BrowserCommand] = []
    /// The ids of grids, searches, queries, previews, runs and commits.
    let ids = IDCounter()
    /// The grid being opened or read again, the grids `J` left, the change poll.
    var lifecycle = GridLifecycle()
    /// The export running (`E`), if any, and the one whose file existed.
    var exports = GridExports()
    /// The root or file being opened (`o`, `R`), and those browsed lately.
    var catalogSwitch = CatalogSwitch()
    /// The mark (`m`) and the one being taken.
    var changes = ChangeMarking()
    /// Text `y` or `Y` copied, until the terminal edge takes it (`takeClipboard()`) and
    /// writes it to the terminal's clipboard.
    var pendingClipboard: String?

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
        consoleSession = ConsoleSession(stateFolder: stateFolder)
        layout = FrameLayout(width: width, height: height)
        let themes = themes.isEmpty ? [Theme.builtIn] : themes
        themeChoice = ThemeChoice(themes: themes, index: themes.firstIndex { $0.name == themeName } ?? 0, errors: themeErrors)
        tree = TreePane(roots: catalog.roots)
        if let stateFolder {
            // Read once as the browser starts, before the input loop; a damaged list is ignored.
            let (list, warning) = RecentFiles.load(from: stateFolder)
            catalogSwitch.recent = list
            if let warning { message = (warning, true) }
            ChangeMark.removeStale(in: ChangeMark.marksFolder(in: stateFolder))
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

    /// The commands asked for since the last call, to run off the input loop
    /// (`BrowserCommand.coalesced`: a DAO preview asked for again drops the one before).
    package func takeCommands() -> [BrowserCommand] {
        defer { commands.removeAll() }
        return BrowserCommand.coalesced(commands)
    }

    // MARK: Update

    /// Applies one event.
    package func handle(_ event: BrowserEvent) {
        switch event {
        case let .resize(w, h):
            layout.width = w
            layout.height = h
            if let shown = help {
                // Wrapped again to the new width, at the same place.
                help = HelpScreen(width: paneArea.width, themeErrors: themeErrors)
                help?.scroll = shown.scroll
            }
            refillGrid()
            tree.scrollToCursor(height: bodyHeight)
            inspector?.layOut(width: paneArea.width)
        case let .gridOpened(id, node, source, rows, error): gridOpened(id: id, node: node, source: source, rows: rows, error: error)
        case let .schemaRead(nodeID, lines, error):
            guard let shown = grid, shown.node.id == nodeID, focus == .grid else { return }
            apply(error.map { [.message($0, isError: true)] } ?? [.inspect(Inspector(text: lines.joined(separator: "\n"), typeName: "schema",
                                                                                    title: "schema of \(shown.source.title)"))])
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
        case let .rowsSelected(gridID, requestID, keys, error):
            guard grid?.id == gridID else { break }
            apply(grid?.rowsSelected(requestID: requestID, keys: keys, error: error) ?? [])
        case let .consoleNames(path, tables):
            if console?.storePath == path { console?.completion = SQLCompletion(tables: tables) }
        case let .consoleGrid(id, node, source, rows, note):
            guard console?.showedGrid(id: id, note: note) == true else { return }
            showConsoleGrid(node: node, source: source, rows: rows)
            if let note { message = (note, false) }
        case let .consoleFinished(id, output, isError): console?.finished(id: id, output: output, isError: isError)
        case let .commitFinished(id, committed, failure, note):
            lifecycle.ownCommit = lifecycle.ownCommit || !committed.isEmpty
            apply(review.finished(id: id, committed: committed, failure: failure, undoNote: note))
        case let .undoPrepared(id, edits, refusal): apply(review.undoPrepared(id: id, edits: edits, refusal: refusal))
        case let .daoPreviewed(id, plans, preparation, error):
            daoPanel?.previewed(id: id, plans: plans, preparation: preparation, error: error, context: context)
        case let .daoFinished(id, lines, isError, wrote):
            guard let effects = daoPanel?.finished(id: id, lines: lines, isError: isError, context: context) else { return }
            apply(effects)
            // Show the change in the grid when it shows the same table.
            if wrote, let node = grid?.node, case let .daoTable(_, table, _, _, _) = node.kind, table == daoPanel?.table {
                reloadGrid()
            }
        case let .exportProgress(id, rows): exports.progressed(id: id, rows: rows)
        case let .exportFinished(id, outcome): apply(exports.finished(id: id, outcome: outcome, promptOpen: prompt != nil))
        case let .catalogOpened(id, path, catalog, error): catalogOpened(id: id, path: path, catalog: catalog, error: error)
        case .recentFilesSaved(let error):
            if let error { message = ("recent files not saved: \(error)", true) }
        case let .markProgress(id, store, index, count): apply(changes.progressed(id: id, store: store, index: index, count: count))
        case let .marked(id, mark, error): apply(changes.taken(id: id, mark: mark, error: error, live: markedPath))
        case let .click(x, y): click(x: x, y: y)
        case let .wheel(x, _, delta):
            let key: Key = delta < 0 ? .up : .down
            for _ in 0..<min(3, abs(delta) * 3) {
                if x < treeWidth { send(key, to: \.tree) } else { send(key, to: \.grid, orElse: .tree) }
            }
        case .key(let key): handleKey(key)
        case .paste(let text): paste(text)
        }
    }

    /// Does what the panes asked, in order.
    func apply(_ effects: [PaneEffect]) {
        for effect in effects {
            switch effect {
            case .focus(let target): focus = target == .grid && grid == nil ? .tree : target
            case let .message(text, isError): message = (text, isError)
            case .clearMessage: message = nil
            case .command(let command): commands.append(command)
            case .open(let node):
                // Off the input loop: the grid shows when its first rows are in.
                startOpening(node, page: .first(limit: visibleRowCount * 2), isReload: false, view: TableView())
            case .openDerived(let node):
                startOpening(node, page: .first(limit: visibleRowCount * 2), isReload: false, view: TableView(), leaving: grid?.place)
            case let .openFiltered(node, view):
                startOpening(node, page: .first(limit: visibleRowCount * 2), isReload: false, view: view)
            case let .openAt(node, column):
                startOpening(node, page: .first(limit: visibleRowCount * 2), isReload: false, view: TableView())
                opening?.column = column
            case .inspect(var value):
                value.layOut(width: paneArea.width)         // once, not on every key and frame
                inspector = value
                focus = .inspector
            case .prompt(let line): prompt = promptHistories.attached(to: line)
            case .stage(let edit): apply([review.stage(edit, id: ids.next(), catalog: catalog)])
            case .commit: apply(review.commit(id: ids.next(), catalog: catalog, stateFolder: stateFolder))
            case .undoLastCommit: apply(review.prepareUndo(id: ids.next(), catalog: catalog, stateFolder: stateFolder))
            case .undoStaged: apply(review.undo())
            case .redoStaged: apply(review.redo())
            case .reloadGrid: reloadGrid()
            case .view(let view):
                // The first rows of the new order; until they come the grid shown stays.
                if let shown = grid { startOpening(shown.node, page: .first(limit: visibleRowCount * 2), isReload: false, view: view) }
            case .close:
                // The help takes the keys while it is open: its close is the one asked for.
                if help != nil { help = nil; continue }
                if focus == .inspector { inspector = nil }
                if focus == .dao { daoPanel = nil }
            case let .copy(text, what):
                pendingClipboard = text
                message = ("copied \(Browser.grouped(text.utf8.count)) bytes: \(what)", false)
            case .copySelectedRows: apply(exports.copySelected(of: grid, context: context))
            case let .follow(table, columns, values): follow(table: table, columns: columns, values: values)
            case .jumpBack: jumpBack()
            case let .derive(node, derived): openDerived(node, derived)
            case .help: help = HelpScreen(width: paneArea.width, themeErrors: themeErrors)
            case .quit: requestQuit()
            case .finish: if review.staged.isEmpty { isFinished = true }
            }
        }
    }

}

/// What the frame reads through its parts: the screen's geometry (`FrameLayout`), the
/// theme, the status line's message, the console and the grid being opened.
extension Browser {
    /// The screen's width in cells.
    package var width: Int { layout.width }
    /// The screen's height in lines.
    package var height: Int { layout.height }
    /// The theme in use.
    package var theme: Theme { themeChoice.theme }
    /// The theme files that could not be used, each with its file, line and what is wrong:
    /// the status line says so when the browser starts, and the help (`H`) lists them all.
    package var themeErrors: [ThemeError] { themeChoice.errors }

    /// The SQL console; kept when it loses focus, so its output and history stay.
    var console: ConsolePane? {
        get { consoleSession.pane }
        set { consoleSession.pane = newValue }
    }
    /// What the status line says, if anything; an error is drawn in the error colour.
    var message: (text: String, isError: Bool)? {
        get { status.message }
        set { status.message = newValue }
    }
    /// The grid being read off the input loop (`openGrid`), if any: only its answer counts.
    var opening: GridLifecycle.GridOpening? {
        get { lifecycle.opening }
        set { lifecycle.opening = newValue }
    }
    /// Lines available to the panes (between the header and the status line).
    var bodyHeight: Int { layout.bodyHeight }
    /// Rows of data the grid shows (below its column header).
    var visibleRowCount: Int { layout.visibleRowCount }
    /// Columns of the tree (0 while hidden).
    var treeWidth: Int { layout.treeWidth }
    /// The right-hand pane's place.
    var paneArea: PaneArea { layout.paneArea }
    /// What the panes may read while they handle a key.
    var context: PaneContext {
        PaneContext(catalog: catalog, bodyHeight: bodyHeight, paneWidth: paneArea.width, ids: ids, hasGrid: grid != nil,
                    stagedValues: review.stagedValues, stateFolder: stateFolder)
    }
}
