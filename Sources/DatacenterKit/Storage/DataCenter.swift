import Foundation

/// The entry point of the engine: a root folder with a common store, one store per user and
/// a current user (`APDataCenter`).
///
/// The business layer reads `commonPreferences` for data that does not depend on who is
/// signed in, and `userPreferences` for the current user's; switching user with
/// `setCurrentUserId` moves `userPreferences` to the new user's store. Thread-safe.
///
/// For example:
/// ```swift
/// let center = try DataCenter(rootPath: DataCenter.defaultRootPath, crypt: KeyRing([key]))
/// try center.setCurrentUserId("alice")
/// try center.userPreferences?.setString("dark", forKey: "theme", business: "settings")
/// ```
public final class DataCenter: Sendable {
    /// What the data center announces about users and resets (`kAPDataCenter…`
    /// notifications): to `addObserver`'s handlers, then on `notificationCenter` under
    /// `notificationName` (see `DataCenterNotification.swift` and docs/NOTIFICATIONS.md).
    public enum Event: Sendable, Equatable {
        /// The current user's store is about to be left for another user.
        case willResignLastUser(String)
        /// The current user changed (possibly to nil); `switched` is true when it differs
        /// from the previous one.
        case didUpdateUser(String?, switched: Bool)
        /// The current user signed in again without a switch.
        case didRenewUser(String)
        /// `reset()` deleted every store and forgot the current user (not in the reference).
        case didReset
    }

    /// A registration made with `addObserver`, used to remove it.
    public struct ObserverToken: Hashable, Sendable { let id: Int }

    /// The root folder.
    public let rootPath: String
    /// The default crypt of every store under this root.
    public let crypt: any DataCrypt
    /// True when everything under the root is opened read-only.
    public let isReadOnly: Bool
    /// The database keys the root's SQLite files open with, newest first — those given at
    /// open, with the keys in the root's format tried first — or empty for a plain root.
    /// Never shown: its `description` names only the kinds of keys.
    public let databaseKeys: DatabaseKeyList

    let space: StorageSpace
    /// What `guarded` holds: only reached with it locked.
    struct Guarded {
        var state: RootState
        var observers: [Int: @Sendable (Event) -> Void] = [:]
        var nextObserverId = 0
        var versionStorage: CustomStorage?
        /// The folders of the custom storages handed out, for `databaseFilePaths`.
        var customStoragePaths: Set<String> = []
        /// The named storages handed out, by name: one per folder.
        var namedStorages: [String: CustomStorage] = [:]
        /// Where events are also posted as notifications; nil for nowhere.
        var notificationCenter: NotificationCenter? = .default
    }

    let guarded: LockedState<Guarded>
    /// Held for a whole user switch — check, save, notifications — so switches happen, and
    /// are announced, one at a time and in order. An `NSRecursiveLock`, not a `Mutex`: an
    /// observer, called with it held, may switch again on the same thread.
    private let switching = NSRecursiveLock()

    /// The root used when none is given: `$DATACENTER_ROOT`, else `Preferences` in the data
    /// folder (`$XDG_DATA_HOME/datacenter`, else `$HOME/.local/share/datacenter`; see
    /// `DataFolder`), or where it was before `$HOME` was followed when only that one exists.
    public static var defaultRootPath: String {
        if let env = ProcessEnvironment.value("DATACENTER_ROOT"), !env.isEmpty { return env }
        return DataFolder.resolve("Preferences").path
    }

    /// `crypt` with the key derived from `appKey` tried after its own keys (see `init`).
    static func defaultCrypt(_ crypt: any DataCrypt, appKey: String?) -> any DataCrypt {
        guard let appKey, !appKey.isEmpty, let ring = crypt as? KeyRing else { return crypt }
        return KeyRing(ring.keys + [EncryptionKey.derived(fromAppKey: appKey)])
    }

    var stateFilePath: String { rootPath + "/datacenter.json" }
    var versionFolder: String { rootPath + "/version" }
    /// The folder of the named storages (`customStorage(named:)`), one subfolder each.
    var namedStoragesFolder: String { rootPath + "/storages" }

