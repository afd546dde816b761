import DatacenterKit
import Foundation

/// Staged edits on their way to the files, as work for the command runner: one transaction
/// per store, in the order the edits were made, each on a read-write connection opened for
/// it that changes nothing but what the edits say (no tables created, the journal mode left
/// as it is). A store whose transaction fails is rolled back whole; it and the stores after
/// it are not written, and their edits stay staged (`ReviewPane.finished`).
///
/// With a state folder, each store written keeps the undo of its part of the commit there
/// (`UndoRecorder`, `UndoFile`), in place of its previous one; `Z` in the review stages it.
package struct StagedCommit: Sendable {
    /// The commit's id: its result carries it.
    let id: Int
    let edits: [StagedEdit]
    let keys: KeyRing
    /// The keys of encrypted store files.
    let databaseKeys: DatabaseKeyList
    let busyTimeout: Double
    /// Where the undo files are kept; nil keeps none.
    var stateFolder: URL?

    /// Writes the edits and returns `commitFinished` with the ids of those written, and why
    /// a store written keeps no undo, if one does not.
    func perform() -> BrowserEvent {
        var committed: [Int] = []
        var order: [String] = []
        var notes: [String] = []
        let commitID = UUID().uuidString
        for edit in edits where !order.contains(edit.storePath) { order.append(edit.storePath) }
        for path in order {
            let batch = edits.filter { $0.storePath == path }
            do {
                let store = try Store(existingAt: path, crypt: keys, busyTimeout: busyTimeout, databaseKeys: databaseKeys)
                let (_, note) = try UndoRecorder.transaction(on: store.queue, storePath: path, stateFolder: stateFolder, commitID: commitID) { db, recorder in
                    for edit in batch {
                        recorder?.willApply(edit, on: db)
                        try edit.apply(to: store, in: db, recorder: recorder)
                        recorder?.didApply(edit, on: db)
                    }
                }
                if let note { notes.append("\(batch[0].storeName): \(note)") }
                committed += batch.map(\.id)
            } catch {
                return .commitFinished(commitID: id, committed: committed, failure: "\(error)", undoNote: nil)
            }
        }
        return .commitFinished(commitID: id, committed: committed, failure: nil,
                               undoNote: notes.isEmpty ? nil : "no undo kept for " + notes.joined(separator: "; "))
    }
}
