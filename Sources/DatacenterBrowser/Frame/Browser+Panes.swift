import DatacenterKit
import Foundation

/// Opening and leaving the panes the frame owns: the help, the DAO panel, the SQL console
/// (with its history kept per store), and quitting.
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

    /// Gives the keys to the console on the store at `path`: the one open, or a new one
    /// that keeps the history when the store is another (and the session's `.mode` and
    /// `.headers`).
    func showConsole(on path: String) {
        if console?.storePath != path {
            var fresh = ConsolePane(storePath: path, storeName: catalog.storeName(for: path), history: consoleHistory(of: path))
            if let old = console {
                fresh.mode = old.mode
                fresh.headers = old.headers
            }
            fresh.favourites = consoleFavourites()
            console = fresh
            commands.append(.consoleNames(storePath: path, catalog: catalog))
        }
        focus = .console
    }

    /// The console's history of the store at `path`: this session's, else the lines kept in
    /// the state folder (`ConsoleHistoryFile`); a file that cannot be used is reported and
    /// left for the next save to replace.
    func consoleHistory(of path: String) -> LineHistory {
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
    func keepConsoleHistory(_ pane: ConsolePane) {
        consoleHistories[pane.storePath] = pane.history
        guard let stateFolder else { return }
        do {
            try ConsoleHistoryFile(storePath: pane.storePath, stateFolder: stateFolder).save(pane.history.entries)
        } catch {
            message = ("console history not saved: \(error)", true)
        }
    }

    /// The favourite queries: this session's, else those kept in the state folder; a file
    /// that cannot be used is reported and left for the next save to replace.
    func consoleFavourites() -> ConsoleFavourites {
        if let kept = favourites { return kept }
        guard let stateFolder else { return ConsoleFavourites() }
        do {
            let loaded = try ConsoleFavourites.load(from: stateFolder)
            favourites = loaded
            return loaded
        } catch {
            message = ("\(error)", true)
            return ConsoleFavourites()
        }
    }

    /// Keeps the favourites after a save or delete: for this session, and in the state folder.
    func keepConsoleFavourites(_ kept: ConsoleFavourites) {
        favourites = kept
        guard let stateFolder else { return }
        do { try kept.save(to: stateFolder) } catch { message = ("console favourites not saved: \(error)", true) }
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