    /// Opens the root at `rootPath`, creating it unless `readOnly`.
    /// - parameter appVersion: the running app's version; when it differs from the one
    ///   recorded, the version storage is emptied.
    /// - parameter busyTimeout: how long each store's statements wait for another
    ///   connection's lock before failing (DBConnect's busy retry), in seconds.
    /// - parameter databaseKeys: the keys of the root's SQLite files, newest first
    ///   (CTPersistance's list). With keys, every SQLite file of the root — common, users,
    ///   version storage, custom storages, disk-cache files — is encrypted: each opens with
    ///   whichever key fits, and a new one is created with the newest key. A new root (or
    ///   one with no SQLite file yet) becomes encrypted, which `datacenter.json` records
    ///   (the format, never a key).
    /// - throws: `StorageError.encryptedRootNeedsKey` for an encrypted root opened without
    ///   keys; `.encryptedRootFormatMismatch` when no key is in the root's format;
    ///   `.plainRootGivenKeys` for a plain root that already has SQLite files, opened with
    ///   keys (it is left as it is: converting one is a whole-root rekey, not an open).
    /// - parameter purgeCheck: whether the open purges the purgeable folders in the background
    ///   (see `PurgeCheck`); off by default.
    /// - parameter appKey: the app's key string, from which the default value key is derived
    ///   (`EncryptionKey.derived(fromAppKey:)`), as mPaaS derives its default key from the
    ///   app key: it joins `crypt`'s keys, tried after them (so with no key of its own the
    ///   app's `.default` values and `<crypt>` columns use it, and never throw "no key").
    ///   The derivation is ours, documented as ours: the reference does not publish
    ///   mPaaS's. Ignored when `crypt` is the app's own `DataCrypt` (not a `KeyRing`): the
    ///   app supplied its default key. Only the derived key is kept, never the string.
    public init(rootPath: String, crypt: any DataCrypt = KeyRing.empty, appKey: String? = nil, appVersion: String? = nil,
                readOnly: Bool = false, busyTimeout: TimeInterval = 5, databaseKeys: DatabaseKeyList = .empty,
                purgeCheck: PurgeCheck = .off) throws {
        let crypt = DataCenter.defaultCrypt(crypt, appKey: appKey)
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if readOnly {
            guard fm.fileExists(atPath: rootPath, isDirectory: &isDirectory) else { throw StorageError.missingRoot(rootPath) }
            guard isDirectory.boolValue else { throw StorageError.rootNotAFolder(rootPath) }
        } else if fm.fileExists(atPath: rootPath, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw StorageError.rootNotAFolder(rootPath)
        }
        // Everything that may refuse the root is decided before anything in it is written.
        var state = try RootState.load(from: rootPath + "/datacenter.json")
        if !readOnly, state.formatVersion > Store.formatVersion {
            throw StorageError.newerFormat(path: rootPath + "/datacenter.json", version: state.formatVersion, supported: Store.formatVersion)
        }
        let wasEncrypted = state.databaseEncryption != nil
        let keys = try DataCenter.rootDatabaseKeys(databaseKeys, state: &state, rootPath: rootPath)
        // A root becoming encrypted says so at once: a read-only open never writes.
        let recordEncryption = !readOnly && !wasEncrypted && state.databaseEncryption != nil
        if !readOnly {
            try PrivateFile.createFolder(atPath: rootPath)
            // What a killed `users switch` (or any killed write of the root's files) left.
            PartialFiles.removeStale(inFolder: rootPath)
        }
        self.rootPath = rootPath
        self.crypt = crypt
        self.isReadOnly = readOnly
        self.databaseKeys = keys
        self.space = StorageSpace(root: rootPath, crypt: crypt, readOnly: readOnly, busyTimeout: busyTimeout, databaseKeys: keys)
        let versionFolder = rootPath + "/version"
        var changed = recordEncryption
        if let appVersion, appVersion != state.appVersion, !readOnly {
            try FileTree.remove(atPath: versionFolder)
            if let previous = state.appVersion {
                DatacenterLog.event("emptied the version storage: the app version changed", root: rootPath,
                                    metadata: ["from": .string(previous), "to": .string(appVersion)])
            }
            state.appVersion = appVersion
            changed = true
        }
        if changed { try state.save(to: rootPath + "/datacenter.json") }
        self.guarded = LockedState(Guarded(state: state))
        DatacenterLog.event("opened the root", root: rootPath, metadata: [
            "readOnly": .stringConvertible(readOnly),
            "databaseEncryption": .string(state.databaseEncryption.map { $0.format.displayName } ?? "none"),
        ])
        startPurgeCheck(purgeCheck)
    }

