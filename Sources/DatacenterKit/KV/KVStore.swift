import CSQLite
import Foundation

/// How to encrypt a value being stored.
public enum KVEncryption: Sendable {
    /// Stored in the clear.
    case none
    /// With the store's default crypt; reads decrypt without being told (`APDefaultEncrypt`).
    case `default`
    /// With the caller's crypt; reads must pass the same crypt.
    case custom(any DataCrypt)
}

/// A stored KV row as it is on disk: metadata and the stored (possibly encrypted) value.
public struct KVEntry: Sendable, Equatable {
    /// The business (namespace) the key belongs to.
    public let business: String
    /// The key within its business.
    public let key: String
    /// How the value was encoded, which tells how to decode it.
    public let encoding: KVEncoding
    /// The flags stored with the value: encryption and purgeability.
    public let options: KVOptions
    /// When the value was last written.
    public let modified: Date
    /// The value as stored: for an encrypted value, the ciphertext blob.
    public let stored: DatabaseValue

    /// The stored size in bytes.
    public var byteCount: Int {
        switch stored {
        case .null: return 0
        case .integer, .real: return 8
        case .text(let s): return s.utf8.count
        case .blob(let d): return d.count
        }
    }
}

/// The key-value store of one store file, namespaced by business (`APSharedPreferences`).
///
/// Writes are durable when they return: each is committed to the store's write-ahead log,
/// which survives a crash of the process (`sync()` also forces it to the database file).
/// Decoded values of recent reads are kept in a bounded memory cache; values encrypted with
/// a custom crypt are never cached. Thread-safe.
public final class KVStore: Sendable {
    /// The table that holds the values.
    public static let tableName = "datacenter_kv"

    /// The SQL that creates the KV table; shared with the benchmark's raw-SQLite baseline so
    /// both measure the same table.
    package static let schema = """
        CREATE TABLE IF NOT EXISTS datacenter_kv(
          business TEXT NOT NULL,
          key TEXT NOT NULL,
          value,
          encoding TEXT NOT NULL,
          options INTEGER NOT NULL DEFAULT 0,
          modified REAL NOT NULL,
          PRIMARY KEY (business, key)
        ) WITHOUT ROWID;
        """

    /// The statement that writes one value, replacing any value under the same key.
    package static let upsertSQL = "INSERT OR REPLACE INTO datacenter_kv(business, key, value, encoding, options, modified) VALUES (?, ?, ?, ?, ?, ?)"
    /// The statement that reads one value and its metadata by business and key.
    package static let selectSQL = "SELECT value, encoding, options, modified FROM datacenter_kv WHERE business = ? AND key = ?"

    private struct CacheKey: Hashable, Sendable {
        let business: String
        let key: String
    }

    let queue: DatabaseQueue
    /// The crypt used for `.default` encryption and for reading values so marked.
    public let defaultCrypt: any DataCrypt
    private let cache: LRUMemoryCache<CacheKey, KVValue>
    private let cacheGuard = CacheGuard()
    /// True when the file had the KV table when the store was opened (a read-only store of a
    /// file without one reads as empty).
    let hasTable: Bool

    init(queue: DatabaseQueue, crypt: any DataCrypt, cacheCapacity: Int, hasTable: Bool) {
        self.queue = queue
        self.defaultCrypt = crypt
        self.cache = LRUMemoryCache(capacity: cacheCapacity)
        self.hasTable = hasTable
    }

    /// The store file.
    public var path: String { queue.path }

    // MARK: Writing

