import Foundation

/// DAO databases the app keeps in files of their own (`daoWithPath:databasePath:`), given
/// as paths relative to the app's sandbox (`Documents/x.db`, `Library/Movie/x.db`).
///
/// **Decision**: a relative path resolves against the data-center root (the app's storage
/// here has no other sandbox), its missing folders are created (`0700`), and the file is
/// recorded, by its path relative to the root, in `datacenter.json` (`daoDatabases`), so the
/// root's walkers — `databaseFilePaths()`, a rekey, `datacenter overview`, the browser's
/// tree — list it with the stores. An absolute path is used as it is and not recorded (it
/// is outside the root's care, as a custom storage elsewhere is).
extension DataCenter {
    /// The file a DAO database path names, its folders created, recorded in the root when
    /// it lies under it (see above). A read-only data center resolves the path but creates
    /// and records nothing.
    /// - throws: `StorageError.badDAODatabasePath` for a relative path that climbs out of the
    ///   root or names no file; `FileAccessError` when a folder cannot be made;
    ///   `StorageError.badRootState` when the record cannot be written.
    public func daoDatabaseFile(_ databasePath: String) throws -> String {
        let expanded = (databasePath as NSString).expandingTildeInPath
        guard !expanded.hasPrefix("/") else {
            if !isReadOnly { try PrivateFile.createFolder(atPath: (expanded as NSString).deletingLastPathComponent) }
            return expanded
        }
        // `.` and `..` resolved by hand: a path that climbs out of the root is refused.
        var parts: [Substring] = []
        for part in expanded.split(separator: "/") where part != "." {
            if part == ".." {
                guard !parts.isEmpty else {
                    throw StorageError.badDAODatabasePath(path: databasePath, root: rootPath, reason: "it climbs out of the root")
                }
                parts.removeLast()
            } else {
                parts.append(part)
            }
        }
        guard !parts.isEmpty else {
            throw StorageError.badDAODatabasePath(path: databasePath, root: rootPath, reason: "it names no file")
        }
        let relative = parts.joined(separator: "/")
        let path = rootPath + "/" + relative
        guard !isReadOnly else { return path }
        try PrivateFile.createFolder(atPath: (path as NSString).deletingLastPathComponent)
        try guarded.withLock { guarded in
            var recorded = Set(guarded.state.daoDatabases ?? [])
            guard recorded.insert(relative).inserted else { return }
            var state = guarded.state
            state.daoDatabases = recorded.sorted()
            try state.save(to: stateFilePath)
            guarded.state = state
        }
        return path
    }

    /// The DAO database files recorded in the root (`daoDatabaseFile`) that exist, as
    /// absolute paths, sorted.
    public var daoDatabasePaths: [String] {
        DataCenter.recordedDAODatabasePaths(rootPath: rootPath, state: guarded.withLock { $0.state })
    }

    /// The recorded DAO database files of the root whose state is `state`, that exist.
    static func recordedDAODatabasePaths(rootPath: String, state: RootState?) -> [String] {
        (state?.daoDatabases ?? []).map { rootPath + "/" + $0 }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// The recorded DAO database files of the root at `rootPath` (its `datacenter.json` read
    /// now; none when it cannot be read).
    public static func recordedDAODatabasePaths(rootPath: String) -> [String] {
        recordedDAODatabasePaths(rootPath: rootPath, state: try? RootState.load(from: rootPath + "/datacenter.json"))
    }
}
