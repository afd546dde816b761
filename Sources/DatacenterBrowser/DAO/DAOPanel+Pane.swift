import DatacenterDAO
import DatacenterKit
import Foundation

/// The DAO panel as a pane: its keys (choose a method, fill the form, run, confirm a write)
/// and its drawing. A run goes to the command runner (`DAORun`); while it runs, the panel
/// scrolls but takes no other key, and its result comes back through `finished`.
extension DAOPanel {
    /// The DAO methods of `node`.
    /// - throws: `DAOPanelRefusal` saying what `d` needs when `node` is not a DAO table;
    ///   the config's error when it does not load.
    static func open(_ node: TreeNode?, catalog: BrowserCatalog) throws -> DAOPanel {
        if let node, case let .table(store, table) = node.kind, let any = catalog.configFilesForAnyTable.first {
            // A config without a tableName is offered on any table.
            var panel = DAOPanel(table: table, storePath: store, config: any.config, encryptedColumns: Set(any.config.encryptedColumns))
            panel.storeName = catalog.storeName(for: store)
            return panel
        }
        guard let node, case let .daoTable(store, table, encrypted, module, configPath) = node.kind else {
            throw DAOPanelRefusal("d opens the methods of a DAO table (or, with --config, of a table a config names): select one first")
        }
        let config = try catalog.config(module: module, recordedPath: configPath)
        var panel = DAOPanel(table: table, storePath: store, config: config, encryptedColumns: Set(encrypted))
        panel.storeName = catalog.storeName(for: store)
        return panel
    }

    /// The panel's body height in a pane `height` lines tall (below the title).
    static func bodyHeight(paneHeight: Int) -> Int { max(1, paneHeight - 1) }

    /// One key, in a pane `context.paneWidth` wide and `context.bodyHeight` tall: the map of
    /// the panel's stage (`keyMap`) says what each does; in the form, other keys edit the
    /// field. While a run is out the panel only scrolls.
    mutating func handle(_ key: Key, context: PaneContext) -> [PaneEffect] {
        let map = keyMap
        if running != nil, !DAOPanel.pageCommand.keys.contains(key) {
            return [.message("running \(method?.id ?? "the method")…: its result comes next", isError: false)]
        }
        if let effects = map.run(key, on: &self, context: context) { return effects }
        guard stage == .form, !resultsFocused, fields.indices.contains(fieldCursor) else { return [] }
        // Everything else edits the field: typing, the cursor keys, Ctrl-A/E/U/W/K.
        let width = context.paneWidth
        let outcome = fields[fieldCursor].editor.handle(key)
        fields[fieldCursor].editor.followCursor(width: fieldRoom(width: width) - 1)
        var effects: [PaneEffect] = []
        // Typing into a nil field, or Backspace on it, makes it a value again.
        if outcome == .edited || (key == .backspace && fields[fieldCursor].isNil) {
            fields[fieldCursor].isNil = false
            effects += preview(context)
        }
        return effects + reveal(.field(fieldCursor), context)
    }

    /// True when a paste goes into a field: the form has the keys and no run is out.
    var takesPaste: Bool { stage == .form && !resultsFocused && running == nil && fields.indices.contains(fieldCursor) }

    /// Pasted text, inserted into the field at its cursor whole: one edit, one preview.
    mutating func paste(_ text: String, context: PaneContext) -> [PaneEffect] {
        guard takesPaste else { return [] }
        fields[fieldCursor].editor.insert(text)
        fields[fieldCursor].editor.followCursor(width: fieldRoom(width: context.paneWidth) - 1)
        fields[fieldCursor].isNil = false
        return preview(context) + reveal(.field(fieldCursor), context)
    }

    /// The keys of the panel's stage now.
    var keyMap: KeyMap<DAOPanel> {
        switch stage {
        case .methods: return DAOPanel.methodKeys
        case .form where resultsFocused: return DAOPanel.outputKeys
        case .form: return DAOPanel.formKeys
        case .confirm: return DAOPanel.confirmKeys
        }
    }

    /// The status line's hints: the stage's, or, while a run is out, that it only scrolls.
    var statusHints: [String] { running == nil ? keyMap.hints : ["running…", "PgUp PgDn scroll"] }

    /// The panel's maps, in the order the help lists them.
    static var keyMaps: [KeyMap<DAOPanel>] { [methodKeys, formKeys, outputKeys, confirmKeys] }

    /// PgUp PgDn scroll the panel in every stage, even while a run is out.
    static let pageCommand = KeyCommand<DAOPanel>([.pageUp, .pageDown], "PgUp PgDn", "scroll the panel") { panel, key, context in
        let height = DAOPanel.bodyHeight(paneHeight: context.bodyHeight)
        panel.scroll(by: (key == .pageUp ? -1 : 1) * max(1, height - 1), width: context.paneWidth, height: height)
        return []
    }

