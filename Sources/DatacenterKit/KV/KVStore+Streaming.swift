import Foundation

/// A stored KV row without its value: what listing and counting need, read without loading
/// the value's bytes.
public struct KVEntryMetadata: Sendable, Equatable {
    /// The business (namespace) of the entry.
    public let business: String
    /// The key within the business.
    public let key: String
    /// How the value is encoded.
    public let encoding: KVEncoding
    /// The option bits (encryption, purgeable).
    public let options: KVOptions
    /// The stored size in bytes, as `KVEntry.byteCount` counts it.
    public let byteCount: Int
}

/// A KV row that cannot be read as an entry (its recorded encoding is unknown, say, written
/// by a newer or a broken tool): what a listing shows in its place, so one bad row does not
/// hide the others.
public struct KVDamagedRow: Error, Sendable, Equatable {
    /// The business (namespace) of the row.
    public let business: String
    /// The key within the business.
    public let key: String
    /// The recorded encoding as stored (may be anything, even not text).
    public let encodingName: String
    /// The option bits (encryption, purgeable).
    public let options: KVOptions
    /// The stored size in bytes.
    public let byteCount: Int
    /// Why the row cannot be read, in plain words: `unknown encoding 'x'`.
    public let reason: String
}

/// Counts over one business of a KV store, computed by SQLite rather than by loading values.
public struct KVBusinessSummary: Sendable, Equatable {
    /// The business these counts describe.
    public let business: String
    /// How many values it holds.
    public let count: Int
    /// Their stored size in bytes, as `KVEntry.byteCount` counts it.
    public let byteCount: Int64
    /// How many are encrypted (with the default crypt or a custom one).
    public let encryptedCount: Int
    /// How many are marked purgeable.
    public let purgeableCount: Int
    /// The stored bytes of the purgeable ones.
    public let purgeableByteCount: Int64
    /// How many are locked: encrypted, and not opened by the crypts given (custom-encrypted
    /// values without a custom crypt always are). Nil when locks were not counted.
    public let lockedCount: Int?
}

extension KVStore {
    /// SQL for a row's stored size, matching `KVEntry.byteCount`: 8 for numbers, the byte
    /// length of text (UTF-8) and blobs. `length` of a blob column reads only its size.
    static let storedSizeSQL = """
        CASE typeof(value) WHEN 'blob' THEN length(value) WHEN 'text' THEN length(CAST(value AS BLOB)) \
        WHEN 'integer' THEN 8 WHEN 'real' THEN 8 ELSE 0 END
        """

    /// How many rows `reencryptDefaultEncryptedValues(with:)` holds in memory at once.
    static let reencryptionPageSize = 256

    // MARK: Streaming reads

    /// Calls `body` with each stored entry of `business` (or of every business), ordered by
    /// business and key, one row at a time: memory stays bounded by the largest value,
    /// whatever the store's size. Return false from `body` to stop early.
    ///
    /// The rows are one consistent snapshot, read by a statement of its own on the store's
    /// connection, which stays taken while `body` runs (other threads using this store wait).
    /// `body` may read the store on the same thread, but must not write to it: rows changed
    /// during the scan may be seen or not. For paging that releases the connection between
    /// pages, see `entries(business:after:limit:)`.
    ///
    /// For example:
    /// ```swift
    /// try store.forEachEntry(business: "settings") { entry in
    ///     print(entry.key, entry.byteCount)
    ///     return true
    /// }
    /// ```
    /// - throws: `KVError.corruptValue` for a row with an unknown encoding (rows before it
    ///   have been passed to `body`), `DatabaseError`, or what `body` throws.
    public func forEachEntry(business: String? = nil, _ body: (KVEntry) throws -> Bool) throws {
        try forEachEntryOrDamagedRow(business: business) { item in
            switch item {
            case .success(let entry): return try body(entry)
            case .failure(let damaged): throw KVError.corruptValue("\(damaged.business)/\(damaged.key): \(damaged.reason)")
            }
        }
    }

    /// `forEachEntry`, but a row that cannot be read as an entry (an unknown encoding) is
    /// handed to `body` as a `KVDamagedRow` and the scan goes on: for listings that show
    /// every row, the damaged ones marked.
    public func forEachEntryOrDamagedRow(business: String? = nil, _ body: (Result<KVEntry, KVDamagedRow>) throws -> Bool) throws {
        guard hasTable else { return }
        let sql = "SELECT business, key, value, encoding, options, modified FROM datacenter_kv"
            + (business == nil ? "" : " WHERE business = ?") + " ORDER BY business, key"
        try queue.read { db in
            let statement = try db.makeStatement(sql)
            try statement.forEachRow(business.map { [.text($0)] } ?? .none) { row in
                let business = row.value(at: 0).stringValue ?? "", key = row.value(at: 1).stringValue ?? ""
                let options = row.value(at: 4)
                guard let kind = KVStore.encoding(row.value(at: 3)) else {
                    let value = row.value(at: 2)
                    let size: Int
                    switch value {
                    case .null: size = 0
                    case .integer, .real: size = 8
                    case .text(let s): size = s.utf8.count
                    case .blob(let d): size = d.count
                    }
                    return try body(.failure(KVStore.damagedRow(business: business, key: key, encoding: row.value(at: 3),
                                                                options: options, byteCount: size)))
                }
                return try body(.success(KVEntry(business: business, key: key, encoding: kind,
                                                 options: KVOptions(rawValue: UInt32(truncatingIfNeeded: options.int64Value ?? 0)),
                                                 modified: Date(timeIntervalSince1970: row.value(at: 5).doubleValue ?? 0),
                                                 stored: row.value(at: 2))))
            }
        }
    }