    // MARK: Users

    /// The user signed in, or nil.
    public var currentUserId: String? { guarded.withLock { $0.state.currentUserId } }

    /// The user recorded as current in the root at `rootPath` now — what the last
    /// `setCurrentUserId`, in any process, saved — read without opening the root. For tools
    /// that watch a root an app is using: the browser follows user switches with it.
    /// - throws: what reading `datacenter.json` throws (a damaged or unreadable file).
    public static func recordedCurrentUserId(rootPath: String) throws -> String? {
        try RootState.load(from: rootPath + "/datacenter.json").currentUserId
    }

    /// Signs `userId` in (or, with nil, no one): `userPreferences` then opens that user's
    /// store. The choice is kept in the root, so the next run starts with the same user.
    /// Observers hear `willResignLastUser` before the switch and `didUpdateUser` after it, or
    /// `didRenewUser` when `userId` is already current; signing no one out when no one is
    /// signed in is `didUpdateUser(nil, switched: false)`. Concurrent calls switch one at a
    /// time, each announced whole before the next starts.
    public func setCurrentUserId(_ userId: String?) throws {
        do {
            if let userId { _ = try UserFolderName.encode(userId) }
            try switching.withLock {
                let previous = currentUserId
                guard userId != previous else {
                    if userId != nil { DatacenterLog.event("the current user signed in again", root: rootPath) }
                    notify(userId.map { .didRenewUser($0) } ?? .didUpdateUser(nil, switched: false))
                    return
                }
                if let previous { notify(.willResignLastUser(previous)) }
                try guarded.withLock { guarded in
                    var next = guarded.state
                    next.currentUserId = userId
                    if !isReadOnly { try next.save(to: stateFilePath) }
                    guarded.state = next
                }
                // The user id is not logged: it is often a phone number or an email address.
                DatacenterLog.event(userId == nil ? "signed the current user out" : "switched the current user", root: rootPath)
                notify(.didUpdateUser(userId, switched: true))
            }
        } catch {
            DatacenterLog.failure("switching the current user", error: error, root: rootPath)
            throw error
        }
    }

    /// Every user that has a store under the root, sorted.
    public func users() -> [String] { space.userIds() }

    // MARK: Stores

    /// The user-independent store (`commonPreferences`).
    public var commonPreferences: KVStore { get throws { try space.commonStore().kv } }

    /// The current user's store, or nil when no user is signed in (`userPreferences`).
    public var userPreferences: KVStore? {
        get throws {
            guard let userId = currentUserId else { return nil }
            return try space.userStore(userId).kv
        }
    }

    /// The store of `userId`, whoever is signed in (`preferencesForUser:`).
    public func preferences(forUser userId: String) throws -> KVStore { try space.userStore(userId).kv }

    /// The common store file, with its DAO and cache tables.
    public func commonStore() throws -> Store { try space.commonStore() }

    /// The store file of `userId`.
    public func store(forUser userId: String) throws -> Store { try space.userStore(userId) }

    /// The file path of the common store.
    public var commonStorePath: String { space.commonStorePath }

    /// The file path of `userId`'s store.
    public func storePath(forUser userId: String) throws -> String { try space.userStorePath(userId) }

    /// An accessor bound to `business`, so calls need only a key (`accessorForBusiness:`).
    public func accessor(forBusiness business: String) -> PreferencesAccessor {
        PreferencesAccessor(center: self, business: business)
    }

    /// A custom storage at `path`: its own common and per-user stores, following this data
    /// center's current user (`APCustomStorage initWithPath:`).
    /// On an encrypted root, its stores are encrypted with the root's database keys.
    public func customStorage(atPath path: String) -> CustomStorage {
        guarded.withLock { _ = $0.customStoragePaths.insert(path) }
        return CustomStorage(path: path, crypt: crypt, readOnly: isReadOnly, busyTimeout: space.busyTimeout,
                             databaseKeys: databaseKeys) { [weak self] in self?.currentUserId }
    }

