import Foundation

/// A least-recently-used cache persisted in a store's table (`APLRUDiskCache`).
///
/// Writes are write-behind: `set` encodes (and encrypts) the value at once, queues the
/// write and returns; a background queue commits queued writes in queue order, many per
/// transaction (20 ms after a burst's first write, or as soon as 512 are queued), so a burst
/// of `set`s costs one transaction. The queue (`LRUDiskWriteQueue`) is what keeps the
/// promises callers rely on:
/// - A read sees this process's latest write: a key with a queued write is answered from
///   the queue, so no read ever waits for, or starts, a commit.
/// - Commits run only in transactions of their own: never inside a caller's transaction or
///   `KVStore.batch`, never from a thread holding the store's connection, and never while a
///   transaction begun elsewhere (a DAO object's) is open on it, so no rollback but the
///   cache's own can undo an acknowledged write.
/// - The queue is bounded (4,096 writes and 8 MiB of keys and values): a writer faster than
///   the disk waits for room, so a burst costs no more memory than that. A thread that holds
///   the store's connection is never made to wait (the commit needs that connection).
/// - `flush()` waits for every queued write and reports a commit that failed since the
///   last one (`CacheError.writeFailed`, with how many writes were lost).
///
/// Like memcached, a read refreshes an entry's recency at most once per `recencyInterval`
/// (a minute): the refresh is kept in memory and written with a later commit, so reads stay
/// reads and eviction order is exact to within that interval.
///
/// The cache holds up to `capacity` entries plus a slack of a tenth: its size is checked once
/// per slack's worth of inserts, and a check that finds more than `capacity` entries evicts
/// the least recently used back down to `capacity` (evicting on every insert would make a
/// full cache slow to fill).
///
/// A user-dependent cache follows the data center's current user, and does nothing (reads
/// give nil, writes are dropped) while no user is signed in; writes queued before a switch
/// still land in the store they were made for. Names starting `LIB_CACHES.` or `TMP.` keep
/// the table in a caches file under the root or in the temporary folder instead of the store
/// (see `docs/FORMAT.md`).
public final class LRUDiskCache: Sendable {
    /// Where the cache's table lives.
    public enum Location: String, Sendable {
        /// In the store itself (common or user).
        case store
        /// In `<root>/Caches/lru.sqlite` (names starting `LIB_CACHES.`).
        case libraryCaches
        /// In a file under the temporary folder (names starting `TMP.`).
        case temporary
    }

    /// The name as given, prefix included.
    public let name: String
    /// The table holding the entries: `lru_` and the name without its location prefix.
    public let tableName: String
    /// The entries kept after an eviction batch.
    public let capacity: Int
    /// True when the cache follows the current user.
    public let isUserDependent: Bool
    /// True when values are encrypted with the store's default crypt.
    public let isEncrypted: Bool
    /// Where the table lives.
    public let location: Location

    /// How long queued writes wait for more before they are committed together.
    public static let coalescingDelay: DispatchTimeInterval = LRUDiskWriteQueue.coalescingDelay

    /// How long a read leaves an entry's recency alone after it was last refreshed.
    public static let recencyInterval: TimeInterval = 60

    /// The most writes queued at once (a writer beyond it waits for a commit to make room).
    public static let maximumPendingWrites = LRUDiskWriteQueue.maximumPendingWrites

    /// The most bytes of keys and values queued at once (a writer beyond it waits).
    public static let maximumPendingBytes = LRUDiskWriteQueue.maximumPendingBytes

    private let resolveStore: @Sendable () throws -> Store?
    private let sql: LRUDiskCacheSQL
    private let writes: LRUDiskWriteQueue

    /// The table prefix of every disk cache.
    public static let tablePrefix = "lru_"

    /// Opens (creating) the cache `name` of a data center.
    public convenience init(name: String, capacity: Int, userDependent: Bool = false, encrypted: Bool = false,
                            dataCenter: DataCenter) throws {
        let (location, base) = try LRUDiskCache.parse(name)
        let space = dataCenter.space
        let root = dataCenter.rootPath
        self.init(name: name, base: base, location: location, capacity: capacity, userDependent: userDependent,
                  encrypted: encrypted) { [weak dataCenter] in
            guard let dataCenter else { return nil }
            var user: String?
            if userDependent {
                guard let current = dataCenter.currentUserId else { return nil }
                user = current
            }
            return try space.store(at: LRUDiskCache.storePath(location: location, root: root, user: user, space: space))
        }
        try prepareCurrentStore()
    }

    /// Opens (creating) the cache `name` in the given store.
    public convenience init(name: String, capacity: Int, encrypted: Bool = false, store: Store) throws {
        let (_, base) = try LRUDiskCache.parse(name)
        self.init(name: name, base: base, location: .store, capacity: capacity, userDependent: false,
                  encrypted: encrypted) { store }
        try prepareCurrentStore()
    }

