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
        if daoPanel?.running != nil {
            message = ("a DAO method is running: quit when it has ended", true)
            return
        }
        if review.committing != nil {
            message = ("committing: quit when it has been written", true)
            return
        }
        if exports.running != nil {
            message = ("an export is running: Esc cancels it, or quit when it has ended", true)
            return
        }
        if review.staged.isEmpty { isFinished = true } else { review.confirmingQuit = true }
    }
}