    /// The list of methods (`d` on a DAO table).
    static let methodKeys = KeyMap<DAOPanel>("DAO panel: its methods (d on a DAO table)", [
        KeyCommand([.up, .character("k"), .down, .character("j")], "↑ ↓ k j", "choose a method", hint: "↑↓ choose") { panel, key, context in
            panel.methodCursor = key == .up || key == .character("k") ? max(0, panel.methodCursor - 1)
                : min(max(0, panel.config.methods.count - 1), panel.methodCursor + 1)
            return panel.reveal(.method(panel.methodCursor), context)
        },
        KeyCommand([.enter, .right], "Enter →", "its form: arguments, the SQL it will run", hint: "Enter form") { panel, _, context in
            let effects: [PaneEffect] = panel.chooseMethod(catalog: context.catalog, id: context.ids.next()).map { [.command(.daoQueryPlan($0))] } ?? []
            return effects + panel.reveal(panel.stage == .methods ? .method(panel.methodCursor) : .field(panel.fieldCursor), context)
        },
        KeyCommand([.escape, .character("q"), .left], "Esc q ←", "close the panel", hint: "Esc back") { _, _, _ in [.close, .focus(.grid)] },
        pageCommand,
        .help,
    ], otherKeys: nil)

    /// The form of a method's arguments; other keys edit the field.
    static let formKeys = KeyMap<DAOPanel>("DAO panel: a method's form", [
        KeyCommand([.up, .backTab], "↑ Shift-Tab", "the field before") { panel, _, context in
            panel.fieldCursor = max(0, panel.fieldCursor - 1)
            return panel.reveal(.field(panel.fieldCursor), context)
        },
        KeyCommand([.down, .tab], "↓ Tab", "the next field; past the last, the output", hint: "↑↓ Tab field, then output") { panel, _, context in
            if panel.showsResultsNext {
                // Past the last field: the results take the keys, to scroll them.
                panel.resultsFocused = true
                return panel.reveal(.results, context)
            }
            panel.fieldCursor = min(max(0, panel.fields.count - 1), panel.fieldCursor + 1)
            return panel.reveal(.field(panel.fieldCursor), context)
        },
        KeyCommand([.character("\u{e}")], "Ctrl-N", "the argument nil (again: a value)", hint: "Ctrl-N nil") { panel, _, context in
            guard panel.fields.indices.contains(panel.fieldCursor) else { return [] }
            if panel.fields[panel.fieldCursor].isRequired {
                return [.message("$\(panel.fields[panel.fieldCursor].name) must not be nil", isError: true)]
            }
            panel.fields[panel.fieldCursor].isNil.toggle()
            return panel.preview(context) + panel.reveal(.field(panel.fieldCursor), context)
        },
        KeyCommand([.enter, .character("\u{12}")], "Enter Ctrl-R", "run it (a write asks first)", hint: "Enter run") { panel, _, context in
            panel.runNow(context)
        },
        KeyCommand([.escape], "Esc", "back to the methods", hint: "Esc methods") { panel, _, context in
            panel.stage = .methods
            panel.scroll = 0
            return panel.reveal(.field(panel.fieldCursor), context)
        },
        pageCommand,
    ], otherKeys: "type a JSON value (\"strings\" quoted)")

    /// The output below the form, once ↓ or Tab passed the last field.
    static let outputKeys = KeyMap<DAOPanel>("DAO panel: the output (↓ or Tab past the last field)", [
        KeyCommand([.up, .character("k"), .down, .character("j")], "↑ ↓ k j", "scroll", hint: "↑↓ scroll") { panel, key, context in
            let height = DAOPanel.bodyHeight(paneHeight: context.bodyHeight)
            panel.scroll(by: key == .up || key == .character("k") ? -1 : 1, width: context.paneWidth, height: height)
            return []
        },
        KeyCommand([.left, .character("h"), .right, .character("l")], "← → h l", "sideways", hint: "←→ sideways") { panel, key, context in
            panel.resultShift = key == .left || key == .character("h") ? max(0, panel.resultShift - 8)
                : min(panel.maximumResultShift(width: context.paneWidth), panel.resultShift + 8)
            return []
        },
        KeyCommand([.home, .character("g"), .end, .character("G")], "g G Home End", "the output's start / end", hint: "Home End") { panel, key, context in
            let height = DAOPanel.bodyHeight(paneHeight: context.bodyHeight)
            let lines = panel.bodyLines(width: context.paneWidth)
            let line = key == .home || key == .character("g") ? lines.firstIndex { $0.anchor == .results } ?? 0 : lines.count
            panel.scroll = DAOPanel.clamped(line, lineCount: lines.count, height: height)
            return []
        },
        KeyCommand([.tab, .backTab, .escape], "Tab Esc", "back to the form", hint: "Tab form") { panel, _, context in
            panel.resultsFocused = false
            return panel.reveal(.field(panel.fieldCursor), context)
        },
        KeyCommand([.enter, .character("\u{12}")], "Enter Ctrl-R", "run it again", hint: "Enter run again") { panel, _, context in
            panel.resultsFocused = false
            return panel.runNow(context)
        },
        pageCommand,
        .help,
    ], otherKeys: nil)

