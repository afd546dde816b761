import Foundation

/// Named binary blobs kept in a store's table (`APAsyncFileArrayService`): asynchronous
/// writes, reads, renames and removals with completion handlers, synchronous reads and
/// queries, optional encryption, and an optional limit on how many files are kept (the
/// oldest go first).
///
/// Every operation runs on one serial queue in the order it was asked, so a synchronous
/// read always sees the asynchronous writes asked before it, even from a thread that holds
/// the store (inside its transaction or `store.queue.write`): that thread runs the pending
/// writes itself rather than wait for them (`StoreSerialQueue`). Completion handlers run on
/// the thread that runs the operation.
///
/// A memory cache of file contents (`memoryCapacity` files, least recently used first out)
/// sits in front of the table: it is updated on the queue, in the order of the operations,
/// and keyed by store file as well as name, so it never serves one user's data to another.
///
/// Opened over a `FollowedStore` (`init(name:followedStore:…)`, `userDependent:`), each
/// operation works on the store current when it is asked: after a user switch, the next
/// operation goes to the new user's store (its table made on first use); with no one
/// signed in, it fails with `NoCurrentUserError` (a completion receives it) and writes nothing.
public final class FileArrayService: Sendable {
    /// The service's name; its table is `files_<name>`.
    public let name: String
    /// The table holding the files.
    public let tableName: String
    /// True when file contents are encrypted with the store's default crypt.
    public let isEncrypted: Bool
    /// The most files kept; 0 keeps every file.
    public let capacity: Int
    /// How many files' contents the memory cache keeps (0: none).
    public let memoryCapacity: Int
    private let location: Location
    /// The stores whose table exists, by `openingID` (a followed service makes it on first use).
    private let preparedStores = LockedState<Set<UInt64>>([])
    private let memory: LRUMemoryCache<CachedFile, Data>
    private let queue = StoreSerialQueue(label: "datacenter.file-array-service")

    /// Where the service's table lives.
    private enum Location: Sendable {
        case fixed(Store)
        case following(FollowedStore)
    }

    /// A memory-cache key: a file of one store.
    private struct CachedFile: Hashable, Sendable {
        /// The store's `openingID`: a store reopened after a reset is another store.
        let store: UInt64
        let name: String
    }

    /// The memory capacity a service gets when none is given.
    public static let defaultMemoryCapacity = 64

    /// Opens (creating) the service `name` in `store`.
    /// - parameter memoryCapacity: how many files' contents the memory cache keeps.
    public convenience init(name: String, store: Store, encrypted: Bool = false, capacity: Int = 0,
                            memoryCapacity: Int = FileArrayService.defaultMemoryCapacity) throws {
        try self.init(name: name, location: .fixed(store), encrypted: encrypted, capacity: capacity,
                      memoryCapacity: memoryCapacity)
        try prepare(store)
    }

    /// Opens the service `name` on a followed store (`initWithName:capacity:userDependent:
    /// crypted:`): each operation works on the store current when it is asked. Nothing is
    /// opened now, so this works with no one signed in; the operations then fail.
    public convenience init(name: String, followedStore: FollowedStore, encrypted: Bool = false, capacity: Int = 0,
                            memoryCapacity: Int = FileArrayService.defaultMemoryCapacity) throws {
        try self.init(name: name, location: .following(followedStore), encrypted: encrypted, capacity: capacity,
                      memoryCapacity: memoryCapacity)
    }

    private init(name: String, location: Location, encrypted: Bool, capacity: Int, memoryCapacity: Int) throws {
        guard !name.isEmpty else { throw CacheError.invalidName("a file service needs a name") }
        self.name = name
        self.tableName = "files_" + name
        self.isEncrypted = encrypted
        self.capacity = max(0, capacity)
        self.memoryCapacity = max(0, memoryCapacity)
        self.location = location
        self.memory = LRUMemoryCache(capacity: max(0, memoryCapacity))
    }

    /// Opens the service `name` of a data center: in the current user's store with
    /// `userDependent` (following user switches), else in the common store.
    public convenience init(name: String, dataCenter: DataCenter, userDependent: Bool, encrypted: Bool = false,
                            capacity: Int = 0, memoryCapacity: Int = FileArrayService.defaultMemoryCapacity) throws {
        try self.init(name: name, followedStore: dataCenter.followedStore(userDependent: userDependent), encrypted: encrypted,
                      capacity: capacity, memoryCapacity: memoryCapacity)
    }

    /// The store an operation asked now works on, its table made.
    /// - throws: `NoCurrentUserError` when user-dependent and no one is signed in.
    func resolveStore(_ operation: String) throws -> Store {
        switch location {
        case .fixed(let store): return store
        case .following(let followed):
            guard let owner = followed.currentOwner else {
                throw NoCurrentUserError(subject: "file service \(name)", operation: operation)
            }
            let store = try followed.store(of: owner)
            if !preparedStores.withLock({ $0.contains(store.openingID) }) { try prepare(store) }
            return store
        }
    }

