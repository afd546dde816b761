import Foundation

/// The SQL console and what it keeps: the pane (kept when it loses focus, so its output and
/// history stay), each store's history of this session, and the favourite queries; both
/// read from the state folder when first needed and saved there when they change. A file
/// that cannot be used is reported and left for the next save to replace.
struct ConsoleSession {
    /// The console, once opened.
    var pane: ConsolePane?
    /// The console's history of each store it was opened on this session, by file path: a
    /// store's lines come back when the console returns to it.
    private var histories: [String: LineHistory] = [:]
    /// The favourite queries once read or changed this session.
    private var favourites: ConsoleFavourites?
    /// Where histories and favourites are kept between sessions; nil: nowhere.
    let stateFolder: URL?

    /// A session keeping what it remembers in `stateFolder`, if any.
    init(stateFolder: URL?) {
        self.stateFolder = stateFolder
    }

    /// Gives the keys to the console on the store at `path`: the one open, or a new one
    /// that keeps the history when the store is another (and the session's `.mode` and
    /// `.headers`).
    mutating func show(on path: String, catalog: BrowserCatalog) -> [PaneEffect] {
        guard pane?.storePath != path else { return [.focus(.console)] }
        var effects: [PaneEffect] = []
        var fresh = ConsolePane(storePath: path, storeName: catalog.storeName(for: path), history: history(of: path, &effects))
        if let old = pane {
            fresh.mode = old.mode
            fresh.headers = old.headers
        }
        fresh.favourites = loadedFavourites(&effects)
        pane = fresh
        return effects + [.command(.consoleNames(storePath: path, catalog: catalog)), .focus(.console)]
    }

    /// Keeps what a key changed in the console: its history (this session's, and in the state
    /// folder for the next, a few kilobytes written whole) and the favourites.
    mutating func keep(historyBefore: [String]?, favouritesBefore: ConsoleFavourites?) -> [PaneEffect] {
        guard let pane else { return [] }
        var effects: [PaneEffect] = []
        if pane.history.entries != historyBefore {
            histories[pane.storePath] = pane.history
            if let stateFolder {
                do { try ConsoleHistoryFile(storePath: pane.storePath, stateFolder: stateFolder).save(pane.history.entries) } catch {
                    effects.append(.message("console history not saved: \(error)", isError: true))
                }
            }
        }
        if pane.favourites != favouritesBefore {
            favourites = pane.favourites
            if let stateFolder {
                do { try pane.favourites.save(to: stateFolder) } catch {
                    effects.append(.message("console favourites not saved: \(error)", isError: true))
                }
            }
        }
        return effects
    }

    /// The history of the store at `path`: this session's, else the lines kept in the state
    /// folder (`ConsoleHistoryFile`).
    private func history(of path: String, _ effects: inout [PaneEffect]) -> LineHistory {
        if let kept = histories[path] { return kept }
        guard let stateFolder else { return LineHistory() }
        do {
            return LineHistory(entries: try ConsoleHistoryFile(storePath: path, stateFolder: stateFolder).load())
        } catch {
            effects.append(.message("\(error)", isError: true))
            return LineHistory()
        }
    }

    /// The favourites: this session's, else those kept in the state folder.
    private mutating func loadedFavourites(_ effects: inout [PaneEffect]) -> ConsoleFavourites {
        if let favourites { return favourites }
        guard let stateFolder else { return ConsoleFavourites() }
        do {
            let loaded = try ConsoleFavourites.load(from: stateFolder)
            favourites = loaded
            return loaded
        } catch {
            effects.append(.message("\(error)", isError: true))
            return ConsoleFavourites()
        }
    }
}
