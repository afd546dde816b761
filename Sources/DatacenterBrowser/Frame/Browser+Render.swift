import DatacenterKit
import Foundation
import DatacenterText

extension Browser {
    /// The smallest screen the browser draws on; smaller shows a notice.
    package static let minimumSize = (width: 30, height: 6)

    /// What a screen below `minimumSize` says, wrapped to its width: the longest wording
    /// whose lines fit its height, so the size needed is never the part cut off.
    private func tooSmallNotice() -> [String] {
        let need = "\(Browser.minimumSize.width)×\(Browser.minimumSize.height)"
        let wordings = ["Terminal too small (\(width)×\(height)): need \(need)", "Too small: need \(need)", "need \(need)"]
        let columns = max(1, width)
        return wordings.lazy.map { Inspector.wrapWords($0, width: columns) }.first { $0.count <= height } ?? [need]
    }

    /// Draws the whole screen: the frame (header, status line, help) and the panes, each
    /// drawing itself in its area. Drawing never changes state.
    package func render() -> ScreenGrid {
        var screen = ScreenGrid(width: width, height: height)
        guard width >= Browser.minimumSize.width, height >= Browser.minimumSize.height else {
            for y in 0..<height { screen.fill(x: 0, y: y, count: width, role: .dialog) }
            let lines = tooSmallNotice()
            let top = max(0, (height - lines.count) / 2)
            for (index, line) in lines.enumerated() where top + index < height {
                screen.write(line, x: 0, y: top + index, maxWidth: width, role: .dialog)
            }
            return screen
        }
        renderHeader(&screen)
        if treeWidth > 0 {
            tree.draw(into: &screen, area: layout.treeArea, focused: focus == .tree)
            for y in 1..<(height - 1) { screen.write("│", x: treeWidth, y: y, maxWidth: 1, role: .tree) }
        }
        let pane = paneArea
        if prompt?.purpose == .open { catalogSwitch.drawRecent(into: &screen, area: pane) }
        else if let help { help.draw(into: &screen, area: PaneArea(x: layout.treeWidth + 1, y: 1, width: width - layout.treeWidth - 1, height: bodyHeight), focused: true) }
        else if focus == .dao, let daoPanel { daoPanel.draw(into: &screen, area: pane, focused: true) }
        else if focus == .console, let console { console.draw(into: &screen, area: pane, focused: true) }
        else if focus == .review || review.confirmingQuit { review.draw(into: &screen, area: pane, focused: focus == .review) }
        else if let inspector { inspector.draw(into: &screen, area: pane, focused: focus == .inspector) }
        else if var grid {
            // The cells staged edits change show in the grid, not only in the count.
            grid.stagedMarks = Set(review.staged.compactMap(\.mark))
            grid.stagedValues = review.stagedValues
            grid.draw(into: &screen, area: pane, focused: focus == .grid)
        }
        else if let opening { screen.write("Opening \(opening.node.label)…", x: pane.x + 1, y: 2, maxWidth: pane.width - 2, role: .null) }
        else { screen.write("Select a business, table or cache on the left (Enter).", x: pane.x + 1, y: 2, maxWidth: pane.width - 2, role: .null) }
        renderStatus(&screen)
        return screen
    }

    private func renderHeader(_ screen: inout ScreenGrid) {
        screen.fill(x: 0, y: 0, count: width, role: .header)
        // What the grid shows, and from which store, comes before the root: a long path is
        // what gets cut.
        let title = " datacenter │ " + (headerSubject.map { $0 + " │ " } ?? "") + catalog.headerSummary
        screen.write(title, x: 0, y: 0, maxWidth: width, role: .header)
    }

    /// What the pane shown works on, and in which store (common, a user, version storage, and
    /// the file), for the header: the grid's table, the console's store, the DAO panel's
    /// table, or the stores the staged edits write. Nil when nothing is open.
    var headerSubject: String? {
        if focus == .review || review.confirmingQuit {
            var names: [String] = []
            for edit in review.staged where !names.contains(edit.storeName) { names.append(edit.storeName) }
            return "staged edits" + (names.isEmpty ? "" : " · " + names.joined(separator: ", "))
        }
        if focus == .console, let console { return "SQL console · " + console.storeName }
        if focus == .dao, let daoPanel { return "DAO " + daoPanel.table + " · " + catalog.storeName(for: daoPanel.storePath) }
        guard let grid else { return nil }
        // A query grid goes by its node's name: the console's SQL, or what `F`, `I`, `W` show.
        let title = grid.node.isQuery ? grid.node.label : grid.source.title
        return title + (grid.node.storePath.map { " · " + catalog.storeName(for: $0) } ?? "")
    }

    private func renderStatus(_ screen: inout ScreenGrid) {
        let y = height - 1
        if review.confirmingQuit {
            screen.fill(x: 0, y: y, count: width, role: .dialog)
            screen.write(review.quitQuestion, x: 0, y: y, maxWidth: width, role: .dialog)
            return
        }
        if let prompt {
            prompt.draw(into: &screen, y: y)
            return
        }
        if let searching = grid?.searchStatus {
            screen.fill(x: 0, y: y, count: width, role: .status)
            screen.write(searching, x: 0, y: y, maxWidth: width, role: .status)
            return
        }
        if let progress = exports.status, message == nil {
            screen.fill(x: 0, y: y, count: width, role: .status)
            screen.write(progress, x: 0, y: y, maxWidth: width, role: .status)
            return
        }
        if let message {
            screen.fill(x: 0, y: y, count: width, role: message.isError ? .error : .status)
            screen.write(" " + message.text, x: 0, y: y, maxWidth: width, role: message.isError ? .error : .status)
            return
        }
        screen.fill(x: 0, y: y, count: width, role: .status)
        if let opening = catalogSwitch.opening {
            screen.write(" opening \(opening.path)…", x: 0, y: y, maxWidth: width, role: .status)
            return
        }
        if let opening {
            // The grid is on its way: say so until it is in (keys go on meanwhile).
            let text = opening.isReload ? " reading \(opening.node.label) again…" : " opening \(opening.node.label)…"
            screen.write(text, x: 0, y: y, maxWidth: width, role: .status)
            return
        }
        var hints = statusHints.joined(separator: "  ")
        if focus == .grid, help == nil, !review.staged.isEmpty { hints = "\(review.staged.count) staged · w review · " + hints }
        hints = " " + hints
        let position = grid?.position ?? ""
        // The position matters more than the hints: it keeps its place (up to half the line),
        // and the hints are cut before it with `…`, a blank column between them.
        let positionWidth = min(TerminalText.width(of: position), width / 2)
        screen.writeCut(hints, x: 0, y: y, width: width - positionWidth - 1, role: .status)
        screen.writeCut(position, x: width - positionWidth, y: y, width: positionWidth, role: .status)
    }

    /// The status line's hints: the help's keys while it is shown, else `H help`, those of
    /// the pane with focus, then the frame's that apply there.
    var statusHints: [String] {
        if let help { return help.statusHints }
        let pane = focusedPane?.statusHints ?? []
        // The help's key first, where it is never cut; then the pane's, then the frame's.
        let frame = FrameKeys.applying(in: self)
        let help = frame.filter { $0.title == FrameKeys.everywhere.map.title }
        return help.flatMap(\.hints) + pane + frame.filter { $0.title != FrameKeys.everywhere.map.title }.flatMap(\.hints)
    }

    /// The pane with focus, if it is open.
    var focusedPane: (any Pane)? {
        switch focus {
        case .tree: return tree
        case .grid: return grid
        case .inspector: return inspector
        case .console: return console
        case .review: return review
        case .dao: return daoPanel
        }
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
