import Foundation

/// A folder holding a common store and one store per user, with the files named as in
/// `docs/FORMAT.md`. Stores are opened once and shared.
final class StorageSpace: Sendable {
    let root: String
    let crypt: any DataCrypt
    let readOnly: Bool
    /// How long each store's statements wait for another connection's lock.
    let busyTimeout: TimeInterval
    /// The database keys every store file here opens with (empty: plain files).
    let databaseKeys: DatabaseKeyList
    /// The open stores by path.
    private let stores = LockedState<[String: Store]>([:])

    init(root: String, crypt: any DataCrypt, readOnly: Bool, busyTimeout: TimeInterval = 5,
         databaseKeys: DatabaseKeyList = .empty) {
        self.root = root
        self.databaseKeys = databaseKeys
        self.crypt = crypt
        self.readOnly = readOnly
        self.busyTimeout = busyTimeout
    }

    var commonStorePath: String { root + "/common.sqlite" }
    var usersFolder: String { root + "/users" }

    func userStorePath(_ userId: String) throws -> String {
        usersFolder + "/" + (try UserFolderName.encode(userId)) + "/user.sqlite"
    }

    /// The store at `path`, opened on first use.
    func store(at path: String) throws -> Store {
        try stores.withLock { stores in
            if let store = stores[path] { return store }
            let store = try Store(path: path, crypt: crypt, readOnly: readOnly, busyTimeout: busyTimeout,
                                  databaseKeys: databaseKeys)
            stores[path] = store
            return store
        }
    }

    func commonStore() throws -> Store { try store(at: commonStorePath) }
    func userStore(_ userId: String) throws -> Store { try store(at: try userStorePath(userId)) }

    /// The users that have a store here, sorted.
    func userIds() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: usersFolder)) ?? []
        return names.compactMap { name in
            FileManager.default.fileExists(atPath: usersFolder + "/" + name + "/user.sqlite") ? UserFolderName.decode(name) : nil
        }.sorted()
    }

    /// The store files of this space that exist: the common one, then each user's.
    func existingStorePaths() -> [String] {
        var paths = [commonStorePath]
        paths += userIds().compactMap { try? userStorePath($0) }
        return paths.filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// Forgets the open stores (they close when no one holds them).
    func closeAll() {
        // The stores close (when no one else holds them) after the lock is given up.
        let closed = stores.withLock { stores in
            defer { stores.removeAll() }
            return Array(stores.values)
        }
        withExtendedLifetime(closed) {}
    }

    /// Deletes `userId`'s folder (its store and the files beside it), forgetting its open
    /// store. Nothing happens when the user has no folder here.
    func deleteUser(_ userId: String) throws {
        try deleteFolder(PrivateFile.folder(of: userStorePath(userId)))
    }

    /// Deletes `folder` and what it holds, forgetting the stores opened inside it (they close
    /// when no one else holds them).
    func deleteFolder(_ folder: String) throws {
        let closed = stores.withLock { stores in
            stores.keys.filter { $0.hasPrefix(folder + "/") }.compactMap { stores.removeValue(forKey: $0) }
        }
        withExtendedLifetime(closed) {}
        try FileTree.remove(atPath: folder)
    }

    /// Deletes every store file of this space.
    func deleteAll() throws {
        closeAll()
        let fm = FileManager.default
        for suffix in ["", "-wal", "-shm", "-journal"] { try? fm.removeItem(atPath: commonStorePath + suffix) }
        try FileTree.remove(atPath: usersFolder)
    }
}
