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
            inspector = nil
            focus = .dao
        } catch {
            message = ("\(error)", true)
        }
    }

    func daoKey(_ key: Key) {
        guard var panel = daoPanel else { focus = .tree; return }
        var close = false
        defer { daoPanel = close ? nil : panel }
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
        case .form:
            switch key {
            case .up, .backTab: panel.fieldCursor = max(0, panel.fieldCursor - 1)
            case .down, .tab: panel.fieldCursor = min(max(0, panel.fields.count - 1), panel.fieldCursor + 1)
            case .escape: panel.stage = .methods
            case .enter, .character("\u{12}"): panel.run(catalog: catalog)   // Enter or Ctrl-R
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
        case .confirm:
            switch key {
            case .character("y"), .character("Y"):
                panel.runConfirmed(catalog: catalog)
                // Show the change in the grid when it shows the same table.
                if let node = gridNode, case let .daoTable(_, table, _, _, _) = node.kind, table == panel.table {
                    let saved = panel
                    open(node)
                    panel = saved
                    focus = .dao
                }
            case .character("n"), .character("N"), .escape: panel.stage = .form
            default: break
            }
        }
    }
}

extension Browser {
    /// Draws the DAO panel in the right pane.
    func renderDAOPanel(_ panel: DAOPanel, _ screen: inout ScreenGrid) {
        let left = treeWidth + 1
        let paneWidth = width - left
        var y = 1
        func line(_ text: String, _ role: StyleRole, indent: Int = 0) {
            guard y < height - 1 else { return }
            screen.fill(x: left, y: y, count: paneWidth, role: role == .gridHeader || role == .gridSelected || role == .dialog ? role : .grid)
            screen.write(text, x: left + indent, y: y, maxWidth: paneWidth - indent, role: role)
            y += 1
        }
        func wrapped(_ label: String, _ text: String, _ role: StyleRole) {
            let body = Inspector.wrapWords(text, width: max(8, paneWidth - 11))
            for (i, part) in body.enumerated() { line((i == 0 ? label.padding(toLength: 10, withPad: " ", startingAt: 0) : String(repeating: " ", count: 10)) + " " + part, role) }
        }
        line(panel.title, .gridHeader)
        switch panel.stage {
        case .methods:
            for (index, method) in panel.config.methods.enumerated() {
                line(method.signature, index == panel.methodCursor ? .gridSelected : .grid, indent: 1)
            }
        case .form, .confirm:
            guard let method = panel.method else { return }
            line(method.signature, .grid, indent: 1)
            let labelWidth = min(20, (panel.fields.map { TerminalText.width(of: $0.name) }.max() ?? 0) + 2)
            for (index, field) in panel.fields.enumerated() {
                let label = (field.isRequired ? "$" : " ") + field.name
                let value = field.isNil ? "nil" : field.text + (index == panel.fieldCursor ? "▏" : "")
                let active = index == panel.fieldCursor && panel.stage == .form
                line(label.padding(toLength: labelWidth, withPad: " ", startingAt: 0) + ": " + value,
                     active ? .gridSelected : (field.isNil ? .null : .grid), indent: 1)
            }
            if panel.fields.isEmpty { line("(no arguments)", .null, indent: 1) }
            line("", .grid)
            if let error = panel.renderError {
                wrapped("error", error, .error)
            } else if panel.skipped {
                line("skipped: onVoid=quit applies, nothing will run", .marker, indent: 1)
            } else {
                for preview in panel.previews {
                    wrapped("SQL", preview.sql, .gridHeader)
                    wrapped("bindings", preview.bindings.isEmpty ? "(none)" : preview.bindings, .grid)
                    wrapped("inlined", preview.inlined, .grid)
                    wrapped("plan", preview.plan.joined(separator: "; "), .null)
                }
            }
            if panel.stage == .confirm {
                line("", .grid)
                line("Run \(method.kind.rawValue) \(method.id) on \((panel.storePath as NSString).lastPathComponent)? It writes to the file. (y/n)", .dialog, indent: 1)
            } else if !panel.resultLines.isEmpty {
                line("", .grid)
                for result in panel.resultLines { line(result, panel.resultIsError ? .error : .decrypted, indent: 1) }
            }
        }
    }
}