    /// Creates the service's table (and its registry row) in `store`.
    private func prepare(_ store: Store) throws {
        try store.queue.write { db in
            try db.execute("""
                CREATE TABLE IF NOT EXISTS \(Database.quoteIdentifier(tableName))(
                  name TEXT PRIMARY KEY, data BLOB NOT NULL, size INTEGER NOT NULL, modified REAL NOT NULL)
                """)
            // Recorded so tools (a rekey) know which services are encrypted without the app.
            try db.execute(Self.registrySchema)
            try db.execute("INSERT OR REPLACE INTO \(Self.registryTable)(name, encrypted) VALUES (?, ?)",
                           [.text(name), .integer(isEncrypted ? 1 : 0)])
        }
        preparedStores.withLock { _ = $0.insert(store.openingID) }
    }

    /// The table recording each file service of a store and whether it is encrypted.
    public static let registryTable = "datacenter_file_services"
    static let registrySchema = """
        CREATE TABLE IF NOT EXISTS datacenter_file_services(name TEXT PRIMARY KEY, encrypted INTEGER NOT NULL) WITHOUT ROWID
        """

    /// Opens the service `name` in a custom storage's common store (or, with
    /// `userDependent`, its current user's store, following user switches from then on; nil
    /// when no user is signed in at opening — `init(name:followedStore:…)` opens one anyway).
    public convenience init?(name: String, storage: CustomStorage, userDependent: Bool = false,
                             encrypted: Bool = false, capacity: Int = 0,
                             memoryCapacity: Int = FileArrayService.defaultMemoryCapacity) throws {
        let followed = storage.followedStore(userDependent: userDependent)
        guard followed.currentOwner != nil else { return nil }
        try self.init(name: name, followedStore: followed, encrypted: encrypted, capacity: capacity, memoryCapacity: memoryCapacity)
        _ = try resolveStore("open")
    }

    private var table: String { Database.quoteIdentifier(tableName) }

    // MARK: Asynchronous

    /// Stores `data` under `fileName`, replacing any file of that name.
    public func write(_ data: Data, to fileName: String, completion: (@Sendable (Error?) -> Void)? = nil) {
        let store: Store
        do { store = try resolveStore("write") } catch { return enqueue { completion?(error) } }
        write(data, to: fileName, in: store, completion: completion)
    }

    /// `write` on a store already resolved.
    func write(_ data: Data, to fileName: String, in store: Store, completion: (@Sendable (Error?) -> Void)?) {
        // The operation runs first: `completion?(…)` would skip it when there is no completion.
        queue.async(on: store.queue) { [self] in
            let error = Self.error { try writeNow(data, to: fileName, in: store) }
            completion?(error)
        }
    }

    /// Reads `fileName`; the result is nil when there is no such file.
    public func read(_ fileName: String, completion: @escaping @Sendable (Result<Data?, Error>) -> Void) {
        let store: Store
        do { store = try resolveStore("read") } catch { return enqueue { completion(.failure(error)) } }
        read(fileName, in: store, completion: completion)
    }

    /// Reads `fileName` of `store` — resolved by the caller, so that what it read and what
    /// it caches are of one store whatever switch happens meanwhile — in the background.
    func read(_ fileName: String, in store: Store, completion: @escaping @Sendable (Result<Data?, Error>) -> Void) {
        queue.async(on: store.queue) { [self] in completion(Result { try readNow(fileName, in: store) }) }
    }

    /// Renames a file; fails when `from` does not exist, and replaces a file called `to`.
    public func rename(_ from: String, to: String, completion: (@Sendable (Error?) -> Void)? = nil) {
        let store: Store
        do { store = try resolveStore("rename") } catch { return enqueue { completion?(error) } }
        queue.async(on: store.queue) { [self] in
            let error = Self.error {
                defer {
                    memory.remove(CachedFile(store: store.openingID, name: from))
                    memory.remove(CachedFile(store: store.openingID, name: to))
                }
                try store.queue.inTransaction { db in
                    try db.execute("DELETE FROM \(table) WHERE name = ?", [.text(to)])
                    try db.execute("UPDATE \(table) SET name = ? WHERE name = ?", [.text(to), .text(from)])
                    if db.changes == 0 { throw CacheError.unknownCache("\(name)/\(from)") }
                }
            }
            completion?(error)
        }
    }

    /// Removes a file (nothing happens when there is none).
    public func remove(_ fileName: String, completion: (@Sendable (Error?) -> Void)? = nil) {
        let store: Store
        do { store = try resolveStore("remove") } catch { return enqueue { completion?(error) } }
        remove(fileName, in: store, completion: completion)
    }

    /// `remove` on a store already resolved.
    func remove(_ fileName: String, in store: Store, completion: (@Sendable (Error?) -> Void)?) {
        queue.async(on: store.queue) { [self] in
            memory.remove(CachedFile(store: store.openingID, name: fileName))
            let error = Self.error { try store.queue.write { db in try db.execute("DELETE FROM \(table) WHERE name = ?", [.text(fileName)]) } }
            completion?(error)
        }
    }

    /// Runs `body` on the service's queue, after every operation asked so far.
    func enqueue(_ body: @escaping @Sendable () -> Void) { queue.async(on: nil, body) }

