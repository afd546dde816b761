import DatacenterDAO
import DatacenterKit
import Foundation

/// The DAO panel inside the browser: opening it, its keys and its drawing.
extension Browser {
    /// Opens the DAO methods of the DAO table under the tree cursor (or shown in the grid).
    func openDAOPanel() {
        let nodes = visibleTree
        let candidate = focus == .tree && nodes.indices.contains(treeCursor) ? nodes[treeCursor].node : gridNode
        guard let node = candidate, case let .daoTable(store, table, encrypted, module, configPath) = node.kind else {
            message = ("d opens the methods of a DAO table: select one first", true)
            return
        }
        do {
            let config = try catalog.config(module: module, recordedPath: configPath)
            daoPanel = DAOPanel(table: table, storePath: store, config: config, encryptedColumns: Set(encrypted))
            daoPanel?.storeName = catalog.storeName(for: store)
            inspector = nil
            focus = .dao
        } catch {
            message = ("\(error)", true)
        }
    }

    /// The DAO panel's pane: its width, and the height of its body (below the title).
    var daoPaneSize: (width: Int, height: Int) { (width - treeWidth - 1, max(1, height - 3)) }

    func daoKey(_ key: Key) {
        guard var panel = daoPanel else { focus = .tree; return }
        var close = false
        defer { daoPanel = close ? nil : panel }
        let pane = daoPaneSize
        switch key {
        case .pageDown:
            panel.scroll(by: max(1, pane.height - 1), width: pane.width, height: pane.height)
            return
        case .pageUp:
            panel.scroll(by: -max(1, pane.height - 1), width: pane.width, height: pane.height)
            return
        default: break
        }
        var reveal: DAOPanel.Anchor?
        switch panel.stage {
        case .methods:
            switch key {
            case .up, .character("k"): panel.methodCursor = max(0, panel.methodCursor - 1)
            case .down, .character("j"): panel.methodCursor = min(max(0, panel.config.methods.count - 1), panel.methodCursor + 1)
            case .enter, .right: panel.chooseMethod(catalog: catalog)
            case .escape, .character("q"), .left:
                close = true
                focus = grid == nil ? .tree : .grid
            default: break
            }
            reveal = panel.stage == .methods ? .method(panel.methodCursor) : .field(panel.fieldCursor)
        case .form:
            reveal = .field(panel.fieldCursor)
            switch key {
            case .up, .backTab: panel.fieldCursor = max(0, panel.fieldCursor - 1)
            case .down, .tab: panel.fieldCursor = min(max(0, panel.fields.count - 1), panel.fieldCursor + 1)
            case .escape:
                panel.stage = .methods
                panel.scroll = 0
            case .enter, .character("\u{12}"):                           // Enter or Ctrl-R
                panel.run(catalog: catalog)
                reveal = panel.stage == .confirm ? .confirm : .results
            case .character("\u{e}"):                                     // Ctrl-N: nil
                guard panel.fields.indices.contains(panel.fieldCursor) else { break }
                if panel.fields[panel.fieldCursor].isRequired {
                    message = ("$\(panel.fields[panel.fieldCursor].name) must not be nil", true)
                } else {
                    panel.fields[panel.fieldCursor].isNil.toggle()
                    panel.refreshPreview(catalog: catalog)
                }
            case .backspace:
                guard panel.fields.indices.contains(panel.fieldCursor) else { break }
                panel.fields[panel.fieldCursor].isNil = false
                _ = panel.fields[panel.fieldCursor].text.popLast()
                panel.refreshPreview(catalog: catalog)
            case .character(let c) where !c.unicodeScalars.contains(where: { $0.value < 0x20 }):
                guard panel.fields.indices.contains(panel.fieldCursor) else { break }
                panel.fields[panel.fieldCursor].isNil = false
                panel.fields[panel.fieldCursor].text.append(c)
                panel.refreshPreview(catalog: catalog)
            default: break
            }
            if case .field = reveal { reveal = .field(panel.fieldCursor) }
        case .confirm:
            switch key {
            case .character("y"), .character("Y"):
                panel.runConfirmed(catalog: catalog)
                reveal = .results
                // Show the change in the grid when it shows the same table.
                if let node = gridNode, case let .daoTable(_, table, _, _, _) = node.kind, table == panel.table {
                    let saved = panel
                    open(node)
                    panel = saved
                    focus = .dao
                }
            case .character("n"), .character("N"), .escape:
                panel.stage = .form
                reveal = .field(panel.fieldCursor)
            default: break
            }
        }
        if let reveal, !close { panel.reveal(reveal, width: pane.width, height: pane.height) }
    }
}

extension Browser {
    /// Draws the DAO panel in the right pane: the title, then the window of its body lines
    /// that `scroll` selects (the title says which lines show when not all fit).
    func renderDAOPanel(_ panel: DAOPanel, _ screen: inout ScreenGrid) {
        let left = treeWidth + 1
        let pane = daoPaneSize
        let lines = panel.bodyLines(width: pane.width)
        let first = DAOPanel.clamped(panel.scroll, lineCount: lines.count, height: pane.height)
        var title = panel.title
        if lines.count > pane.height {
            title += " · lines \(first + 1)–\(min(lines.count, first + pane.height)) of \(lines.count) (PgUp/PgDn)"
        }
        title += " · " + panel.storeName
        screen.fill(x: left, y: 1, count: pane.width, role: .gridHeader)
        screen.write(title, x: left, y: 1, maxWidth: pane.width, role: .gridHeader)
        for (offset, line) in lines.dropFirst(first).prefix(pane.height).enumerated() {
            let y = 2 + offset
            guard y < height - 1 else { break }
            let fill: StyleRole = line.role == .gridHeader || line.role == .gridSelected || line.role == .dialog ? line.role : .grid
            screen.fill(x: left, y: y, count: pane.width, role: fill)
            screen.write(line.text, x: left + line.indent, y: y, maxWidth: pane.width - line.indent, role: line.role)
        }
    }
}
