import Foundation

/// A least-recently-used cache persisted in a store's table (`APLRUDiskCache`).
///
/// Writes are asynchronous: `set` encodes (and encrypts) the value at once, then queues the
/// write; queued writes are committed together on a background queue, so a burst of `set`s
/// costs one transaction. A read of a key with a queued write waits for it, so a reader
/// always sees this process's latest `set`. Like memcached, a read refreshes an entry's
/// recency at most once per `recencyInterval` (a minute): the refresh is kept in memory and
/// written with the next batch, so reads stay reads and eviction order is exact to within
/// that interval.
///
/// The cache holds up to `capacity` entries plus a slack of a tenth: its size is checked once
/// per slack's worth of inserts, and a check that finds more than `capacity` entries evicts
/// the least recently used back down to `capacity` (evicting on every insert would make a
/// full cache slow to fill).
///
/// A user-dependent cache follows the data center's current user, and does nothing (reads
/// give nil, writes are dropped) while no user is signed in. Names starting `LIB_CACHES.` or
/// `TMP.` keep the table in a caches file under the root or in the temporary folder instead
/// of the store (see `docs/FORMAT.md`).
public final class LRUDiskCache: @unchecked Sendable {
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
    public static let coalescingDelay: DispatchTimeInterval = .milliseconds(20)

    /// How long a read leaves an entry's recency alone after it was last refreshed.
    public static let recencyInterval: TimeInterval = 60

    private let resolveStore: @Sendable () throws -> Store?
    private let sql: SQL
    private let writeQueue = DispatchQueue(label: "datacenter.lru-disk-cache")
    private let lock = NSLock()
    /// Queued writes, one batch per store: usually one (a user-dependent cache has one per
    /// user it was switched to while writes were queued), so a list searched by identity.
    private var batches: [PendingBatch] = []
    /// The number of writes of the largest batch of the last flush.
    private var lastBatchSize = 0
    /// The emptied lists of the last committed batch, for the next batch: a stream of bursts
    /// then reuses memory already in use instead of allocating (and faulting in) new lists
    /// and growing them step by step.
    private var spareLists: PendingBatch.Lists?
    private var preparedStores: Set<String> = []
    private var lastTick: Int64 = 0
    private var flushScheduled = false
    /// True while `flushPending` commits batches it has taken: a read must wait for them too.
    private var flushing = false
    private var backgroundError: CacheError?
    /// Inserts per store since its size was last checked: the check (a count) runs once per
    /// slack's worth of inserts, not per batch.
    private var insertsSinceSizeCheck: [ObjectIdentifier: Int] = [:]

    /// Writes queued for one store, with the reads to record.
    private struct PendingBatch {
        var store: Store
        var operations: [Operation] = []
        var pendingKeys: [String: Int] = [:]
        var hasBulkOperation = false
        var touches: [String: Int64] = [:]
        var insertsSinceCount = 0

        /// The lists that grow with the writes.
        struct Lists {
            var operations: [Operation]
            var pendingKeys: [String: Int]
        }

        /// An empty batch with room for `expected` writes (the size of the last burst), so a
        /// burst like the last one does not grow its lists step by step; in `spare` lists
        /// (emptied) when given.
        init(store: Store, expected: Int = 0, spare: Lists? = nil) {
            self.store = store
            if let spare {
                operations = spare.operations
                pendingKeys = spare.pendingKeys
            }
            let room = min(expected, PendingBatch.largestReservation)
            operations.reserveCapacity(room)
            pendingKeys.reserveCapacity(room)
        }

        /// The lists, emptied, keeping their memory.
        mutating func takeEmptiedLists() -> Lists {
            operations.removeAll(keepingCapacity: true)
            pendingKeys.removeAll(keepingCapacity: true)
            return Lists(operations: operations, pendingKeys: pendingKeys)
        }

        static let largestReservation = 16_384
    }

