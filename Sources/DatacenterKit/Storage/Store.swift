import Foundation

/// One store: a SQLite file holding the key-value table, DAO tables and LRU disk-cache
/// tables, with the metadata that lets a browser find them (`APSharedPreferences`'s file).
///
/// Opening a store read-write creates its tables and switches the file to WAL mode;
/// opening it read-only changes nothing in the file.
public final class Store: Sendable {
    /// The store's file.
    public let path: String
    /// Tells two openings of one path apart, within this process: a store opened again
    /// after `DataCenter.reset()` deleted the first has another. What is kept per store (a
    /// user-following DAO's objects, an array service's memory cache and prepared tables) is
    /// keyed by it, never by the path alone, so nothing kept for a deleted file is taken for
    /// the new one's.
    public let openingID: UInt64
    private static let openings = LockedState<UInt64>(0)
    /// The serialized connection used for writes (and reads on the calling thread).
    public let queue: DatabaseQueue
    /// Extra read-only connections for parallel reads.
    public let pool: DatabasePool
    /// The key-value store of this file.
    public let kv: KVStore
    /// True when opened read-only.
    public var isReadOnly: Bool { queue.isReadOnly }
    /// The database key the file opened with (nil: a plain file). Every connection to the
    /// store — the pool's readers, the DAO objects made on it — uses it.
    public var databaseKey: DatabaseKey? { queue.key }

    /// The current on-disk format version, recorded in `datacenter_meta`.
    public static let formatVersion = 1

    /// Opens (creating unless `readOnly`) the store at `path`.
    /// - parameter crypt: the default crypt for values marked `defaultEncrypted`.
    /// - parameter cacheCapacity: how many decoded KV values the memory cache keeps.
    /// - parameter busyTimeout: how long a statement waits for another connection's lock
    ///   (a long write elsewhere — an import, a rekey — may need more than the default).
    /// - parameter databaseKeys: the keys of an encrypted file, newest first: the file opens
    ///   with whichever fits, and a new one is created encrypted with the newest. Empty: the
    ///   file is plain, and an encrypted one fails with a "missing key" error.
    public init(path: String, crypt: any DataCrypt = KeyRing.empty, readOnly: Bool = false,
                cacheCapacity: Int = 1024, busyTimeout: TimeInterval = 5, databaseKeys: DatabaseKeyList = .empty) throws {
        if !readOnly {
            // Folders 0700, the file 0600 (created so by `Database`): a store is private.
            try PrivateFile.createFolder(atPath: PrivateFile.folder(of: path))
        } else if !FileManager.default.fileExists(atPath: path) {
            throw StorageError.missingStore(path)
        }
        self.path = path
        openingID = Store.openings.withLock { $0 += 1; return $0 }
        queue = try DatabaseQueue(path: path, keys: databaseKeys, mode: readOnly ? .readOnly : .readWrite,
                                  busyTimeout: busyTimeout, wal: !readOnly)
        pool = DatabasePool(writer: queue)
        if !readOnly {
            try Store.refuseNewerFormat(path, queue)
            try queue.inTransaction { db in try db.executeScript(Store.schema) }
        }
        let hasKV = try queue.read { db in try Store.tableExists(KVStore.tableName, in: db) }
        kv = KVStore(queue: queue, crypt: crypt, cacheCapacity: cacheCapacity, hasTable: hasKV)
    }

    /// Opens an existing file read-write exactly as it is: no table is created and the
    /// journal mode is left alone, so what a caller writes is all that changes. For tools
    /// that must write only what they were asked to (the browser's commits), on stores and
    /// on plain SQLite files alike.
    /// With `databaseKeys`, an encrypted file opens with whichever key fits.
    /// - throws: `StorageError.missingStore` when there is no file at `path`.
    public init(existingAt path: String, crypt: any DataCrypt = KeyRing.empty, busyTimeout: TimeInterval = 5,
                databaseKeys: DatabaseKeyList = .empty) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw StorageError.missingStore(path) }
        self.path = path
        openingID = Store.openings.withLock { $0 += 1; return $0 }
        queue = try DatabaseQueue(path: path, keys: databaseKeys, mode: .readWriteExisting, busyTimeout: busyTimeout, wal: false)
        pool = DatabasePool(writer: queue)
        try Store.refuseNewerFormat(path, queue)
        let hasKV = try queue.read { db in try Store.tableExists(KVStore.tableName, in: db) }
        kv = KVStore(queue: queue, crypt: crypt, cacheCapacity: 0, hasTable: hasKV)
    }

    /// Refuses to open for writing a store whose recorded format is newer than this
    /// engine's (`datacenter_meta.format_version`).
    private static func refuseNewerFormat(_ path: String, _ queue: DatabaseQueue) throws {
        let version = try queue.read { db -> Int? in
            guard try tableExists("datacenter_meta", in: db) else { return nil }
            return (try db.scalar("SELECT value FROM datacenter_meta WHERE name = 'format_version'", cached: false)?.int64Value).map(Int.init)
        }
        if let version, version > formatVersion {
            throw StorageError.newerFormat(path: path, version: version, supported: formatVersion)
        }
    }

    /// The tables every store has.
    static let schema = """
        CREATE TABLE IF NOT EXISTS datacenter_meta(name TEXT PRIMARY KEY, value) WITHOUT ROWID;
        INSERT OR IGNORE INTO datacenter_meta(name, value) VALUES ('format_version', \(formatVersion));
        \(KVStore.schema)
        """

    /// True when `name` is a table of the main database.
    public static func tableExists(_ name: String, in db: Database) throws -> Bool {
        try db.scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]) != nil
    }

    /// Names of the tables that hold the store's own bookkeeping, not user data.
    public static let internalTables: Set<String> = ["datacenter_meta", KVStore.tableName, "datacenter_caches",
                                                     FileArrayService.registryTable]
}