    /// Calls `body` with each entry's metadata (business, key, encoding, options, stored
    /// size), in the order of `forEachEntry`, without reading the values themselves: the
    /// cheap pass of a listing that aligns columns before printing. Same snapshot and
    /// connection rules as `forEachEntry`; return false to stop.
    /// - throws: `KVError.corruptValue` for a row with an unknown encoding, `DatabaseError`,
    ///   or what `body` throws.
    public func forEachEntryMetadata(business: String? = nil, _ body: (KVEntryMetadata) throws -> Bool) throws {
        try forEachEntryMetadataOrDamagedRow(business: business) { item in
            switch item {
            case .success(let entry): return try body(entry)
            case .failure(let damaged): throw KVError.corruptValue("\(damaged.business)/\(damaged.key): \(damaged.reason)")
            }
        }
    }

    /// `forEachEntryMetadata`, but a row with an unknown encoding is handed to `body` as a
    /// `KVDamagedRow` and the scan goes on.
    public func forEachEntryMetadataOrDamagedRow(business: String? = nil,
                                                 _ body: (Result<KVEntryMetadata, KVDamagedRow>) throws -> Bool) throws {
        guard hasTable else { return }
        let sql = "SELECT business, key, encoding, options, \(KVStore.storedSizeSQL) FROM datacenter_kv"
            + (business == nil ? "" : " WHERE business = ?") + " ORDER BY business, key"
        try queue.read { db in
            let statement = try db.makeStatement(sql)
            try statement.forEachRow(business.map { [.text($0)] } ?? .none) { row in
                let business = row.value(at: 0).stringValue ?? "", key = row.value(at: 1).stringValue ?? ""
                let byteCount = Int(row.value(at: 4).int64Value ?? 0)
                guard let kind = KVStore.encoding(row.value(at: 2)) else {
                    return try body(.failure(KVStore.damagedRow(business: business, key: key, encoding: row.value(at: 2),
                                                                options: row.value(at: 3), byteCount: byteCount)))
                }
                let options = KVOptions(rawValue: UInt32(truncatingIfNeeded: row.value(at: 3).int64Value ?? 0))
                return try body(.success(KVEntryMetadata(business: business, key: key, encoding: kind, options: options,
                                                         byteCount: byteCount)))
            }
        }
    }

    /// Calls `body` with each key of `business`, sorted, one at a time (the streaming form
    /// of `allKeys(business:)`); return false to stop. Same snapshot and connection rules
    /// as `forEachEntry`.
    public func forEachKey(business: String, _ body: (String) throws -> Bool) throws {
        guard hasTable else { return }
        try queue.read { db in
            let statement = try db.makeStatement("SELECT key FROM datacenter_kv WHERE business = ? ORDER BY key")
            try statement.forEachRow([.text(business)]) { row in
                guard let key = row.value(at: 0).stringValue else { return true }
                return try body(key)
            }
        }
    }

    /// Calls `body` with each key of `business` and its decoded value, in key order, one at a
    /// time (the streaming form of `allValues(business:crypt:)`); return false to stop.
    /// `crypt` opens custom-encrypted values, as for `value(forKey:business:crypt:)`. Same
    /// snapshot and connection rules as `forEachEntry`.
    /// - throws: the first value that cannot be decoded or decrypted (`KVError`; the values
    ///   before it have been passed to `body`), or what `body` throws.
    public func forEachValue(business: String, crypt: (any DataCrypt)? = nil,
                             _ body: (String, KVValue) throws -> Bool) throws {
        try forEachEntry(business: business) { entry in try body(entry.key, try decode(entry, crypt: crypt)) }
    }

    // MARK: Counting