    /// The storage named `name`, in `<root>/storages/<name>`: its own common and per-user
    /// stores, following this data center's current user (`storageInDocumentsWithName:`,
    /// whose folder is beside the root in the app's Documents; ours is inside the root, so
    /// `reset`, `rekey` and database encryption cover it). The same name always returns the
    /// same storage, so one folder never has two. On an encrypted root, its stores are
    /// encrypted with the root's database keys.
    /// - throws: `StorageNameError.invalid` for a name that could leave the folder or hide in
    ///   it (see `StorageName`).
    public func customStorage(named name: String) throws -> CustomStorage {
        do {
            try StorageName.validate(name)
        } catch {
            DatacenterLog.failure("opening a named storage", error: error, root: rootPath)
            throw error
        }
        let path = namedStoragesFolder + "/" + name
        let (storage, isNew) = guarded.withLock { guarded in
            if let storage = guarded.namedStorages[name] { return (storage, false) }
            let storage = CustomStorage(path: path, crypt: crypt, readOnly: isReadOnly, busyTimeout: space.busyTimeout,
                                        databaseKeys: databaseKeys) { [weak self] in self?.currentUserId }
            guarded.namedStorages[name] = storage
            guarded.customStoragePaths.insert(path)
            return (storage, true)
        }
        // A storage name is the app's constant, not user data: it is logged.
        if isNew { DatacenterLog.event("opened a named storage", root: rootPath, metadata: ["storage": .string(name)]) }
        return storage
    }

    /// A storage that is emptied whenever the app version changes (`currentVersionStorage`).
    public var currentVersionStorage: CustomStorage {
        guarded.withLock { guarded in
            if let versionStorage = guarded.versionStorage { return versionStorage }
            let storage = CustomStorage(path: versionFolder, crypt: crypt, readOnly: isReadOnly, busyTimeout: space.busyTimeout,
                                        databaseKeys: databaseKeys) { [weak self] in self?.currentUserId }
            guarded.versionStorage = storage
            return storage
        }
    }

    /// Fully resets the data center (`reset`): deletes every store under the root (common,
    /// users, version storage, named storages), the disk caches kept outside the stores
    /// (`LIB_CACHES.` files under `<root>/Caches`, `TMP.` files in the temporary folder) and
    /// the purgeable-folder registry (the folders' contents are the app's and stay), and
    /// forgets the current user, then announces `didReset` (and no user event). Stores,
    /// caches and storages handed out before must not be used afterwards. An encrypted root
    /// stays encrypted: the stores created afterwards get the newest database key.
    public func reset() throws {
        guard !isReadOnly else { throw KVError.readOnly(path: rootPath) }
        // Held like a switch: a reset and a switch never interleave, nor their announcements.
        try switching.withLock {
            do {
                try deleteEverything()
            } catch {
                DatacenterLog.failure("resetting", error: error, root: rootPath)
                throw error
            }
            DatacenterLog.event("reset the root", root: rootPath)
            notify(.didReset)
        }
    }

    /// Deletes everything of `userId` under the root: its store, its stores in the version
    /// storage and in the named storages, and its disk caches (`LIB_CACHES.` and `TMP.`).
    /// When `userId` is the current user, it is signed out first, announced as by
    /// `setCurrentUserId(nil)`, so the next run does not create its store again. Stores and
    /// caches of that user handed out before must not be used afterwards. A user with no
    /// data here is no error: there is nothing to delete.
    /// - throws: `KVError.readOnly` on a read-only data center; the file system's error when
    ///   a folder cannot be deleted (what was deleted before it stays deleted).
    public func removeUser(_ userId: String) throws {
        guard !isReadOnly else { throw KVError.readOnly(path: rootPath) }
        let folder = try UserFolderName.encode(userId)
        try switching.withLock {
            if currentUserId == userId { try setCurrentUserId(nil) }
            do {
                try space.deleteUser(userId)
                let (handedOut, named) = guarded.withLock { guarded in
                    ([guarded.versionStorage].compactMap { $0 } + guarded.namedStorages.values, Set(guarded.namedStorages.keys))
                }
                for storage in handedOut { try storage.deleteUser(userId) }
                var userFolders = [versionFolder + "/users/" + folder]
                let storages = (try? FileManager.default.contentsOfDirectory(atPath: namedStoragesFolder)) ?? []
                // Real folders only: a link there is not the root's to delete through.
                let folders = storages.filter { name in
                    !named.contains(name)
                        && (try? FileManager.default.attributesOfItem(atPath: namedStoragesFolder + "/" + name))?[.type] as? FileAttributeType == .typeDirectory
                }
                userFolders += folders.map { namedStoragesFolder + "/" + $0 + "/users/" + folder }
                for location in [LRUDiskCache.Location.libraryCaches, .temporary] {
                    let cache = try LRUDiskCache.storePath(location: location, root: rootPath, user: userId, space: space)
                    userFolders.append(PrivateFile.folder(of: cache))
                }
                for path in userFolders { try space.deleteFolder(path) }
            } catch {
                DatacenterLog.failure("removing a user", error: error, root: rootPath)
                throw error
            }
            // The user id is not logged: it is often a phone number or an email address.
            DatacenterLog.event("removed a user", root: rootPath)
        }
    }

