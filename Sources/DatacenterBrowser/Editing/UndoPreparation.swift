import DatacenterKit
import Foundation

/// The work of `Z` in the review, off the input loop: finds the undo files (`UndoFile`) of
/// the catalog's stores, takes those of the last commit, and tries them on their stores in a
/// transaction it rolls back. When every row is as the commit left it, the undo comes back
/// as one staged edit per store, for the review; otherwise as a refusal naming the rows
/// that changed since. Nothing is written either way.
package struct UndoPreparation: Sendable {
    /// The request's id: its result carries it.
    let id: Int
    /// Where the undo files are.
    let stateFolder: URL
    /// The stores browsed, their keys and lock timeout.
    let catalog: BrowserCatalog

    /// How many statements of an undo the review shows.
    static let previewCount = 6

    /// Works it out and returns `undoPrepared`.
    func perform() -> BrowserEvent {
        do {
            return .undoPrepared(requestID: id, edits: try prepare(), refusal: nil)
        } catch {
            return .undoPrepared(requestID: id, edits: [], refusal: "\(error)")
        }
    }

    /// An undo file found, and what it says.
    private struct Found {
        let store: String
        let file: String
        let commit: UndoFile.Commit
        let previews: [String]
    }

    private func prepare() throws -> [StagedEdit] {
        var found: [Found] = []
        for store in catalog.storePaths {
            let file = UndoFile.path(storePath: store, stateFolder: stateFolder)
            guard FileManager.default.fileExists(atPath: file) else { continue }
            let undo = try UndoFile.open(path: file, key: try catalog.store(at: store).databaseKey)
            defer { undo.close() }
            let commit = try UndoFile.commit(in: undo)
            // The same file however its path was spelt (`browse demo`, then `browse ~/demo`).
            guard StateFolder.sameFile(commit.storePath, store) else { continue }
            found.append(Found(store: store, file: file, commit: commit, previews: try UndoFile.previews(in: undo, limit: Self.previewCount)))
        }
        guard let last = found.max(by: { $0.commit.committedAt < $1.commit.committedAt }) else {
            throw BrowserEditError(message: "no commit to undo here: each commit keeps its undo (in the state folder) until the store's next commit")
        }
        let when = Self.time(of: last.commit)
        let chosen = found.filter { $0.commit.id == last.commit.id && $0.commit.statements > 0 }
        guard !chosen.isEmpty else { throw BrowserEditError(message: "the last commit (\(when)) changed no row: there is nothing to undo") }
        var changed: [String] = []
        for item in chosen { changed += try tryOut(item) }
        guard changed.isEmpty else {
            throw BrowserEditError(message: "Z refused, nothing staged: \(changed.count) row(s) changed since the commit of \(when): "
                                   + UndoFile.naming(changed))
        }
        return chosen.map { item in
            let more = item.commit.statements - item.previews.count
            let preview = "undo the commit of \(when), \(item.commit.statements) statement(s): " + item.previews.joined(separator: "; ")
                + (more > 0 ? "; … and \(more) more" : "")
            return StagedEdit(storePath: item.store, action: .applyUndo(file: item.file, commitID: item.commit.id), preview: preview,
                              target: "undo")
        }
    }

    /// Plays the undo on its store in a transaction rolled back; returns the rows that
    /// changed since the commit.
    private func tryOut(_ item: Found) throws -> [String] {
        let store = try Store(existingAt: item.store, crypt: catalog.keys, busyTimeout: catalog.busyTimeout, databaseKeys: catalog.databaseKeys)
        defer { store.queue.close() }
        let undo = try UndoFile.open(path: item.file, key: store.databaseKey)
        defer { undo.close() }
        var changed: [String] = []
        do {
            try store.queue.inTransaction { db in
                changed = try UndoFile.run(undo, on: db, dryRun: true)
                throw RolledBack()
            }
        } catch is RolledBack {}
        return changed
    }

    /// Ends the trial transaction.
    private struct RolledBack: Error {}

    /// When the commit was written, as the review names it: the time of day, and the date
    /// when it was not today.
    static func time(of commit: UndoFile.Commit) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = Calendar.current.isDateInToday(commit.committedAt) ? "HH:mm:ss" : "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: commit.committedAt)
    }

    /// True when a store of `catalog` keeps the undo of a commit in `stateFolder`.
    static func hasUndo(catalog: BrowserCatalog, stateFolder: URL?) -> Bool {
        guard let stateFolder else { return false }
        return catalog.storePaths.contains { FileManager.default.fileExists(atPath: UndoFile.path(storePath: $0, stateFolder: stateFolder)) }
    }
}