    /// Stores `value` under `key` in `business`, replacing what was there.
    /// - parameter options: `.purgeable` marks the value for cache cleaning; the encryption
    ///   bits are set from `encryption`, whatever is passed.
    public func set(_ value: KVValue, forKey key: String, business: String,
                    encryption: KVEncryption = .none, options: KVOptions = []) throws {
        try checkWritable()
        var options = options.subtracting([.defaultEncrypted, .customEncrypted])
        let stored: DatabaseValue
        do {
            // Encrypted values are bound to their place: copied elsewhere, they do not open.
            switch encryption {
            case .none: stored = try value.databaseValue()
            case .default:
                options.insert(.defaultEncrypted)
                let context = CryptContext.kvValue(business: business, key: key, encoding: value.encoding)
                stored = .blob(try value.withPlaintextBytes { try defaultCrypt.encrypt(bytes: $0, boundTo: context) })
            case .custom(let crypt):
                options.insert(.customEncrypted)
                let context = CryptContext.kvValue(business: business, key: key, encoding: value.encoding)
                stored = .blob(try value.withPlaintextBytes { try crypt.encrypt(bytes: $0, boundTo: context) })
            }
        } catch let error as CryptError {
            throw KVError.cannotDecrypt(business: business, key: key, reason: error)
        }
        let cacheKey = CacheKey(business: business, key: key)
        try write { db in
            let upsert = try db.cachedStatement(KVStore.upsertSQL)
            try upsert.checkParameterCount(6)
            // The texts and bytes are bound from scratch memory SQLite reads in place (one
            // small allocation instead of one per value); the bindings go with the write.
            var bindingScratch = BindingScratch(capacity: 512)
            defer { upsert.clearBindings() }
            let values: [DatabaseValue] = [
                .text(business), .text(key), stored, .text(value.encoding.rawValue),
                .integer(Int64(options.rawValue)), .real(Date().timeIntervalSince1970),
            ]
            for (index, value) in values.enumerated() { try upsert.bind(value, toParameter: index + 1, scratch: &bindingScratch) }
            try upsert.executeBound()
            // Write-through for values already cached; reads fill the cache, writes never grow it.
            // Done under the connection's lock, so cache updates follow the order of the writes.
            // Inside a batch the value is dropped instead: other threads, which read the cache
            // without the lock, must not see it before it commits.
            cacheGuard.write {
                if options.contains(.customEncrypted) || db.isInTransaction {
                    cache.remove(cacheKey)
                } else {
                    cache.updateIfPresent(value, for: cacheKey)
                }
            }
        }
    }

    /// Removes the value under `key` in `business`; returns true when there was one.
    @discardableResult
    public func removeValue(forKey key: String, business: String) throws -> Bool {
        try checkWritable()
        return try write { db in
            try db.execute("DELETE FROM datacenter_kv WHERE business = ? AND key = ?", [.text(business), .text(key)])
            cacheGuard.write { _ = cache.remove(CacheKey(business: business, key: key)) }
            return db.changes > 0
        }
    }

    /// Removes every value of `business` whose key matches the SQL LIKE `pattern`
    /// (`%` any run, `_` one character); returns how many.
    @discardableResult
    public func removeValues(like pattern: String, business: String) throws -> Int {
        try checkWritable()
        return try write { db in
            try db.execute("DELETE FROM datacenter_kv WHERE business = ? AND key LIKE ?", [.text(business), .text(pattern)])
            cacheGuard.write { _ = cache.removeAll { $0.business == business } }
            return db.changes
        }
    }

    /// Removes every value of `business`; returns how many.
    @discardableResult
    public func removeAll(business: String) throws -> Int {
        try checkWritable()
        return try write { db in
            try db.execute("DELETE FROM datacenter_kv WHERE business = ?", [.text(business)])
            cacheGuard.write { _ = cache.removeAll { $0.business == business } }
            return db.changes
        }
    }

    /// Removes every value marked `.purgeable`, in every business; returns how many.
    @discardableResult
    public func removePurgeableValues() throws -> Int {
        try checkWritable()
        return try write { db in
            try db.execute("DELETE FROM datacenter_kv WHERE options & ? != 0", [.integer(Int64(KVOptions.purgeable.rawValue))])
            cacheGuard.write { cache.removeAll() }
            return db.changes
        }
    }

    /// Runs `body` in one transaction: every write it makes commits together, or none does
    /// when it throws; other threads see none of them before the commit. Use it for many
    /// writes at once (a single commit is far cheaper).
    public func batch<T>(_ body: () throws -> T) throws -> T {
        try checkWritable()
        return try queue.write { _ in
            do {
                return try queue.inTransaction { _ in try body() }
            } catch {
                // The cache may hold values that were rolled back: empty it before anyone
                // else reaches the connection.
                cacheGuard.write { cache.removeAll() }
                throw error
            }
        }
    }