    private init(name: String, base: String, location: Location, capacity: Int, userDependent: Bool, encrypted: Bool,
                 resolveStore: @escaping @Sendable () throws -> Store?) {
        self.name = name
        self.tableName = LRUDiskCache.tablePrefix + base
        self.capacity = max(1, capacity)
        self.isUserDependent = userDependent
        self.isEncrypted = encrypted
        self.location = location
        self.resolveStore = resolveStore
        sql = LRUDiskCacheSQL(tableName: LRUDiskCache.tablePrefix + base)
        writes = LRUDiskWriteQueue(cacheName: name, sql: sql, capacity: max(1, capacity), encrypted: encrypted,
                                   userDependent: userDependent)
    }

    private static func parse(_ name: String) throws -> (Location, String) {
        var location = Location.store
        var base = name
        if name.hasPrefix("LIB_CACHES.") { location = .libraryCaches; base = String(name.dropFirst("LIB_CACHES.".count)) }
        else if name.hasPrefix("TMP.") { location = .temporary; base = String(name.dropFirst("TMP.".count)) }
        guard !base.isEmpty else { throw CacheError.invalidName("a cache needs a name after its location prefix") }
        return (location, base)
    }

    /// The file that holds caches of `location` for `user` (nil: the common one).
    static func storePath(location: Location, root: String, user: String?, space: StorageSpace) throws -> String {
        switch location {
        case .store:
            return try user.map { try space.userStorePath($0) } ?? space.commonStorePath
        case .libraryCaches:
            return root + "/Caches" + (try user.map { "/users/" + (try UserFolderName.encode($0)) } ?? "") + "/lru.sqlite"
        case .temporary:
            var hash: UInt64 = 0xcbf29ce484222325
            for byte in root.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
            return NSTemporaryDirectory() + "datacenter-" + String(hash, radix: 16)
                + (try user.map { "/users/" + (try UserFolderName.encode($0)) } ?? "") + "/lru.sqlite"
        }
    }

    // MARK: Writing

    /// Caches raw bytes under `key` (nil removes it); `expiresAt` makes reads from that time
    /// on give nil. Returns at once; the write is committed in the background.
    public func setData(_ data: Data?, forKey key: String, expiresAt: Date? = nil) throws {
        guard let data else { return try removeValue(forKey: key) }
        try enqueueSet(key: key, bytes: data, encoding: "data", expiresAt: expiresAt)
    }

    /// Caches any `Codable` value under `key` (archived as `ArchiveCodec` does); nil removes.
    public func set<T: Encodable>(_ value: T?, forKey key: String, expiresAt: Date? = nil) throws {
        guard let value else { return try removeValue(forKey: key) }
        let bytes: Data
        do { bytes = try ArchiveCodec.encode(value) } catch {
            throw CacheError.encoding(cache: name, key: key, reason: String(describing: error))
        }
        try enqueueSet(key: key, bytes: bytes, encoding: "archive", expiresAt: expiresAt)
    }

    /// Caches many values at once; none expires (`addObjects:`).
    public func addMany<T: Encodable>(_ values: [String: T]) throws {
        for (key, value) in values.sorted(by: { $0.key < $1.key }) { try set(value, forKey: key) }
    }

    /// Removes `key`.
    public func removeValue(forKey key: String) throws {
        try enqueue(.remove(key))
    }

    /// Removes every key matching the SQL LIKE `pattern` (`removeObjectsWithSqlLike:`).
    public func removeValues(like pattern: String) throws {
        try enqueue(.removeLike(pattern))
    }

    /// Removes every key in `keys`.
    public func removeValues<S: Sequence>(forKeys keys: S) throws where S.Element == String {
        for key in keys { try enqueue(.remove(key)) }
    }

    /// Removes everything.
    public func removeAll() throws {
        try enqueue(.removeAll)
    }

    /// Waits until every queued write is committed, in the cache's own transactions.
    /// - throws: `CacheError.writeFailed` when a background write failed since the last
    ///   flush (reported once); `CacheError.connectionBusy` when the calling thread holds the
    ///   connection of a store with queued writes (inside `KVStore.batch`, a transaction or a
    ///   `DatabaseQueue` block), or a transaction begun elsewhere is open on it: the writes
    ///   stay queued and are committed once the connection is free.
    public func flush() throws {
        try writes.flush()
    }

    private func enqueueSet(key: String, bytes: Data, encoding: String, expiresAt: Date?) throws {
        guard let store = try resolveStore() else { return }
        let stored: Data
        if isEncrypted {
            do { stored = try store.kv.defaultCrypt.encrypt(bytes) } catch let error as CryptError {
                throw CacheError.cannotDecrypt(cache: name, key: key, reason: error)
            }
        } else {
            stored = bytes
        }
        let entry = LRUDiskWriteQueue.Entry(stored: stored, encoding: encoding, expires: expiresAt?.timeIntervalSince1970)
        writes.enqueue(.set(key: key, entry), store: store)
    }

