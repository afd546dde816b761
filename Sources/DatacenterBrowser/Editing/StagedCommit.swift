import DatacenterKit
import Foundation

/// Staged edits on their way to the files, as work for the command runner: one transaction
/// per store, in the order the edits were made, each on a read-write connection opened for
/// it that changes nothing but what the edits say (no tables created, the journal mode left
/// as it is). A store whose transaction fails is rolled back whole; it and the stores after
/// it are not written, and their edits stay staged (`ReviewPane.finished`).
package struct StagedCommit: Sendable {
    /// The commit's id: its result carries it.
    let id: Int
    let edits: [StagedEdit]
    let keys: KeyRing
    /// The keys of encrypted store files.
    let databaseKeys: DatabaseKeyList
    let busyTimeout: Double

    /// Writes the edits and returns `commitFinished` with the ids of those written.
    func perform() -> BrowserEvent {
        var committed: [Int] = []
        var order: [String] = []
        for edit in edits where !order.contains(edit.storePath) { order.append(edit.storePath) }
        for path in order {
            let batch = edits.filter { $0.storePath == path }
            do {
                let store = try Store(existingAt: path, crypt: keys, busyTimeout: busyTimeout, databaseKeys: databaseKeys)
                try store.queue.inTransaction { db in
                    for edit in batch { try edit.apply(to: store, in: db) }
                }
                committed += batch.map(\.id)
            } catch {
                return .commitFinished(commitID: id, committed: committed, failure: "\(error)")
            }
        }
        return .commitFinished(commitID: id, committed: committed, failure: nil)
    }
}
