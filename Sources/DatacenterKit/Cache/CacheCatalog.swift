import Foundation

/// What a store records about one LRU disk cache, plus its current size.
public struct CacheInfo: Sendable, Equatable {
    /// The cache's name, as the app gave it.
    public let name: String
    /// The table holding its entries.
    public let tableName: String
    /// Entries kept after an eviction.
    public let capacity: Int
    /// True when values are encrypted with the store's default crypt.
    public let isEncrypted: Bool
    /// True when the cache follows the current user.
    public let isUserDependent: Bool
    /// Entries now.
    public let entryCount: Int
    /// Stored bytes of all values.
    public let byteCount: Int
}

/// One entry of a disk cache as stored, for tools.
public struct CacheEntry: Sendable, Equatable {
    /// The entry's key.
    public let key: String
    /// `archive` (an `ArchiveCodec` value) or `data` (raw bytes).
    public let encoding: String
    /// When the entry stops being served, if ever.
    public let expires: Date?
    /// Recency stamp (microseconds since 1970 of the last recorded use).
    public let accessed: Int64
    /// The stored bytes: ciphertext for an encrypted cache.
    public let stored: Data
}

/// Reads and edits the disk caches a store records, without the app's types: what
/// `datacenter cache` and the browser use.
public enum CacheCatalog {
    static let schema = """
        CREATE TABLE IF NOT EXISTS datacenter_caches(
          name TEXT PRIMARY KEY, table_name TEXT NOT NULL, capacity INTEGER NOT NULL,
          crypted INTEGER NOT NULL, user_dependent INTEGER NOT NULL) WITHOUT ROWID;
        """

    /// Every disk cache recorded in `store`, by name.
    public static func caches(in store: Store) throws -> [CacheInfo] {
        try store.queue.read { db in
            guard try Store.tableExists("datacenter_caches", in: db) else { return [] }
            return try db.query("SELECT name, table_name, capacity, crypted, user_dependent FROM datacenter_caches ORDER BY name").compactMap { row in
                guard let name = row[0].stringValue, let table = row[1].stringValue, try Store.tableExists(table, in: db) else { return nil }
                let size = try db.queryFirst("SELECT count(*), coalesce(sum(size), 0) FROM \(Database.quoteIdentifier(table))")
                return CacheInfo(name: name, tableName: table, capacity: Int(row[2].int64Value ?? 0),
                                 isEncrypted: (row[3].int64Value ?? 0) != 0, isUserDependent: (row[4].int64Value ?? 0) != 0,
                                 entryCount: Int(size?[0].int64Value ?? 0), byteCount: Int(size?[1].int64Value ?? 0))
            }
        }
    }

    /// The cache called `name` in `store`.
    /// - throws: `CacheError.unknownCache` when the store records none.
    public static func cache(named name: String, in store: Store) throws -> CacheInfo {
        guard let info = try caches(in: store).first(where: { $0.name == name }) else { throw CacheError.unknownCache(name) }
        return info
    }

    /// The entries of a cache ordered by key, `limit` at most after `afterKey` (keyset paging).
    public static func entries(of cache: CacheInfo, in store: Store, after afterKey: String? = nil, limit: Int = 1000) throws -> [CacheEntry] {
        let table = Database.quoteIdentifier(cache.tableName)
        return try store.queue.read { db in
            try db.query("SELECT key, encoding, expires, accessed, value FROM \(table) WHERE key > ? ORDER BY key LIMIT ?",
                         [.text(afterKey ?? ""), .integer(Int64(limit))]).map(entry)
        }
    }

    /// The entry under `key`, or nil.
    public static func entry(_ key: String, of cache: CacheInfo, in store: Store) throws -> CacheEntry? {
        try store.queue.read { db in
            try db.queryFirst("SELECT key, encoding, expires, accessed, value FROM \(Database.quoteIdentifier(cache.tableName)) WHERE key = ?",
                              [.text(key)]).map(entry)
        }
    }

    /// The entry's value: decrypted when the cache is encrypted, decoded when archived
    /// (a property list), else the raw bytes as `.data`.
    public static func decode(_ entry: CacheEntry, of cache: CacheInfo, crypt: any DataCrypt) throws -> PropertyListValue {
        try decode(stored: entry.stored, encoding: entry.encoding, encrypted: cache.isEncrypted, cache: cache.name, key: entry.key,
                   crypt: crypt)
    }

    /// A value as a cache's table stores it (`stored`, `encoding`), decrypted when the cache
    /// is `encrypted`, decoded as `decode(_:of:crypt:)` decodes an entry: for a reader of the
    /// table without the store (a diff).
    package static func decode(stored: Data, encoding: String, encrypted: Bool, cache: String, key: String,
                               crypt: any DataCrypt) throws -> PropertyListValue {
        var bytes = stored
        if encrypted {
            do { bytes = try crypt.decrypt(bytes) } catch let error as CryptError {
                throw CacheError.cannotDecrypt(cache: cache, key: key, reason: error)
            }
        }
        guard encoding == "archive" else { return .data(bytes) }
        do { return try ArchiveCodec.propertyList(from: bytes) } catch {
            throw CacheError.decoding(cache: cache, key: key, reason: String(describing: error))
        }
    }

    /// Removes `key` from a cache; true when it was there.
    @discardableResult
    public static func remove(_ key: String, of cache: CacheInfo, in store: Store) throws -> Bool {
        try store.queue.write { db in
            try db.execute("DELETE FROM \(Database.quoteIdentifier(cache.tableName)) WHERE key = ?", [.text(key)])
            return db.changes > 0
        }
    }

    /// Empties a cache; returns how many entries went.
    @discardableResult
    public static func clear(_ cache: CacheInfo, in store: Store) throws -> Int {
        try store.queue.write { db in
            try db.execute("DELETE FROM \(Database.quoteIdentifier(cache.tableName))")
            return db.changes
        }
    }

    private static func entry(_ row: Row) -> CacheEntry {
        CacheEntry(key: row[0].stringValue ?? "", encoding: row[1].stringValue ?? "data",
                   expires: row[2].doubleValue.map(Date.init(timeIntervalSince1970:)), accessed: row[3].int64Value ?? 0,
                   stored: row[4].dataValue ?? Data())
    }
}
