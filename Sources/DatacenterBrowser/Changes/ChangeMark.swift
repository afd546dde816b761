import DatacenterChanges
import DatacenterKit
import Foundation

/// The browser's mark (`m`): a snapshot of the root or file browsed (`StoreSnapshot`),
/// kept private in the browser's state folder, never beside the stores, and removed when
/// the mark moves, another root is opened, or the browser quits. `M` shows what changed
/// since (`ChangesSummarySource`).
package struct ChangeMark: Sendable, Equatable {
    /// The snapshot's folder.
    package let folder: String
    /// The root or file marked.
    package let live: String
    /// When it was taken.
    package let taken: Date
    /// How many stores it holds.
    package let stores: Int
    /// Its size in bytes.
    package let bytes: Int64

    /// The folder, in the state folder, that holds the marks.
    static func marksFolder(in state: URL) -> String { state.appendingPathComponent("marks").path }

    /// Takes a mark of `live` into a new folder under `state`'s marks (`0700`), first
    /// removing the marks left by browsers that no longer run (killed).
    /// - throws: `ChangeError`, or what opening a store throws; nothing is left behind.
    static func take(of live: String, catalog: BrowserCatalog, state: URL,
                     progress: (StoreSnapshot.Step) -> Void) throws -> ChangeMark {
        let marks = marksFolder(in: state)
        try PrivateFile.createFolder(atPath: state.path)
        try PrivateFile.createFolder(atPath: marks)
        removeStale(in: marks)
        let folder = marks + "/mark-\(getpid())-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let source = try ChangeSource.at(live, keys: catalog.keys, databaseKeys: catalog.databaseKeys, busyTimeout: catalog.busyTimeout)
        let manifest = try StoreSnapshot.take(of: source, to: folder, databaseKeys: catalog.databaseKeys, busyTimeout: catalog.busyTimeout,
                                              progress: progress)
        return ChangeMark(folder: folder, live: live, taken: manifest.created, stores: manifest.stores.count,
                          bytes: manifest.stores.reduce(0) { $0 + $1.bytes })
    }

    /// Removes the mark's folder.
    func remove() { try? FileTree.remove(atPath: folder) }

    /// Removes the marks in `marks` whose browser no longer runs (`mark-<pid>-…`): one
    /// killed leaves its mark, which the next browser removes as it starts or marks.
    static func removeStale(in marks: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: marks)) ?? [] where name.hasPrefix("mark-") {
            guard let pid = name.split(separator: "-").dropFirst().first.flatMap({ pid_t($0) }), pid > 0, pid != getpid(),
                  kill(pid, 0) == -1, errno == ESRCH else { continue }
            try? FileTree.remove(atPath: marks + "/" + name)
        }
        PartialFiles.removeStale(inFolder: marks)
    }
}
