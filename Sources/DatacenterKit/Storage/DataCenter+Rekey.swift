import Foundation

extension DataCenter {
    /// One store a rekey works on.
    public struct RekeyTarget: Sendable, Equatable {
        /// A name for people: `common`, `user alice`, `version storage`, `version storage, user
        /// alice`, `caches`, `caches, user alice`, `temporary caches`, `storage PATH`, or the
        /// path relative to the root of a store found elsewhere under it.
        public let name: String
        /// The store's file.
        public let path: String
        /// True when the file is where the layout puts a store (so a file there that is not
        /// one is an error); false for a `.sqlite` file found elsewhere, skipped unless it is a
        /// store.
        public let isLaidOut: Bool
    }

    /// Every store of the root at `rootPath`, in the order a rekey does them: the common
    /// store, each user's, the version storage's, the disk-cache files (`<root>/Caches`, and
    /// the temporary folder's for `TMP.` caches), any other store under the root (a custom
    /// storage kept there), then the custom storages at `customStorages` (folders anywhere).
    /// Symbolic links are not followed.
    public static func rekeyTargets(rootPath: String, customStorages: [String] = []) -> [RekeyTarget] {
        var targets: [RekeyTarget] = []
        var seen: Set<String> = []
        func add(_ name: String, _ path: String, laidOut: Bool) {
            let standard = URL(fileURLWithPath: path).standardizedFileURL.path
            guard !seen.contains(standard), isRegularFile(standard) else { return }
            seen.insert(standard)
            targets.append(RekeyTarget(name: name, path: standard, isLaidOut: laidOut))
        }
        /// A space's common store and users' stores (`<folder>/common.sqlite`, `users/*/<file>`).
        func addSpace(_ folder: String, _ label: String, common: String, userFile: String) {
            add(label, folder + "/" + common, laidOut: true)
            let users = folder + "/users"
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: users)) ?? []).sorted()
            let ids = names.compactMap { name in UserFolderName.decode(name).map { (name, $0) } }.sorted { $0.1 < $1.1 }
            for (folderName, id) in ids {
                let prefix = label == "common" ? "" : label + ", "
                add(prefix + "user \(id)", users + "/" + folderName + "/" + userFile, laidOut: true)
            }
        }
        addSpace(rootPath, "common", common: "common.sqlite", userFile: "user.sqlite")
        addSpace(rootPath + "/version", "version storage", common: "common.sqlite", userFile: "user.sqlite")
        addSpace(rootPath + "/Caches", "caches", common: "lru.sqlite", userFile: "lru.sqlite")
        // The temporary folder's name hashes the root's path as the app spelled it: try it as
        // given and in its absolute form.
        for spelling in [rootPath, URL(fileURLWithPath: rootPath).standardizedFileURL.path] {
            let space = StorageSpace(root: spelling, crypt: KeyRing.empty, readOnly: true)
            guard let file = try? LRUDiskCache.storePath(location: .temporary, root: spelling, user: nil, space: space) else { continue }
            addSpace((file as NSString).deletingLastPathComponent, "temporary caches", common: "lru.sqlite", userFile: "lru.sqlite")
        }
        for path in recordedDAODatabasePaths(rootPath: rootPath) {
            add("DAO database " + String(path.dropFirst(rootPath.count + 1)), path, laidOut: true)
        }
        for relative in sqliteFiles(under: rootPath) {
            add(relative, rootPath + "/" + relative, laidOut: false)
        }
        for storage in customStorages {
            addSpace(storage, "storage \(storage)", common: "common.sqlite", userFile: "user.sqlite")
        }
        return targets
    }

    /// Re-encrypts everything the root at `rootPath` holds under its default key — KV values,
    /// encrypted disk caches, encrypted file and object services, in every store (common,
    /// users, version storage, cache files, custom storages under the root and at
    /// `customStorages`), plus what `passes` add (DAO crypt columns: `DAOCryptColumnsRekey`)
    /// — from the keys of `current` to `new`.
    ///
    /// Each store is one transaction: it moves entirely to the new key or, when some value
    /// does not open with the keys given (or the process dies), stays as it was; the other
    /// stores go on. Values already under the new key (in their format) are recognized and
    /// left alone, so a rerun with the same keys finishes an interrupted rekey, and a rerun
    /// of a finished one changes nothing (`RekeySummary.wasAlreadyDone`). KV values are
    /// rewritten bound to their place (format 2 of FORMAT.md), other kinds unbound (format 1),
    /// as each kind is read. Whole-database keys are not this: see `DatabaseKey`.
    ///
    /// Open `DataCenter`s of the root keep their old crypt: reopen them with the new key.
    /// - parameter databaseKeys: the keys of the root's encrypted SQLite files (its database
    ///   keys are not changed here: they open the files).
    /// - parameter progress: called as stores start and finish, and every few hundred values.
    public static func rekey(rootPath: String, from current: KeyRing, to new: EncryptionKey, customStorages: [String] = [],
                             passes: [any StoreRekeyPass] = [], busyTimeout: TimeInterval = 5,
                             databaseKeys: DatabaseKeyList = .empty,
                             progress: ((RekeyProgress) -> Void)? = nil) -> RekeySummary {
        let targets = rekeyTargets(rootPath: rootPath, customStorages: customStorages)
        let crypt = RekeyCrypt(current: current, new: new)
        var results: [StoreRekeyResult] = []
        for (index, target) in targets.enumerated() {
            var values = 0
            progress?(RekeyProgress(storesDone: index, storeCount: targets.count, store: target.name, values: 0))
            do {
                let tallies = try StoreRekey.run(path: target.path, crypt: crypt, passes: passes, mustBeStore: target.isLaidOut,
                                                 busyTimeout: busyTimeout, databaseKeys: databaseKeys) {
                    values += 1
                    if values % 256 == 0 {
                        progress?(RekeyProgress(storesDone: index, storeCount: targets.count, store: target.name, values: values))
                    }
                }
                if let tallies { results.append(StoreRekeyResult(name: target.name, path: target.path, tallies: tallies)) }
            } catch {
                results.append(StoreRekeyResult(name: target.name, path: target.path, tallies: [], error: "\(error)"))
            }
        }
        progress?(RekeyProgress(storesDone: targets.count, storeCount: targets.count, store: targets.last?.name ?? "", values: 0))
        return RekeySummary(stores: results)
    }

    /// Relative paths of the regular `.sqlite` files under `root`, sorted; symbolic links are
    /// neither followed nor listed.
    private static func sqliteFiles(under root: String) -> [String] {
        guard let walk = FileManager.default.enumerator(atPath: root) else { return [] }
        var found: [String] = []
        for case let relative as String in walk where relative.hasSuffix(".sqlite") {
            if isRegularFile(root + "/" + relative) { found.append(relative) }
        }
        return found.sorted()
    }

    /// True when `path` is a regular file itself (not a link to one).
    private static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }
}
