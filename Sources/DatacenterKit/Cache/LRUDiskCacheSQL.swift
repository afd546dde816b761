import Foundation

/// The SQL of one disk cache's table (`docs/FORMAT.md`, "LRU disk caches"): the statements,
/// built once, and the functions that run them on a connection the caller holds.
///
/// Nothing here takes a lock or opens a transaction: `LRUDiskWriteQueue` commits writes in
/// transactions of its own, and `LRUDiskCache` reads inside `DatabaseQueue.read`.
struct LRUDiskCacheSQL: Sendable {
    /// The table's name, unquoted (`lru_<name>`).
    let tableName: String
    let upsert, remove, removeIfExpired, removeAll, removeLike, touch, expire, count, evict, select, contains: String
    /// Whether a key matches a `LIKE` pattern, asked of SQLite so that a pending
    /// `removeValues(like:)` hides exactly the keys it will delete.
    let like = "SELECT ? LIKE ?"

    init(tableName: String) {
        self.tableName = tableName
        let table = Database.quoteIdentifier(tableName)
        upsert = "INSERT OR REPLACE INTO \(table)(key, value, encoding, expires, accessed, size) VALUES (?, ?, ?, ?, ?, ?)"
        remove = "DELETE FROM \(table) WHERE key = ?"
        removeIfExpired = "DELETE FROM \(table) WHERE key = ? AND expires IS NOT NULL AND expires <= ?"
        removeAll = "DELETE FROM \(table)"
        removeLike = "DELETE FROM \(table) WHERE key LIKE ?"
        touch = "UPDATE \(table) SET accessed = ? WHERE key = ? AND accessed < ?"
        expire = "DELETE FROM \(table) WHERE expires IS NOT NULL AND expires <= ?"
        count = "SELECT count(*) FROM \(table)"
        evict = "DELETE FROM \(table) WHERE key IN (SELECT key FROM \(table) ORDER BY accessed ASC LIMIT ?)"
        select = "SELECT value, encoding, expires, accessed FROM \(table) WHERE key = ?"
        contains = "SELECT 1 FROM \(table) WHERE key = ? AND (expires IS NULL OR expires > ?)"
    }

    // MARK: Schema

    /// Creates the table and its indexes when missing and records the cache in
    /// `datacenter_caches`. Run inside a transaction.
    func createTable(in db: Database, cacheName: String, capacity: Int, encrypted: Bool, userDependent: Bool) throws {
        let table = Database.quoteIdentifier(tableName)
        try db.executeScript("""
            CREATE TABLE IF NOT EXISTS \(table)(
              key TEXT PRIMARY KEY, value BLOB NOT NULL, encoding TEXT NOT NULL,
              expires REAL, accessed INTEGER NOT NULL, size INTEGER NOT NULL) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS \(Database.quoteIdentifier(tableName + "_accessed")) ON \(table)(accessed);
            CREATE INDEX IF NOT EXISTS \(Database.quoteIdentifier(tableName + "_expires")) ON \(table)(expires) WHERE expires IS NOT NULL;
            \(CacheCatalog.schema)
            """)
        try db.execute("INSERT OR REPLACE INTO datacenter_caches(name, table_name, capacity, crypted, user_dependent) VALUES (?, ?, ?, ?, ?)",
                       [.text(cacheName), .text(tableName), .integer(Int64(capacity)), .bool(encrypted), .bool(userDependent)])
    }

    // MARK: Writing

