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

    /// One key, in a pane `context.paneWidth` wide and `context.bodyHeight` tall.
    mutating func handle(_ key: Key, context: PaneContext) -> [PaneEffect] {
        let (width, height) = (context.paneWidth, DAOPanel.bodyHeight(paneHeight: context.bodyHeight))
        switch key {
        case .pageDown:
            scroll(by: max(1, height - 1), width: width, height: height)
            return []
        case .pageUp:
            scroll(by: -max(1, height - 1), width: width, height: height)
            return []
        default: break
        }
        if running != nil { return [.message("running \(method?.id ?? "the method")…: its result comes next", isError: false)] }
        let catalog = context.catalog
        var effects: [PaneEffect] = []
        var reveal: Anchor?
        switch stage {
        case .form where resultsFocused:
            // The results have the keys: they scroll; Tab, Shift-Tab or Esc give the form back.
            let lines = bodyLines(width: width)
            switch key {
            case .up, .character("k"): scroll(by: -1, width: width, height: height)
            case .down, .character("j"): scroll(by: 1, width: width, height: height)
            case .left, .character("h"): resultShift = max(0, resultShift - 8)
            case .right, .character("l"): resultShift = min(maximumResultShift(width: width), resultShift + 8)
            case .home, .character("g"):
                scroll = DAOPanel.clamped(lines.firstIndex { $0.anchor == .results } ?? 0, lineCount: lines.count, height: height)
            case .end, .character("G"): scroll = DAOPanel.clamped(lines.count, lineCount: lines.count, height: height)
            case .tab, .backTab, .escape:
                resultsFocused = false
                reveal = .field(fieldCursor)
            case .enter, .character("\u{12}"):                           // Enter or Ctrl-R: run again
                resultsFocused = false
                if let run = run(catalog: catalog, id: context.ids.next()) { effects.append(.command(.daoRun(run))) }
                reveal = stage == .confirm ? .confirm : .results
            default: break
            }
        case .methods:
            switch key {
            case .up, .character("k"): methodCursor = max(0, methodCursor - 1)
            case .down, .character("j"): methodCursor = min(max(0, config.methods.count - 1), methodCursor + 1)
            case .enter, .right:
                if let preview = chooseMethod(catalog: catalog, id: context.ids.next()) { effects.append(.command(.daoQueryPlan(preview))) }
            case .escape, .character("q"), .left: return [.close, .focus(.grid)]
            default: break
            }
            reveal = stage == .methods ? .method(methodCursor) : .field(fieldCursor)
        case .form:
            reveal = .field(fieldCursor)
            switch key {
            case .up, .backTab: fieldCursor = max(0, fieldCursor - 1)
            case .down where showsResultsNext, .tab where showsResultsNext:
                // Past the last field: the results take the keys, to scroll them.
                resultsFocused = true
                reveal = .results
            case .down, .tab: fieldCursor = min(max(0, fields.count - 1), fieldCursor + 1)
            case .escape:
                stage = .methods
                scroll = 0
            case .enter, .character("\u{12}"):                           // Enter or Ctrl-R
                if let run = run(catalog: catalog, id: context.ids.next()) { effects.append(.command(.daoRun(run))) }
                reveal = stage == .confirm ? .confirm : .results
            case .character("\u{e}"):                                     // Ctrl-N: nil
                guard fields.indices.contains(fieldCursor) else { break }
                if fields[fieldCursor].isRequired {
                    effects.append(.message("$\(fields[fieldCursor].name) must not be nil", isError: true))
                } else {
                    fields[fieldCursor].isNil.toggle()
                    effects += preview(context)
                }
            default:
                // Everything else edits the field: typing, the cursor keys, Ctrl-A/E/U/W/K.
                guard fields.indices.contains(fieldCursor) else { break }
                let outcome = fields[fieldCursor].editor.handle(key)
                fields[fieldCursor].editor.followCursor(width: fieldRoom(width: width) - 1)
                // Typing into a nil field, or Backspace on it, makes it a value again.
                if outcome == .edited || (key == .backspace && fields[fieldCursor].isNil) {
                    fields[fieldCursor].isNil = false
                    effects += preview(context)
                }
            }
            if case .field = reveal { reveal = .field(fieldCursor) }
        case .confirm:
            switch key {
            case .character("y"), .character("Y"):
                if let run = confirmedRun(catalog: catalog, id: context.ids.next()) { effects.append(.command(.daoRun(run))) }
                reveal = .results
            case .character("n"), .character("N"), .escape:
                stage = .form
                reveal = .field(fieldCursor)
            default: break
            }
        }
        if let reveal { self.reveal(reveal, width: width, height: height) }
        return effects
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

    /// The status line's key hints for the stage.
    var hints: String {
        if running != nil { return " running… PgUp PgDn scroll" }
        switch stage {
        case .form where resultsFocused: return " ↑↓ scroll  ←→ sideways  PgUp PgDn page  Home End  Tab form  Enter run again"
        case .form: return " type a JSON value (\"strings\" quoted)  ↑↓ Tab field, then output  Ctrl-N nil  Enter run  Esc methods"
        case .confirm: return " y run it  n cancel"
        case .methods: return " ↑↓ choose  Enter form  Esc back"
        }
    }

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

extension DAOPanel: Pane {
    static let keyHelp = [
        "  d              DAO methods of a DAO table: form, SQL preview, run;",
        "                 PgUp PgDn scroll; ↓ or Tab past the last field:",
        "                 its output (↑↓ ←→ Home End scroll, Tab back)",
    ]
}
