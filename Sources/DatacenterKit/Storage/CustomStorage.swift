/// A storage space at a folder of the app's choosing, with its own common and per-user
/// stores, following the data center's current user (`APCustomStorage`). Its key-value
/// stores need no business: they are `BusinessPreferences` bound to
/// `BusinessPreferences.customStorageBusiness`.
public final class CustomStorage: Sendable {
    /// The folder.
    public var path: String { space.root }
    private let space: StorageSpace
    private let currentUser: @Sendable () -> String?

    init(path: String, crypt: any DataCrypt, readOnly: Bool, busyTimeout: Double = 5,
         databaseKeys: DatabaseKeyList = .empty, currentUser: @escaping @Sendable () -> String?) {
        self.space = StorageSpace(root: path, crypt: crypt, readOnly: readOnly, busyTimeout: busyTimeout,
                                  databaseKeys: databaseKeys)
        self.currentUser = currentUser
    }

    /// The user-independent key-value store.
    public var commonPreferences: BusinessPreferences {
        get throws { BusinessPreferences(store: try space.commonStore().kv, business: BusinessPreferences.customStorageBusiness) }
    }

    /// The current user's key-value store, or nil when no user is signed in.
    public var userPreferences: BusinessPreferences? {
        get throws {
            guard let userId = currentUser() else { return nil }
            return BusinessPreferences(store: try space.userStore(userId).kv, business: BusinessPreferences.customStorageBusiness)
        }
    }

    /// The common store file (for DAO tables and caches).
    public func commonStore() throws -> Store { try space.commonStore() }

    /// The current user's store file, or nil with no current user.
    public func userStore() throws -> Store? {
        guard let userId = currentUser() else { return nil }
        return try space.userStore(userId)
    }

    /// The store a user-dependent (or common) DAO or service of this storage works on,
    /// looked up at each operation: with `userDependent`, the current user's store in this
    /// storage, else its common store.
    public func followedStore(userDependent: Bool) -> FollowedStore {
        let space = self.space
        return FollowedStore(userDependent: userDependent, currentUserId: currentUser) { owner in
            switch owner {
            case .common: return try space.commonStore()
            case .user(let id): return try space.userStore(id)
            }
        }
    }

    /// Users with a store in this storage.
    public func users() -> [String] { space.userIds() }

    /// The SQLite files of this storage that exist: its common store, then each user's.
    public func databaseFilePaths() -> [String] { space.existingStorePaths() }

    /// Deletes `userId`'s store in this storage (`DataCenter.removeUser`).
    func deleteUser(_ userId: String) throws { try space.deleteUser(userId) }
}
