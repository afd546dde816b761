import Foundation

extension DataCenter {
    /// Moves every SQLite file of the root at `rootPath` to the database key `newKey`: plain
    /// files are encrypted (mPaaS's `setPassword`: the data copied into a new encrypted file),
    /// encrypted ones rekeyed from whichever of `current` opens them, and the root's
    /// `datacenter.json` then records the new format. Value keys are not this: see `rekey`.
    ///
    /// The files are those `rekeyTargets` lists (the common store, users, version storage,
    /// cache files, stores kept under the root, and the custom storages at `customStorages`).
    /// Each file is replaced whole by a rename once its copy is complete, checked and synced
    /// (`DatabaseFileConversion`), so a file is always all old key or all new key, whatever
    /// stops the run; and files already under `newKey` are recognized, so a rerun with the same
    /// keys (the new one among `current` or not) finishes an interrupted run. A file that fails
    /// is reported and left as it was; the others go on, and the record is written only when
    /// none failed. The stores must not be in use: a file another connection holds fails
    /// with `inUse`.
    /// - parameter progress: called before each file with its index, the count and its name.
    public static func rekeyDatabases(rootPath: String, from current: DatabaseKeyList, to newKey: DatabaseKey,
                                      customStorages: [String] = [], busyTimeout: TimeInterval = 5,
                                      progress: ((_ index: Int, _ count: Int, _ name: String) -> Void)? = nil) throws
        -> [DatabaseRekeyResult] {
        let statePath = rootPath + "/datacenter.json"
        var state = try RootState.load(from: statePath)
        let withNew = DatabaseKeyList([newKey] + current.keys.filter { $0 != newKey })
        var results: [DatabaseRekeyResult] = []
        let targets = rekeyTargets(rootPath: rootPath, customStorages: customStorages)
        // Encrypting a plain root: recorded before the first file is touched, so a run that
        // stops midway is known for one (and a damaged file in a plain root is not taken
        // for one).
        if state.databaseEncryption == nil, state.databaseEncryptionBegun == nil {
            state.databaseEncryptionBegun = RootDatabaseEncryption(format: newKey.format)
            try state.save(to: statePath)
        }
        for (index, target) in targets.enumerated() {
            progress?(index, targets.count, target.name)
            let outcome: DatabaseRekeyResult.Outcome?
            do {
                outcome = try rekeyDatabase(target, keys: withNew, to: newKey, busyTimeout: busyTimeout)
            } catch {
                outcome = .failed("\(error)")
            }
            if let outcome { results.append(DatabaseRekeyResult(name: target.name, path: target.path, outcome: outcome)) }
        }
        progress?(targets.count, targets.count, "")
        if results.allSatisfy({ $0.failure == nil }) {
            state.databaseEncryption = RootDatabaseEncryption(format: newKey.format)
            state.databaseEncryptionBegun = nil
            try state.save(to: statePath)
        }
        return results
    }

    /// Moves one file to `newKey`; `keys` holds the new key first, then the current ones.
    /// Nil for a file that is none of the root's to move (a plain non-store found under it).
    private static func rekeyDatabase(_ target: RekeyTarget, keys: DatabaseKeyList, to newKey: DatabaseKey,
                                      busyTimeout: TimeInterval) throws -> DatabaseRekeyResult.Outcome? {
        switch try DatabaseFileKind.of(path: target.path) {
        case .missing, .empty:
            return .alreadyDone
        case .plain:
            // A plain SQLite file found under the root that is no store is the app's own: left alone.
            if !target.isLaidOut {
                let isStore = try Database(path: target.path, mode: .readOnly, busyTimeout: busyTimeout)
                    .scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'datacenter_meta'", cached: false) != nil
                if !isStore { return nil }
            }
            try DatabaseFileConversion.encryptInPlace(path: target.path, key: newKey, busyTimeout: busyTimeout)
            return .encrypted
        case .encryptedOrNotADatabase:
            // Which key opens it: the connection is closed before the file is replaced.
            let key = try keys.open(path: target.path, mode: .readOnly, busyTimeout: busyTimeout).key
            if key == newKey { return .alreadyDone }
            try DatabaseFileConversion.rekey(path: target.path, keys: keys, to: newKey, busyTimeout: busyTimeout)
            return .rekeyed
        }
    }
}