    private func enqueue(_ operation: LRUDiskWriteQueue.Operation) throws {
        guard let store = try resolveStore() else { return }
        writes.enqueue(operation, store: store)
    }

    /// How many queued writes start a commit without waiting for `coalescingDelay`.
    static let eagerFlushSize = LRUDiskWriteQueue.eagerFlushSize

    // MARK: Reading

    /// The bytes cached under `key` (decrypted), or nil when absent or expired (an expired
    /// entry is removed). Sees this process's latest write to the key, even one not yet
    /// committed, without waiting for its commit.
    public func data(forKey key: String) throws -> Data? {
        guard let (bytes, _) = try entry(forKey: key) else { return nil }
        return bytes
    }

    /// The value cached under `key` decoded as `type`, or nil.
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        guard let (bytes, encoding) = try entry(forKey: key) else { return nil }
        guard encoding == "archive" else {
            throw CacheError.decoding(cache: name, key: key, reason: "the entry holds raw bytes, not an archived value")
        }
        do { return try ArchiveCodec.decode(T.self, from: bytes) } catch {
            throw CacheError.decoding(cache: name, key: key, reason: String(describing: error))
        }
    }

    /// True when `key` is cached and not expired (does not change recency).
    public func contains(_ key: String) throws -> Bool {
        guard let store = try resolveStore() else { return false }
        let now = Date().timeIntervalSince1970
        let pending = writes.lookup(key, in: store)
        switch pending.state {
        case .set(let entry) where pending.removedIfLike.isEmpty: return entry.expires.map { $0 > now } ?? true
        case .removed where pending.removedIfLike.isEmpty: return false
        default: break
        }
        if !pending.isPrepared { try writes.prepare(store) }
        return try store.queue.read { db in
            if try sql.key(key, matchesAnyOf: pending.removedIfLike, in: db) { return false }
            switch pending.state {
            case .set(let entry): return entry.expires.map { $0 > now } ?? true
            case .removed: return false
            case .none: return try sql.containsEntry(forKey: key, at: now, in: db)
            }
        }
    }

    /// How many entries the cache holds now (after committing queued writes).
    /// - throws: as `flush()` does.
    public func count() throws -> Int {
        try flush()
        guard let store = try resolveStore() else { return 0 }
        try writes.prepare(store)
        return try store.queue.read { db in try sql.countEntries(in: db) }
    }

    /// Where a read found its entry.
    private enum Found {
        /// A queued write, not yet committed.
        case queued(LRUDiskWriteQueue.Entry)
        /// The table's row.
        case stored(LRUDiskCacheSQL.Row)
    }

    private func entry(forKey key: String) throws -> (Data, String)? {
        guard let store = try resolveStore() else { return nil }
        let pending = writes.lookup(key, in: store)
        let found: Found?
        switch pending.state {
        case .set(let entry) where pending.removedIfLike.isEmpty: found = .queued(entry)
        case .removed where pending.removedIfLike.isEmpty: found = nil
        default:
            if !pending.isPrepared { try writes.prepare(store) }
            found = try store.queue.read { db -> Found? in
                if try sql.key(key, matchesAnyOf: pending.removedIfLike, in: db) { return nil }
                switch pending.state {
                case .set(let entry): return .queued(entry)
                case .removed: return nil
                case .none: return try sql.entry(forKey: key, in: db).map(Found.stored)
                }
            }
        }
        let stored: Data, encoding: String, expires: Double?
        let now = Date().timeIntervalSince1970
        switch found {
        case nil: return nil
        case .queued(let entry): (stored, encoding, expires) = (entry.stored, entry.encoding, entry.expires)
        case .stored(let row):
            (stored, encoding, expires) = (row.stored, row.encoding, row.expires)
            if Double(row.accessed) / 1_000_000 < now - LRUDiskCache.recencyInterval { writes.touch(key, store: store) }
        }
        if let expires, expires <= now {
            writes.enqueueExpiredRemoval(of: key, store: store)
            return nil
        }
        guard isEncrypted else { return (stored, encoding) }
        do { return (try store.kv.defaultCrypt.decrypt(stored), encoding) } catch let error as CryptError {
            throw CacheError.cannotDecrypt(cache: name, key: key, reason: error)
        }
    }

    /// Writes the current store now: used at creation so the cache is listed before its
    /// first write. Does nothing for a user-dependent cache with no current user.
    private func prepareCurrentStore() throws {
        if let store = try resolveStore() { try writes.prepare(store) }
    }
}