    /// What `reset` deletes and forgets, without the announcement.
    private func deleteEverything() throws {
        try space.deleteAll()
        let fm = FileManager.default
        for location in [LRUDiskCache.Location.libraryCaches, .temporary] {
            // The common cache file, and the folder of per-user ones beside it.
            let common = try LRUDiskCache.storePath(location: location, root: rootPath, user: nil, space: space)
            for suffix in ["", "-wal", "-shm", "-journal"] { try? fm.removeItem(atPath: common + suffix) }
            let users = (common as NSString).deletingLastPathComponent + "/users"
            try FileTree.remove(atPath: users)
            if location == .temporary { try? FileTree.remove(atPath: (common as NSString).deletingLastPathComponent) }
        }
        try? fm.removeItem(atPath: rootPath + "/purgeable.json")
        try guarded.withLock { guarded in
            guarded.versionStorage = nil
            try FileTree.remove(atPath: versionFolder)
            for path in guarded.namedStorages.values.map(\.path) { guarded.customStoragePaths.remove(path) }
            guarded.namedStorages = [:]
            try FileTree.remove(atPath: namedStoragesFolder)
            var state = RootState()
            state.appVersion = guarded.state.appVersion
            state.databaseEncryption = guarded.state.databaseEncryption
            guarded.state = state
            try state.save(to: stateFilePath)
        }
    }

    // MARK: Observers

    /// Where events are also posted as notifications (`Notification.Name.dataCenter…`, with
    /// this data center as the object), after `addObserver`'s handlers have been called.
    /// `NotificationCenter.default` unless set, as the reference posts; nil posts nowhere.
    public var notificationCenter: NotificationCenter? {
        get { guarded.withLock { $0.notificationCenter } }
        set { guarded.withLock { $0.notificationCenter = newValue } }
    }

    /// Calls `handler` with every event, on the thread that caused it.
    @discardableResult
    public func addObserver(_ handler: @escaping @Sendable (Event) -> Void) -> ObserverToken {
        guarded.withLock { guarded in
            guarded.nextObserverId += 1
            guarded.observers[guarded.nextObserverId] = handler
            return ObserverToken(id: guarded.nextObserverId)
        }
    }

    /// Stops calling the handler registered as `token`.
    public func removeObserver(_ token: ObserverToken) {
        _ = guarded.withLock { $0.observers.removeValue(forKey: token.id) }
    }

    /// Calls the handlers in the order they were added, then posts the notification, all on
    /// this thread with no lock but `switching` held.
    private func notify(_ event: Event) {
        let (handlers, center) = guarded.withLock { ($0.observers.sorted { $0.key < $1.key }.map(\.value), $0.notificationCenter) }
        for handler in handlers { handler(event) }
        center?.post(name: event.notificationName, object: self, userInfo: event.notificationUserInfo)
    }
}

/// A business-bound view of a data center's common and current-user stores
/// (`APPreferencesAccessor`). The user store is looked up on each access, so it follows
/// user switches.
public struct PreferencesAccessor: Sendable {
    let center: DataCenter
    /// The business every call uses.
    public let business: String

    /// The common store, bound to the business.
    public var commonPreferences: BusinessPreferences {
        get throws { BusinessPreferences(store: try center.commonPreferences, business: business) }
    }

    /// The current user's store bound to the business, or nil with no current user.
    public var userPreferences: BusinessPreferences? {
        get throws { try center.userPreferences.map { BusinessPreferences(store: $0, business: business) } }
    }
}