    /// Forces committed writes from the write-ahead log into the database file and to disk
    /// (Android's `commit()` guarantee), and truncates the log so it takes no space.
    ///
    /// Inside a transaction (a caller's `batch`, or one begun on the connection) there is
    /// nothing committed to force yet: the writes are that transaction's, and land with its
    /// commit. SQLite refuses a checkpoint then ("database table is locked"), so none is made.
    public func sync() throws {
        guard !queue.isReadOnly else { return }
        _ = try queue.write { db in
            guard !db.isInTransaction else { return }
            _ = try db.scalar("PRAGMA wal_checkpoint(TRUNCATE)", cached: false)
        }
    }

    /// Re-encrypts every value stored with the default crypt under `newCrypt`, in one
    /// transaction; values with a custom crypt are left as they are. Returns how many.
    /// Every value is rewritten bound to its place, which upgrades values written before
    /// binding existed (pass the current crypt as `newCrypt` to upgrade without a new key).
    /// Values that the current default crypt cannot open fail the whole operation, and the
    /// store is left as it was.
    ///
    /// The rows are read and rewritten a page at a time (keyset paging on the primary key,
    /// inside the transaction), so memory stays bounded by a page of values, whatever the
    /// store's size.
    public func reencryptDefaultEncryptedValues(with newCrypt: any DataCrypt) throws -> Int {
        try checkWritable()
        cache.removeAll()
        return try queue.inTransaction { db in
            let flag = Int64(KVOptions.defaultEncrypted.rawValue)
            let columns = "SELECT business, key, value, encoding FROM datacenter_kv WHERE options & ? != 0"
            let first = try db.makeStatement(columns + " ORDER BY business, key LIMIT ?")
            let next = try db.makeStatement(columns + " AND (business, key) > (?, ?) ORDER BY business, key LIMIT ?")
            let update = try db.makeStatement("UPDATE datacenter_kv SET value = ? WHERE business = ? AND key = ?")
            let pageSize = Int64(KVStore.reencryptionPageSize)
            var count = 0
            var last: (business: String, key: String)?
            var page: [(business: String, key: String, value: DatabaseValue, encoding: DatabaseValue)] = []
            page.reserveCapacity(KVStore.reencryptionPageSize)
            repeat {
                page.removeAll(keepingCapacity: true)
                // The page is read whole and its statement reset before any row is updated:
                // a scan never runs over rows being rewritten.
                let collect: (Statement) throws -> Bool = { row in
                    page.append((row.value(at: 0).stringValue ?? "", row.value(at: 1).stringValue ?? "", row.value(at: 2), row.value(at: 3)))
                    return true
                }
                if let last {
                    try next.forEachRow([.integer(flag), .text(last.business), .text(last.key), .integer(pageSize)], collect)
                } else {
                    try first.forEachRow([.integer(flag), .integer(pageSize)], collect)
                }
                for row in page {
                    guard case .blob(let ciphertext) = row.value else {
                        throw KVError.corruptValue("\(row.business)/\(row.key) is marked encrypted but is not a blob")
                    }
                    guard let name = row.encoding.stringValue, let encoding = KVEncoding(rawValue: name) else {
                        throw KVError.corruptValue("\(row.business)/\(row.key) has unknown encoding \(row.encoding)")
                    }
                    let context = CryptContext.kvValue(business: row.business, key: row.key, encoding: encoding)
                    do {
                        let plain = try defaultCrypt.decrypt(ciphertext, boundTo: context)
                        let sealed = try plain.withUnsafeBytes { try newCrypt.encrypt(bytes: $0, boundTo: context) }
                        try update.execute([.blob(sealed), .text(row.business), .text(row.key)])
                    } catch let error as CryptError {
                        throw KVError.cannotDecrypt(business: row.business, key: row.key, reason: error)
                    }
                }
                count += page.count
                if let end = page.last { last = (end.business, end.key) }
            } while page.count == KVStore.reencryptionPageSize
            return count
        }
    }