    private enum Operation {
        case set(key: String, value: Data, encoding: String, expires: Double?)
        case remove(String)
        case removeAll
        case removeLike(String)
    }

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
        self.sql = SQL(table: Database.quoteIdentifier(LRUDiskCache.tablePrefix + base))
    }

    /// The statements of one cache, built once.
    private struct SQL {
        let upsert, remove, removeAll, removeLike, touch, expire, count, evict, select, contains: String
        init(table: String) {
            upsert = "INSERT OR REPLACE INTO \(table)(key, value, encoding, expires, accessed, size) VALUES (?, ?, ?, ?, ?, ?)"
            remove = "DELETE FROM \(table) WHERE key = ?"
            removeAll = "DELETE FROM \(table)"
            removeLike = "DELETE FROM \(table) WHERE key LIKE ?"
            touch = "UPDATE \(table) SET accessed = ? WHERE key = ? AND accessed < ?"
            expire = "DELETE FROM \(table) WHERE expires IS NOT NULL AND expires <= ?"
            count = "SELECT count(*) FROM \(table)"
            evict = "DELETE FROM \(table) WHERE key IN (SELECT key FROM \(table) ORDER BY accessed ASC LIMIT ?)"
            select = "SELECT value, encoding, expires, accessed FROM \(table) WHERE key = ?"
            contains = "SELECT 1 FROM \(table) WHERE key = ? AND (expires IS NULL OR expires > ?)"
        }
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
        try enqueue(.remove(key), key: key)
    }

    /// Removes every key matching the SQL LIKE `pattern` (`removeObjectsWithSqlLike:`).
    public func removeValues(like pattern: String) throws {
        try enqueue(.removeLike(pattern), key: nil)
    }

    /// Removes every key in `keys`.
    public func removeValues<S: Sequence>(forKeys keys: S) throws where S.Element == String {
        for key in keys { try enqueue(.remove(key), key: key) }
    }

    /// Removes everything.
    public func removeAll() throws {
        try enqueue(.removeAll, key: nil)
    }

    /// Waits until every queued write is committed.
    /// - throws: `CacheError.writeFailed` when a background write failed since the last flush.
    public func flush() throws {
        writeQueue.sync { flushPending() }
        let error = lock.withLock { () -> CacheError? in
            defer { backgroundError = nil }
            return backgroundError
        }
        if let error { throw error }
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
        try enqueue(.set(key: key, value: stored, encoding: encoding, expires: expiresAt?.timeIntervalSince1970),
                    key: key, store: store)
    }

    private func enqueue(_ operation: Operation, key: String?, store given: Store? = nil) throws {
        guard let store = try given ?? resolveStore() else { return }
        let (scheduleDelayed, flushNow): (Bool, Bool) = lock.withLock {
            let i = batchIndex(for: store, expectingWrites: true)
            batches[i].operations.append(operation)
            if let key { batches[i].pendingKeys[key, default: 0] += 1 } else { batches[i].hasBulkOperation = true }
            if case .set = operation { batches[i].insertsSinceCount += 1 }
            defer { flushScheduled = true }
            return (!flushScheduled, batches[i].operations.count == LRUDiskCache.eagerFlushSize)
        }
        // A short delay lets a burst of writes share one transaction; a read of a pending key
        // flushes at once, so nothing is ever served stale. A long burst starts committing
        // as soon as it is this large, while the rest of it is still being queued.
        if flushNow { writeQueue.async { [self] in flushPending() } }
        if scheduleDelayed { writeQueue.asyncAfter(deadline: .now() + LRUDiskCache.coalescingDelay) { [self] in flushPending() } }
    }

    /// How many queued writes start a commit without waiting for `coalescingDelay`.
    static let eagerFlushSize = 512

    /// The index in `batches` of `store`'s batch, added when missing (sized like the last
    /// burst when it is for writes, not for recency touches). The lock must be held.
    private func batchIndex(for store: Store, expectingWrites: Bool) -> Int {
        if let i = batches.firstIndex(where: { $0.store === store }) { return i }
        if expectingWrites {
            batches.append(PendingBatch(store: store, expected: lastBatchSize, spare: spareLists))
            spareLists = nil
        } else {
            batches.append(PendingBatch(store: store))
        }
        return batches.count - 1
    }

    /// A recency stamp (microseconds since 1970, strictly increasing); `reserving` more
    /// stamps after it for the caller to use.
    private func nextTick(reserving count: Int = 0) -> Int64 {
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        return lock.withLock {
            let tick = max(lastTick + 1, now)
            lastTick = tick + Int64(count)
            return tick
        }
    }

    /// Commits everything queued, one transaction per store. Runs on `writeQueue`.
    private func flushPending() {
        var taken: [PendingBatch] = lock.withLock {
            flushScheduled = false
            flushing = !batches.isEmpty
            if let largest = batches.map(\.operations.count).max() { lastBatchSize = largest }
            defer { batches.removeAll() }
            return batches
        }
        defer { lock.withLock { flushing = false } }
        let slack = max(1, capacity / 10)
        for batch in taken where !batch.operations.isEmpty || !batch.touches.isEmpty {
            let id = ObjectIdentifier(batch.store)
            let checkSize: Bool = lock.withLock {
                insertsSinceSizeCheck[id, default: 0] += batch.insertsSinceCount
                guard insertsSinceSizeCheck[id]! >= slack else { return false }
                insertsSinceSizeCheck[id] = 0
                return true
            }
            do {
                try prepare(batch.store)
                try batch.store.queue.inTransaction { db in try apply(batch, to: db, checkSize: checkSize) }
            } catch {
                lock.withLock {
                    if backgroundError == nil { backgroundError = .writeFailed(cache: name, reason: String(describing: error)) }
                }
            }
        }
        // Keep the largest batch's lists for the next one (`taken` is their only other owner,
        // and it ends here, so they are not copied).
        if let largest = taken.indices.max(by: { taken[$0].operations.capacity < taken[$1].operations.capacity }) {
            let lists = taken[largest].takeEmptiedLists()
            lock.withLock { if spareLists == nil { spareLists = lists } }
        }
    }

    private func apply(_ batch: PendingBatch, to db: Database, checkSize: Bool) throws {
        let upsert = try db.cachedStatement(sql.upsert)
        try upsert.checkParameterCount(6)
        // Texts and bytes are bound from scratch memory SQLite reads in place: every
        // parameter is bound again for each write, and the bindings are cleared at the end.
        var scratch = BindingScratch(capacity: 16_384)
        defer { upsert.clearBindings() }
        // Writes are stamped in queue order, so the later of two writes is the more recent.
        var tick = nextTick(reserving: batch.operations.count)
        for operation in batch.operations {
            switch operation {
            case let .set(key, value, encoding, expires):
                tick += 1
                // Bound one by one: no array of values per write.
                scratch.startRow()
                try upsert.bind(.text(key), toParameter: 1, scratch: &scratch)
                try upsert.bind(.blob(value), toParameter: 2, scratch: &scratch)
                try upsert.bind(.text(encoding), toParameter: 3, scratch: &scratch)
                try upsert.bind(expires.map(DatabaseValue.real) ?? .null, toParameter: 4)
                try upsert.bind(.integer(tick), toParameter: 5)
                try upsert.bind(.integer(Int64(value.count)), toParameter: 6)
                try upsert.executeBound()
            case .remove(let key): try db.execute(sql.remove, [.text(key)])
            case .removeAll: try db.execute(sql.removeAll)
            case .removeLike(let pattern): try db.execute(sql.removeLike, [.text(pattern)])
            }
        }
        for (key, tick) in batch.touches { try db.execute(sql.touch, [.integer(tick), .text(key), .integer(tick)]) }
        guard checkSize else { return }
        try db.execute(sql.expire, [.real(Date().timeIntervalSince1970)])
        let count = Int(try db.scalar(sql.count)?.int64Value ?? 0)
        if count > capacity {
            try db.execute(sql.evict, [.integer(Int64(count - capacity))])
        }
    }

    // MARK: Reading

    /// The bytes cached under `key` (decrypted), or nil when absent or expired (an expired
    /// entry is removed). Waits for this process's queued writes to that key.
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
        waitIfPending(store: store, key: key)
        try prepare(store)
        return try store.queue.read { db in try db.scalar(sql.contains, [.text(key), .real(Date().timeIntervalSince1970)]) != nil }
    }

    /// How many entries the cache holds now (after committing queued writes).
    public func count() throws -> Int {
        try flush()
        guard let store = try resolveStore() else { return 0 }
        try prepare(store)
        return try store.queue.read { db in Int(try db.scalar(sql.count)?.int64Value ?? 0) }
    }

    private func entry(forKey key: String) throws -> (Data, String)? {
        guard let store = try resolveStore() else { return nil }
        waitIfPending(store: store, key: key)
        try prepare(store)
        let row: (DatabaseValue, String, Double?, Int64)? = try store.queue.read { db in
            var found: (DatabaseValue, String, Double?, Int64)?
            try db.cachedStatement(sql.select).forEachRow([.text(key)]) { s in
                found = (s.value(at: 0), s.value(at: 1).stringValue ?? "data", s.value(at: 2).doubleValue, s.value(at: 3).int64Value ?? 0)
                return false
            }
            return found
        }
        guard let (value, encoding, expires, accessed) = row, case .blob(let stored) = value else { return nil }
        let now = Date().timeIntervalSince1970
        if let expires, expires <= now {
            try removeValue(forKey: key)
            return nil
        }
        if Double(accessed) / 1_000_000 < now - LRUDiskCache.recencyInterval { touch(key, store: store) }
        guard isEncrypted else { return (stored, encoding) }
        do { return (try store.kv.defaultCrypt.decrypt(stored), encoding) } catch let error as CryptError {
            throw CacheError.cannotDecrypt(cache: name, key: key, reason: error)
        }
    }

    private func touch(_ key: String, store: Store) {
        let tick = nextTick()
        let schedule: Bool = lock.withLock {
            let i = batchIndex(for: store, expectingWrites: false)
            batches[i].touches[key] = tick
            let due = batches[i].touches.count >= 1024 && !flushScheduled
            if due { flushScheduled = true }
            return due
        }
        if schedule { writeQueue.async { [self] in flushPending() } }
    }

    private func waitIfPending(store: Store, key: String) {
        let pending = lock.withLock {
            // Taken batches are no longer queued but may not be committed yet.
            if flushing { return true }
            guard let batch = batches.first(where: { $0.store === store }) else { return false }
            return batch.hasBulkOperation || batch.pendingKeys[key] != nil
        }
        if pending { writeQueue.sync { flushPending() } }
    }

    /// Creates the table and records the cache in the store's metadata, once per store.
    private func prepare(_ store: Store) throws {
        if lock.withLock({ preparedStores.contains(store.path) }) { return }
        let table = Database.quoteIdentifier(tableName)
        try store.queue.inTransaction { db in
            try db.executeScript("""
                CREATE TABLE IF NOT EXISTS \(table)(
                  key TEXT PRIMARY KEY, value BLOB NOT NULL, encoding TEXT NOT NULL,
                  expires REAL, accessed INTEGER NOT NULL, size INTEGER NOT NULL) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS \(Database.quoteIdentifier(tableName + "_accessed")) ON \(table)(accessed);
                CREATE INDEX IF NOT EXISTS \(Database.quoteIdentifier(tableName + "_expires")) ON \(table)(expires) WHERE expires IS NOT NULL;
                \(CacheCatalog.schema)
                """)
            try db.execute("INSERT OR REPLACE INTO datacenter_caches(name, table_name, capacity, crypted, user_dependent) VALUES (?, ?, ?, ?, ?)",
                           [.text(name), .text(tableName), .integer(Int64(capacity)), .bool(isEncrypted), .bool(isUserDependent)])
        }
        _ = lock.withLock { preparedStores.insert(store.path) }
    }

    /// Writes the current store now: used at creation so the cache is listed before its
    /// first write. Does nothing for a user-dependent cache with no current user.
    private func prepareCurrentStore() throws {
        if let store = try resolveStore() { try prepare(store) }
    }
}