    /// Waits until every operation asked so far has run.
    public func waitForPendingOperations() { queue.waitForPendingOperations() }

    // MARK: Synchronous

    /// The contents of `fileName`, or nil; waits for operations asked before.
    public func read(_ fileName: String) throws -> Data? {
        try read(fileName, in: try resolveStore("read"))
    }

    /// `fileName` of `store`, resolved by the caller; waits for operations asked before.
    func read(_ fileName: String, in store: Store) throws -> Data? {
        // A file in memory, with no operation pending or running, is what every operation
        // asked before left: served without the store's lock (a writer may hold it long).
        if queue.isIdle, let cached = memory.get(CachedFile(store: store.openingID, name: fileName)) { return cached }
        return try queue.sync(on: store.queue) { try readNow(fileName, in: store) }
    }

    /// Every file whose name matches the SQL LIKE `pattern`, by name.
    public func read(like pattern: String) throws -> [String: Data] {
        let store = try resolveStore("read")
        return try queue.sync(on: store.queue) {
            let rows = try store.queue.read { db in try db.query("SELECT name, data FROM \(table) WHERE name LIKE ?", [.text(pattern)]) }
            var result: [String: Data] = [:]
            for row in rows {
                guard let fileName = row[0].stringValue, let stored = row[1].dataValue else { continue }
                result[fileName] = try open(stored, fileName: fileName, in: store)
            }
            return result
        }
    }

    /// Removes every file whose name matches the SQL LIKE `pattern`; returns how many.
    @discardableResult
    public func remove(like pattern: String) throws -> Int {
        let store = try resolveStore("remove")
        return try queue.sync(on: store.queue) {
            defer { memory.removeAll() }
            return try store.queue.write { db in
                try db.execute("DELETE FROM \(table) WHERE name LIKE ?", [.text(pattern)])
                return db.changes
            }
        }
    }

    /// Removes every file.
    public func removeAll() throws {
        let store = try resolveStore("removeAll")
        try queue.sync(on: store.queue) {
            defer { memory.removeAll() }
            try store.queue.write { db in try db.execute("DELETE FROM \(table)") }
        }
    }

    /// True when a file called `fileName` exists.
    public func exists(_ fileName: String) throws -> Bool {
        let store = try resolveStore("read")
        return try queue.sync(on: store.queue) { try store.queue.read { db in try db.scalar("SELECT 1 FROM \(table) WHERE name = ?", [.text(fileName)]) != nil } }
    }

    /// Every file name, sorted.
    public func allNames() throws -> [String] {
        let store = try resolveStore("read")
        return try queue.sync(on: store.queue) { try store.queue.read { db in try db.query("SELECT name FROM \(table) ORDER BY name").compactMap { $0[0].stringValue } } }
    }

    /// How many files there are.
    public func count() throws -> Int {
        let store = try resolveStore("read")
        return try queue.sync(on: store.queue) { try store.queue.read { db in Int(try db.scalar("SELECT count(*) FROM \(table)")?.int64Value ?? 0) } }
    }

    // MARK: Helpers (on the queue)

    private func writeNow(_ data: Data, to fileName: String, in store: Store) throws {
        let key = CachedFile(store: store.openingID, name: fileName)
        memory.remove(key)
        let stored: Data
        do { stored = isEncrypted ? try store.kv.defaultCrypt.encrypt(data) : data } catch let error as CryptError {
            throw CacheError.cannotDecrypt(cache: name, key: fileName, reason: error)
        }
        let dropped = try store.queue.inTransaction { db -> Int in
            try db.execute("INSERT OR REPLACE INTO \(table)(name, data, size, modified) VALUES (?, ?, ?, ?)",
                           [.text(fileName), .blob(stored), .integer(Int64(data.count)), .real(Date().timeIntervalSince1970)])
            if capacity > 0 {
                try db.execute("DELETE FROM \(table) WHERE name IN (SELECT name FROM \(table) ORDER BY modified DESC, name LIMIT -1 OFFSET ?)",
                               [.integer(Int64(capacity))])
                return db.changes
            }
            return 0
        }
        // Files dropped for capacity leave the memory cache too.
        if dropped > 0 { memory.removeAll() }
        memory.set(data, for: key)
    }

    private func readNow(_ fileName: String, in store: Store) throws -> Data? {
        let key = CachedFile(store: store.openingID, name: fileName)
        if let cached = memory.get(key) { return cached }
        let stored = try store.queue.read { db in try db.scalar("SELECT data FROM \(table) WHERE name = ?", [.text(fileName)]) }
        guard let data = stored?.dataValue else { return nil }
        let opened = try open(data, fileName: fileName, in: store)
        memory.set(opened, for: key)
        return opened
    }

    private func open(_ stored: Data, fileName: String, in store: Store) throws -> Data {
        guard isEncrypted else { return stored }
        do { return try store.kv.defaultCrypt.decrypt(stored) } catch let error as CryptError {
            throw CacheError.cannotDecrypt(cache: name, key: fileName, reason: error)
        }
    }

    private static func error(_ body: () throws -> Void) -> Error? {
        do { try body(); return nil } catch { return error }
    }
}