    // MARK: Reading

    /// The value under `key` in `business`, decoded by its recorded encoding, or nil.
    /// Values encrypted with the default crypt decrypt without being told; values encrypted
    /// with a custom crypt need `crypt`.
    /// - throws: `KVError.cannotDecrypt` with a wrong or missing key, never the ciphertext.
    public func value(forKey key: String, business: String, crypt: (any DataCrypt)? = nil) throws -> KVValue? {
        let cacheKey = CacheKey(business: business, key: key)
        if let cached = cache.get(cacheKey) { return cached }
        // Note the cache generation with the row, under the connection's lock: if a write
        // changes the cache while this read decodes, the decoded value is not cached. Nor is a
        // value read inside a batch, which may yet be rolled back.
        var generation: UInt64 = 0
        var inTransaction = false
        let fetched = try queue.read { db in
            generation = cacheGuard.generation
            inTransaction = db.isInTransaction
            return try entry(forKey: key, business: business)
        }
        guard let entry = fetched else { return nil }
        let value = try decode(entry, crypt: crypt)
        if !entry.options.contains(.customEncrypted), !inTransaction {
            cacheGuard.ifUnchanged(since: generation) { cache.set(value, for: cacheKey) }
        }
        return value
    }

    /// The stored row under `key` in `business`, without decoding or decrypting it.
    public func entry(forKey key: String, business: String) throws -> KVEntry? {
        guard hasTable else { return nil }
        return try queue.read { db in
            let statement = try db.cachedStatement(KVStore.selectSQL)
            var entry: KVEntry?
            try statement.forEachRow([.text(business), .text(key)]) { row in
                entry = try KVStore.entry(business: business, key: key, value: row.value(at: 0),
                                          encoding: row.value(at: 1), options: row.value(at: 2), modified: row.value(at: 3))
                return false
            }
            return entry
        }
    }

    /// Decodes a stored entry, decrypting it when it is encrypted.
    public func decode(_ entry: KVEntry, crypt: (any DataCrypt)? = nil) throws -> KVValue {
        try KVStore.decode(entry, defaultCrypt: crypt ?? defaultCrypt, customCrypt: crypt)
    }

    /// Decodes a stored entry read without a store (a diff, a tool): a value encrypted with
    /// the default crypt is decrypted with `defaultCrypt`, one with the app's own crypt with
    /// `customCrypt` (none: `KVError.needsCustomCrypt`).
    public static func decode(_ entry: KVEntry, defaultCrypt: any DataCrypt, customCrypt: (any DataCrypt)? = nil) throws -> KVValue {
        do {
            if entry.options.isEncrypted {
                let decrypter: any DataCrypt
                if entry.options.contains(.customEncrypted) {
                    guard let customCrypt else { throw KVError.needsCustomCrypt(business: entry.business, key: entry.key) }
                    decrypter = customCrypt
                } else {
                    decrypter = defaultCrypt
                }
                guard case .blob(let ciphertext) = entry.stored else {
                    throw KVError.corruptValue("\(entry.business)/\(entry.key) is marked encrypted but is not a blob")
                }
                let plain: Data
                let context = CryptContext.kvValue(business: entry.business, key: entry.key, encoding: entry.encoding)
                do { plain = try decrypter.decrypt(ciphertext, boundTo: context) } catch let error as CryptError {
                    throw KVError.cannotDecrypt(business: entry.business, key: entry.key, reason: error)
                }
                return try KVValue(plaintext: plain, encoding: entry.encoding)
            }
            return try KVValue(stored: entry.stored, encoding: entry.encoding)
        } catch KVError.corruptValue(let why) {
            throw KVError.corruptValue("\(entry.business)/\(entry.key): \(why)")
        }
    }

    /// True when `business` has a value under `key`.
    public func containsValue(forKey key: String, business: String) throws -> Bool {
        if cache.contains(CacheKey(business: business, key: key)) { return true }
        guard hasTable else { return false }
        return try queue.read { db in
            try db.scalar("SELECT 1 FROM datacenter_kv WHERE business = ? AND key = ?", [.text(business), .text(key)]) != nil
        }
    }