    /// Counts, sizes and lock counts per business, sorted by business, computed in SQL:
    /// no value is loaded except, when `countingLocked`, the default-encrypted ones, which
    /// are decrypted one row at a time to learn whether the store's default crypt opens
    /// them (a value is locked when it is encrypted and no crypt given opens it; custom-
    /// encrypted values are tried with `crypt`, and are locked without it). With a default
    /// crypt that is an empty `KeyRing`, nothing is decrypted at all.
    /// - parameter countingLocked: false skips the lock count (`lockedCount` is then nil)
    ///   and reads no value at all.
    public func businessSummaries(countingLocked: Bool = true, crypt: (any DataCrypt)? = nil) throws -> [KVBusinessSummary] {
        guard hasTable else { return [] }
        let defaultFlag = Int64(KVOptions.defaultEncrypted.rawValue), customFlag = Int64(KVOptions.customEncrypted.rawValue)
        let purgeableFlag = Int64(KVOptions.purgeable.rawValue)
        let size = KVStore.storedSizeSQL
        // Locked without trying: custom-encrypted values with no custom crypt, and default-
        // encrypted ones when the default crypt is known to hold no key. The others are
        // tried, as `decode` would open them: with `crypt` when given, else the default crypt.
        let noDefaultKey = (defaultCrypt as? KeyRing)?.isEmpty ?? false
        let encrypted = "options & \(defaultFlag | customFlag) != 0"
        let lockedInSQL: String, tryInSwift: String?
        if crypt != nil {
            (lockedInSQL, tryInSwift) = ("0", encrypted)
        } else if noDefaultKey {
            (lockedInSQL, tryInSwift) = (encrypted, nil)
        } else {
            (lockedInSQL, tryInSwift) = ("options & \(customFlag) != 0", "options & \(defaultFlag) != 0 AND options & \(customFlag) = 0")
        }
        let sql = """
            SELECT business, count(*), sum(\(size)), sum(\(encrypted)), sum(options & \(purgeableFlag) != 0),
              sum(CASE WHEN options & \(purgeableFlag) != 0 THEN \(size) ELSE 0 END), sum(\(lockedInSQL))
            FROM datacenter_kv GROUP BY business ORDER BY business
            """
        // Both scans read one snapshot: a read transaction unless one is open already.
        return try queue.read { db in
            try KVStore.inReadSnapshot(db) {
                var failed: [String: Int] = [:]
                if countingLocked, let tryInSwift {
                    // Decrypted one row at a time while the scan goes on: no value is kept.
                    let scan = try db.makeStatement("SELECT business, value, options, key, encoding FROM datacenter_kv WHERE " + tryInSwift)
                    try scan.forEachRow { row in
                        let options = KVOptions(rawValue: UInt32(truncatingIfNeeded: row.value(at: 2).int64Value ?? 0))
                        let business = row.value(at: 0).stringValue ?? ""
                        let encoding = row.value(at: 4).stringValue.flatMap(KVEncoding.init(rawValue:))
                        let context = encoding.map { CryptContext.kvValue(business: business, key: row.value(at: 3).stringValue ?? "", encoding: $0) }
                        if !opens(row.value(at: 1), at: context, options: options, crypt: crypt) {
                            failed[row.value(at: 0).stringValue ?? "", default: 0] += 1
                        }
                        return true
                    }
                }
                var summaries: [KVBusinessSummary] = []
                try db.makeStatement(sql).forEachRow { row in
                    let business = row.value(at: 0).stringValue ?? ""
                    summaries.append(KVBusinessSummary(
                        business: business, count: Int(row.value(at: 1).int64Value ?? 0),
                        byteCount: row.value(at: 2).int64Value ?? 0, encryptedCount: Int(row.value(at: 3).int64Value ?? 0),
                        purgeableCount: Int(row.value(at: 4).int64Value ?? 0), purgeableByteCount: row.value(at: 5).int64Value ?? 0,
                        lockedCount: countingLocked ? Int(row.value(at: 6).int64Value ?? 0) + failed[business, default: 0] : nil))
                    return true
                }
                return summaries
            }
        }
    }

    /// The encoding a row records, or nil when it is not one this engine knows.
    static func encoding(_ value: DatabaseValue) -> KVEncoding? {
        value.stringValue.flatMap(KVEncoding.init(rawValue:))
    }

    /// The damaged-row description of a row whose encoding is unknown.
    static func damagedRow(business: String, key: String, encoding: DatabaseValue, options: DatabaseValue,
                           byteCount: Int) -> KVDamagedRow {
        let name: String
        switch encoding {
        case .text(let text): name = text
        case .null: name = "NULL"
        case .integer(let v): name = String(v)
        case .real(let v): name = String(v)
        case .blob(let d): name = "<blob \(d.count) B>"
        }
        return KVDamagedRow(business: business, key: key, encodingName: name,
                            options: KVOptions(rawValue: UInt32(truncatingIfNeeded: options.int64Value ?? 0)),
                            byteCount: byteCount, reason: "unknown encoding '\(TextExcerpt.of(name, limit: 30))'")
    }

    /// Runs `body` inside a deferred (read) transaction, or as it is when one is open, so
    /// several statements see one snapshot of the file.
    static func inReadSnapshot<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        if db.isInTransaction { return try body() }
        return try db.inTransaction(.deferred, body)
    }

    /// True when the crypt `decode` would use opens `stored`, an encrypted value found at
    /// `context` (its authentication there succeeds; no context: an unknown encoding, which
    /// `decode` refuses); the plaintext is dropped at once.
    private func opens(_ stored: DatabaseValue, at context: CryptContext?, options: KVOptions, crypt: (any DataCrypt)?) -> Bool {
        guard case .blob(let ciphertext) = stored, let context else { return false }
        guard let decrypter = options.contains(.customEncrypted) ? crypt : (crypt ?? defaultCrypt) else { return false }
        return (try? decrypter.decrypt(ciphertext, boundTo: context)) != nil
    }
}