    /// Applies the lists of `operations` in order, stamping each set with the next of the
    /// ticks after `firstTick` (so a later write carries a later stamp), then the recency
    /// `touches`; with `capacity`, also removes expired entries and evicts the least recently
    /// used down to `capacity`. Run inside the flush's own transaction: on a throw, the
    /// caller rolls all of it back.
    func apply(_ operations: [[LRUDiskWriteQueue.Operation]], touches: [String: Int64], firstTick: Int64,
               evictingDownTo capacity: Int?, in db: Database) throws {
        let upsert = try db.cachedStatement(self.upsert)
        try upsert.checkParameterCount(6)
        // Texts and bytes are bound from scratch memory SQLite reads in place: every
        // parameter is bound again for each write, and the bindings are cleared at the end.
        var scratch = BindingScratch(capacity: 16_384)
        defer { upsert.clearBindings() }
        var tick = firstTick
        for list in operations {
            for operation in list {
                try apply(operation, tick: &tick, upsert: upsert, scratch: &scratch, in: db)
            }
        }
        for (key, tick) in touches { try db.execute(touch, [.integer(tick), .text(key), .integer(tick)]) }
        if let capacity { try evictLeastRecentlyUsed(downTo: capacity, in: db) }
    }

    /// Applies one operation; a set takes the next `tick`.
    @inline(__always)
    private func apply(_ operation: LRUDiskWriteQueue.Operation, tick: inout Int64, upsert: Statement,
                       scratch: inout BindingScratch, in db: Database) throws {
        switch operation {
        case let .set(key, entry):
            tick += 1
            // Bound one by one: no array of values per write.
            scratch.startRow()
            try upsert.bind(.text(key), toParameter: 1, scratch: &scratch)
            try upsert.bind(.blob(entry.stored), toParameter: 2, scratch: &scratch)
            try upsert.bind(.text(entry.encoding), toParameter: 3, scratch: &scratch)
            try upsert.bind(entry.expires.map(DatabaseValue.real) ?? .null, toParameter: 4)
            try upsert.bind(.integer(tick), toParameter: 5)
            try upsert.bind(.integer(Int64(entry.stored.count)), toParameter: 6)
            try upsert.executeBound()
        case .remove(let key): try db.execute(remove, [.text(key)])
        case .removeIfExpired(let key): try db.execute(removeIfExpired, [.text(key), .real(Date().timeIntervalSince1970)])
        case .removeAll: try db.execute(removeAll)
        case .removeLike(let pattern): try db.execute(removeLike, [.text(pattern)])
        }
    }

    // MARK: Reading

    /// The row of `key` as stored (value still encrypted for an encrypted cache), expired
    /// or not; nil when absent.
    func entry(forKey key: String, in db: Database) throws -> LRUDiskCacheSQL.Row? {
        var found: Row?
        // Bound without an array of values: this is every read's path.
        _ = try db.cachedStatement(select).firstRow(bindingCount: 1, { _ in .text(key) }) { s in
            if case .blob(let stored) = s.value(at: 0) {
                found = Row(stored: stored, encoding: s.value(at: 1).stringValue ?? "data",
                            expires: s.value(at: 2).doubleValue, accessed: s.value(at: 3).int64Value ?? 0)
            }
        }
        return found
    }

    /// True when `key` has a row that has not expired at `now`.
    func containsEntry(forKey key: String, at now: TimeInterval, in db: Database) throws -> Bool {
        try db.scalar(contains, [.text(key), .real(now)]) != nil
    }

    /// The number of rows, expired ones included.
    func countEntries(in db: Database) throws -> Int {
        Int(try db.scalar(count)?.int64Value ?? 0)
    }

    /// True when `key` matches any of the `LIKE` `patterns`, as the `DELETE … WHERE key
    /// LIKE ?` of `removeValues(like:)` will decide it.
    func key(_ key: String, matchesAnyOf patterns: [String], in db: Database) throws -> Bool {
        for pattern in patterns where try db.scalar(like, [.text(key), .text(pattern)])?.int64Value == 1 { return true }
        return false
    }

    /// One row of the table, as read.
    struct Row {
        /// The value as stored: encrypted in an encrypted cache.
        var stored: Data
        /// `archive` or `data`.
        var encoding: String
        /// Unix time from which the entry is expired, or nil.
        var expires: Double?
        /// The recency stamp, microseconds since 1970.
        var accessed: Int64
    }
}