    /// The keys of `business`, sorted. The array is built straight from the rows, sized by a
    /// count first; `forEachKey(business:_:)` streams them instead.
    public func allKeys(business: String) throws -> [String] {
        guard hasTable else { return [] }
        return try queue.read { db in
            try KVStore.inReadSnapshot(db) {
                var keys: [String] = []
                keys.reserveCapacity(Int(try db.scalar("SELECT count(*) FROM datacenter_kv WHERE business = ?",
                                                       [.text(business)])?.int64Value ?? 0))
                try forEachKey(business: business) { keys.append($0); return true }
                return keys
            }
        }
    }

    /// Every business that has at least one value, sorted.
    public func allBusinesses() throws -> [String] {
        guard hasTable else { return [] }
        return try queue.read { db in
            try db.query("SELECT DISTINCT business FROM datacenter_kv ORDER BY business").compactMap { $0[0].stringValue }
        }
    }

    /// The stored entries of one business, or of all, ordered by business and key, built
    /// straight from the rows; `forEachEntry(business:_:)` streams them instead.
    public func entries(business: String? = nil) throws -> [KVEntry] {
        var entries: [KVEntry] = []
        try forEachEntry(business: business) { entries.append($0); return true }
        return entries
    }

    /// Every value of `business` decoded, by key (Android's `getAll`). Each row is decoded as
    /// it is read, so the stored form of the values is never held alongside the result;
    /// `forEachValue(business:crypt:_:)` streams them instead.
    /// - throws: the first value that cannot be decoded or decrypted.
    public func allValues(business: String, crypt: (any DataCrypt)? = nil) throws -> [String: KVValue] {
        var result: [String: KVValue] = [:]
        try forEachValue(business: business, crypt: crypt) { key, value in
            result[key] = value
            return true
        }
        return result
    }

    /// Forgets every cached decoded value (the next reads go to the file).
    public func clearMemoryCache() { cache.removeAll() }

    // MARK: Helpers

    /// The entry a `datacenter_kv` row holds (its columns as stored).
    /// - throws: `KVError.corruptValue` when the recorded encoding is not one this engine writes.
    public static func entry(business: String, key: String, value: DatabaseValue, encoding: DatabaseValue,
                             options: DatabaseValue, modified: DatabaseValue) throws -> KVEntry {
        guard let name = encoding.stringValue, let kind = KVEncoding(rawValue: name) else {
            throw KVError.corruptValue("\(business)/\(key) has unknown encoding \(encoding)")
        }
        return KVEntry(business: business, key: key, encoding: kind,
                       options: KVOptions(rawValue: UInt32(truncatingIfNeeded: options.int64Value ?? 0)),
                       modified: Date(timeIntervalSince1970: modified.doubleValue ?? 0), stored: value)
    }

    private func checkWritable() throws {
        if queue.isReadOnly { throw KVError.readOnly(path: path) }
    }

    /// Runs a write, turning SQLite's read-only refusals into `KVError.readOnly`.
    private func write<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try queue.write(body) } catch let error as DatabaseError where error.isReadOnly {
            throw KVError.readOnly(path: path)
        }
    }
}

/// Orders the memory cache's updates with the writes they mirror. Writes change the cache
/// through `write`, under the connection's lock, starting a new generation; a read caches
/// what it fetched only if the generation is still the one it saw when fetching, so a read
/// that was slow to decode cannot cache a value a write replaced or removed meanwhile.
private final class CacheGuard: Sendable {
    /// The current generation; `body`s run with it locked.
    private let current = LockedState<UInt64>(0)

    /// The current generation.
    var generation: UInt64 { current.withLock { $0 } }

    /// Runs `body`, a cache change mirroring a write, and starts a new generation.
    func write(_ body: () -> Void) {
        current.withLock { current in
            current &+= 1
            body()
        }
    }

    /// Runs `body` only if no write changed the cache since `generation`.
    func ifUnchanged(since generation: UInt64, _ body: () -> Void) {
        current.withLock { current in if current == generation { body() } }
    }
}
