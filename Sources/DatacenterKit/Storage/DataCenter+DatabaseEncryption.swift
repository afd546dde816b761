import Foundation

/// Whole-database encryption of a root: which files it covers, and how the keys given at
/// open meet what `datacenter.json` records (see `docs/FORMAT.md`, "Encrypted roots").
extension DataCenter {
    /// The SQLCipher format of the root's SQLite files, or nil for a plain root.
    public var databaseEncryptionFormat: DatabaseCipherFormat? {
        guarded.withLock { $0.state.databaseEncryption?.format }
    }

    /// True when the root's SQLite files are encrypted (`datacenter.json` says so).
    public var isDatabaseEncrypted: Bool { databaseEncryptionFormat != nil }

    /// Every SQLite file of the root that exists, main files only (a `-wal` file goes with
    /// its database): the common store, each user's store, the version storage's stores,
    /// the named storages' stores (`<root>/storages`), the `LIB_CACHES.` and `TMP.`
    /// disk-cache files, and the stores of the other custom storages
    /// this data center has handed out (their folders are the app's choice and are not
    /// recorded in the root, so only those asked for in this run are known).
    ///
    /// These are the files whole-database encryption covers, and what a conversion of the
    /// root (encrypting a plain root, moving every file to a new key) must walk.
    public func databaseFilePaths() -> [String] {
        var paths = DataCenter.rootDatabaseFilePaths(rootPath: rootPath, space: space)
        let custom = guarded.withLock { $0.customStoragePaths }.sorted()
        for folder in custom {
            let storage = StorageSpace(root: folder, crypt: crypt, readOnly: true)
            paths += storage.existingStorePaths()
        }
        var seen = Set<String>()
        return paths.filter { seen.insert($0).inserted }
    }

    /// `databaseFilePaths()`, each with a name that every copy of the root gives it (a
    /// snapshot's files, a diff's pairs): the path below the root (`common.sqlite`,
    /// `users/<folder>/user.sqlite`, `Caches/lru.sqlite`), `TMP/…` for the `TMP.` disk caches
    /// kept in the system's temporary folder, and the whole path without its leading `/` for a
    /// custom storage outside the root.
    public func namedDatabaseFiles() -> [(name: String, path: String)] {
        let temporary = (try? LRUDiskCache.storePath(location: .temporary, root: rootPath, user: nil, space: space))
            .map { PrivateFile.folder(of: $0) + "/" }
        return databaseFilePaths().map { path in
            if path.hasPrefix(rootPath + "/") { return (String(path.dropFirst(rootPath.count + 1)), path) }
            if let temporary, path.hasPrefix(temporary) { return ("TMP/" + path.dropFirst(temporary.count), path) }
            return (String(path.drop(while: { $0 == "/" })), path)
        }
    }

    /// The SQLite files under (and for) the root itself, those that exist.
    static func rootDatabaseFilePaths(rootPath: String, space: StorageSpace) -> [String] {
        var paths = space.existingStorePaths()
        paths += recordedDAODatabasePaths(rootPath: rootPath)
        paths += StorageSpace(root: rootPath + "/version", crypt: KeyRing.empty, readOnly: true).existingStorePaths()
        // The named storages (`customStorage(named:)`), whether handed out in this run or not.
        let named = rootPath + "/storages"
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: named)) ?? []).sorted() {
            paths += StorageSpace(root: named + "/" + name, crypt: KeyRing.empty, readOnly: true).existingStorePaths()
        }
        for location in [LRUDiskCache.Location.libraryCaches, .temporary] {
            guard let common = try? LRUDiskCache.storePath(location: location, root: rootPath, user: nil, space: space) else { continue }
            paths.append(common)
            let users = (common as NSString).deletingLastPathComponent + "/users"
            let names = (try? FileManager.default.contentsOfDirectory(atPath: users)) ?? []
            paths += names.sorted().map { users + "/" + $0 + "/lru.sqlite" }
        }
        return paths.filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// The keys the root's files open with, given the keys passed at open and what the root
    /// records; records encryption in `state` (in memory only) when the root becomes
    /// encrypted.
    ///
    /// - An encrypted root needs keys, one at least in its format; those are tried first,
    ///   so a new file gets the newest key of the root's format.
    /// - A root without the record, opened with keys: refused when any of its SQLite files
    ///   is plain (it would mix plain and encrypted files); otherwise (no file yet, or files
    ///   already encrypted) it becomes encrypted in the newest key's format.
    /// True when the file at `path` is one or more whole pages of the smallest page size.
    private static func holdsWholePages(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        return status.st_size >= 512 && status.st_size % 512 == 0
    }

    static func rootDatabaseKeys(_ given: DatabaseKeyList, state: inout RootState, rootPath: String) throws -> DatabaseKeyList {
        if let encryption = state.databaseEncryption {
            guard !given.isEmpty else { throw StorageError.encryptedRootNeedsKey(root: rootPath, format: encryption.format) }
            let fitting = given.keys.filter { $0.format == encryption.format }
            guard !fitting.isEmpty else { throw StorageError.encryptedRootFormatMismatch(root: rootPath, format: encryption.format) }
            return DatabaseKeyList(fitting + given.keys.filter { $0.format != encryption.format })
        }
        let space = StorageSpace(root: rootPath, crypt: KeyRing.empty, readOnly: true)
        let files = rootDatabaseFilePaths(rootPath: rootPath, space: space)
        let kinds = files.map { (path: $0, kind: try? DatabaseFileKind.of(path: $0)) }
        let plain = kinds.filter { $0.kind == .plain }.map(\.path)
        // An encrypted file holds whole pages (512 bytes or more each); a damaged one that is
        // not a whole number of them is left to the store's own "damaged" report.
        let encrypted = kinds.filter { $0.kind == .encryptedOrNotADatabase && holdsWholePages($0.path) }.map(\.path)
        // Part encrypted, part plain, after a conversion began: it stopped midway. Without
        // that record, what reads as encrypted is damaged, and each such store says so.
        if state.databaseEncryptionBegun != nil, !plain.isEmpty, !encrypted.isEmpty {
            throw StorageError.halfConverted(root: rootPath, encrypted: encrypted, plain: plain)
        }
        // (Every file encrypted and nothing recorded reads, without a key, as stores that are
        // encrypted or damaged, each named when opened; with the key, as below.)
        guard let newest = given.newest else { return given }
        guard plain.isEmpty else { throw StorageError.plainRootGivenKeys(root: rootPath, files: plain) }
        state.databaseEncryption = RootDatabaseEncryption(format: newest.format)
        state.databaseEncryptionBegun = nil
        return given
    }
}