    /// The question before a write.
    static let confirmKeys = KeyMap<DAOPanel>("DAO panel: before a write", [
        KeyCommand([.character("y"), .character("Y")], "y", "run the statements shown", hint: "y run it") { panel, _, context in
            let effects: [PaneEffect] = panel.confirmedRun(catalog: context.catalog, id: context.ids.next(), stateFolder: context.stateFolder).map { [.command(.daoRun($0))] } ?? []
            return effects + panel.reveal(.results, context)
        },
        KeyCommand([.character("n"), .character("N"), .escape], "n Esc", "back to the form; nothing is written", hint: "n cancel") { panel, _, context in
            panel.stage = .form
            return panel.reveal(.field(panel.fieldCursor), context)
        },
        pageCommand,
    ], otherKeys: nil)

    /// Runs the form (Enter, Ctrl-R): its result, or the question before a write, in view.
    private mutating func runNow(_ context: PaneContext) -> [PaneEffect] {
        let effects: [PaneEffect] = run(catalog: context.catalog, id: context.ids.next()).map { [.command(.daoRun($0))] } ?? []
        return effects + reveal(stage == .confirm ? .confirm : .results, context)
    }

    /// Scrolls the least that shows `anchor`; no effect of its own.
    private mutating func reveal(_ anchor: Anchor, _ context: PaneContext) -> [PaneEffect] {
        reveal(anchor, width: context.paneWidth, height: DAOPanel.bodyHeight(paneHeight: context.bodyHeight))
        return []
    }

    /// Asks for the preview of the form as it is now.
    private mutating func preview(_ context: PaneContext) -> [PaneEffect] {
        refreshPreview(catalog: context.catalog, id: context.ids.next()).map { [.command(.daoQueryPlan($0))] } ?? []
    }

    /// SQLite's part of the preview came (see `previewed(id:plans:preparation:error:catalog:)`);
    /// a confirmation it brings is put in view.
    mutating func previewed(id: Int, plans: [[String]], preparation: TablePreparation?, error: String?, context: PaneContext) {
        let waiting = runWhenPreviewed
        previewed(id: id, plans: plans, preparation: preparation, error: error, catalog: context.catalog)
        if waiting, previewing == nil {
            reveal(stage == .confirm ? .confirm : .results, width: context.paneWidth,
                   height: DAOPanel.bodyHeight(paneHeight: context.bodyHeight))
        }
    }

    /// The result of a run: shown, and in view; after a write the preview is worked out again
    /// (the table may have been prepared). Returns nil for a run that is not this panel's.
    mutating func finished(id: Int, lines: [String], isError: Bool, context: PaneContext) -> [PaneEffect]? {
        let wasWrite = method.map { $0.kind != .select } ?? false
        guard finished(id: id, lines: lines, isError: isError) else { return nil }
        let effects = wasWrite ? preview(context) : []
        reveal(.results, width: context.paneWidth, height: DAOPanel.bodyHeight(paneHeight: context.bodyHeight))
        return effects
    }

    /// True when ↓ or Tab gives the keys to the results: the cursor is on the last field
    /// (or there is none) and there are results to scroll.
    private var showsResultsNext: Bool { fieldCursor >= fields.count - 1 && !resultLines.isEmpty }

    /// Draws the title, then the window of body lines that `scroll` selects (the title says
    /// which lines show when not all fit).
    func draw(into screen: inout ScreenGrid, area: PaneArea, focused: Bool) {
        let height = DAOPanel.bodyHeight(paneHeight: area.height)
        let lines = bodyLines(width: area.width)
        let first = DAOPanel.clamped(scroll, lineCount: lines.count, height: height)
        var title = self.title
        if lines.count > height {
            title += " · lines \(first + 1)–\(min(lines.count, first + height)) of \(lines.count) (PgUp/PgDn)"
        }
        title += " · " + storeName
        screen.fill(x: area.x, y: area.y, count: area.width, role: .gridHeader)
        screen.write(title, x: area.x, y: area.y, maxWidth: area.width, role: .gridHeader)
        for (offset, line) in lines.dropFirst(first).prefix(height).enumerated() {
            let y = area.y + 1 + offset
            guard y < area.y + area.height else { break }
            let fill: StyleRole = line.role == .gridHeader || line.role == .gridSelected || line.role == .dialog ? line.role : .grid
            screen.fill(x: area.x, y: y, count: area.width, role: fill)
            if line.isCut {
                screen.writeCut(line.text, x: area.x + line.indent, y: y, width: area.width - line.indent, role: line.role, markerRole: .marker)
            } else {
                screen.write(line.text, x: area.x + line.indent, y: y, maxWidth: area.width - line.indent, role: line.role)
            }
        }
    }
}

extension DAOPanel: Pane {}
