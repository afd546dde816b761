/// The keys the frame takes before the pane with focus: those every pane shares (help,
/// theme, the last message) and those that open another pane (DAO, console, review, a file).
/// Each map applies where its `applies` says: never where keys are text being typed (the
/// console, a DAO form), so typing `t` there types a `t`.
struct FrameKeys: Sendable {
    /// The keys and what they do.
    let map: KeyMap<Browser>
    /// True when the map takes the keys in the browser's state now.
    let applies: @Sendable (Browser) -> Bool

    /// The frame's maps, in the order they take a key and the help lists them.
    static let all: [FrameKeys] = [tree, treeAndGrid, moving, everywhere]

    /// The maps that take the keys in `browser`'s state now.
    static func applying(in browser: Browser) -> [KeyMap<Browser>] {
        all.filter { $0.applies(browser) }.map(\.map)
    }

    /// In the tree.
    static let tree = FrameKeys(map: KeyMap("In the tree", [
        KeyCommand([.character("o")], "o", "open another root or file; ↑↓ the recent ones", hint: "o open file") { browser, _, _ in
            browser.catalogSwitch.open(staged: browser.review.staged.count, busy: browser.busyWork)
        },
        KeyCommand([.character("R")], "R", "read the root again (done by itself when the current user changes)") { browser, _, _ in
            browser.refreshTree(reason: nil)
            return []
        },
        KeyCommand([.character("<"), .character(">")], "<  >", "the tree narrower / wider") { browser, key, _ in
            browser.layout.treeWidthChosen = browser.treeWidth + (key == .character(">") ? 4 : -4)
            browser.layout.treeWidthChosen = browser.treeWidth  // kept within the screen
            return [.message("tree \(browser.treeWidth) columns wide: < > in the tree", isError: false)]
        },
    ]), applies: { $0.focus == .tree })

    /// In the tree and the grid.
    static let treeAndGrid = FrameKeys(map: KeyMap("In the tree and the grid", [
        KeyCommand([.character("d")], "d", "the DAO methods of a DAO table: form, SQL preview, run", hint: "d DAO") { browser, _, _ in
            browser.openDAOPanel()
            return []
        },
        KeyCommand([.character(":")], ":", "the SQL console on the store (read-only)", hint: ": SQL") { browser, _, _ in
            browser.openConsole()
            return []
        },
        KeyCommand([.character("w")], "w", "review the staged edits: the SQL they run (Z there undoes the last commit)") { browser, _, _ in
            guard !browser.review.staged.isEmpty
                || (browser.catalog.allowsWrites && UndoPreparation.hasUndo(catalog: browser.catalog, stateFolder: browser.stateFolder)) else {
                return [.message("nothing staged: e, x and o stage edits in a table's grid", isError: false)]
            }
            browser.focus = .review
            browser.review.cursor = 0
            return []
        },
        KeyCommand([.character("m"), .character("M")], "m  M", "mark the state now / what changed since (Enter)") { browser, key, context in
            key == .character("m") ? browser.changes.start(live: browser.markedPath, stateFolder: browser.stateFolder, context: context)
                : browser.changes.openChanges()
        },
        KeyCommand([.character("O")], "O", "open another root or file") { browser, _, _ in
            browser.catalogSwitch.open(staged: browser.review.staged.count, busy: browser.busyWork)
        },
    ]), applies: { $0.focus == .tree || $0.focus == .grid })

    /// Wherever keys move rather than type.
    static let moving = FrameKeys(map: KeyMap("Wherever keys move (not typing)", [
        KeyCommand([.character("t")], "t", "the next theme") { browser, _, _ in
            browser.themeChoice.index = (browser.themeChoice.index + 1) % browser.themeChoice.themes.count
            return [.message("theme: \(browser.theme.name)", isError: false)]
        },
        KeyCommand([.character("\\")], "\\", "hide the tree, or show it") { browser, _, _ in
            // Hide the tree (the panes take the whole width), or show it again.
            if !browser.layout.treeHidden, browser.grid == nil {
                return [.message("\\ hides the tree once a grid is open (Enter on a table, business or cache)", isError: false)]
            }
            browser.layout.treeHidden.toggle()
            if browser.layout.treeHidden, browser.focus == .tree { browser.focus = .grid }
            return [.message(browser.layout.treeHidden ? "tree hidden: \\ or Tab shows it" : "tree shown", isError: false)]
        },
    ]), applies: { $0.isMoving })

    /// Wherever keys move, and in the inspector.
    static let everywhere = FrameKeys(map: KeyMap("Wherever keys move, and in the inspector", [
        KeyCommand([.character("H")], "H", "this help (and ?, but in the grid)", hint: "H help") { _, _, _ in [.help] },
        KeyCommand([.control("p")], "Ctrl-P", "the last message in full (an error stays until Esc)") { browser, _, _ in
            guard let text = browser.status.last else { return [.message("no message yet: Ctrl-P shows the last one in full", isError: false)] }
            return [.inspect(Inspector(text: text, typeName: "message", title: "last message"))]
        },
    ]), applies: { $0.isMoving || $0.focus == .inspector })
}

extension Browser {
    /// True where keys move rather than type: the tree, the grid, the staged edits, and the
    /// DAO panel's methods and output (not its form).
    var isMoving: Bool {
        switch focus {
        case .tree, .grid, .review: return true
        case .dao: return daoPanel?.stage == .methods || daoPanel?.resultsFocused == true
        case .inspector, .console: return false
        }
    }
}
