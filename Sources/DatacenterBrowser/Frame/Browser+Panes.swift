import DatacenterKit
import Foundation

/// Opening and leaving the panes the frame owns: the DAO panel, the SQL console, and quitting.
extension Browser {
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

    /// Gives the keys to the console on the store at `path` (`ConsoleSession.show`).
    func showConsole(on path: String) {
        apply(consoleSession.show(on: path, catalog: catalog))
    }

    /// Quits, or first asks what to do with staged edits (they are never dropped unasked).
    /// A DAO method or a commit still running keeps the browser open until it ends.
    func requestQuit() {
        if let busy = busyWork { message = (busy + ": quit when it has ended", true); return }
        if review.staged.isEmpty { isFinished = true } else { review.confirmingQuit = true }
    }

    /// What runs and keeps the files browsed now in use, in words, if anything does: the
    /// browser neither quits nor opens another file until it has ended.
    var busyWork: String? {
        if review.committing != nil { return "a commit is running" }
        if daoPanel?.running != nil { return "a DAO method is running" }
        if exports.running != nil { return "an export is running (Esc cancels it)" }
        return nil
    }
}
