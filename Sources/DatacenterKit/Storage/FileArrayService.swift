import Foundation

/// Named binary blobs kept in a store's table (`APAsyncFileArrayService`): asynchronous
/// writes, reads, renames and removals with completion handlers, synchronous reads and
/// queries, optional encryption, and an optional limit on how many files are kept (the
/// oldest go first).
///
/// Every operation runs on one serial queue in the order it was asked, so a synchronous
/// read always sees the asynchronous writes asked before it. Completion handlers run on that
/// queue.
public final class FileArrayService: Sendable {
    /// The service's name; its table is `files_<name>`.
    public let name: String
    /// The table holding the files.
    public let tableName: String
    /// True when file contents are encrypted with the store's default crypt.
    public let isEncrypted: Bool
    /// The most files kept; 0 keeps every file.
    public let capacity: Int
    private let store: Store
    private let queue = DispatchQueue(label: "datacenter.file-array-service")

    /// Opens (creating) the service `name` in `store`.
    public init(name: String, store: Store, encrypted: Bool = false, capacity: Int = 0) throws {
        guard !name.isEmpty else { throw CacheError.invalidName("a file service needs a name") }
        self.name = name
        self.tableName = "files_" + name
        self.isEncrypted = encrypted
        self.capacity = max(0, capacity)
        self.store = store
        try store.queue.write { db in
            try db.execute("""
                CREATE TABLE IF NOT EXISTS \(Database.quoteIdentifier(tableName))(
                  name TEXT PRIMARY KEY, data BLOB NOT NULL, size INTEGER NOT NULL, modified REAL NOT NULL)
                """)
            // Recorded so tools (a rekey) know which services are encrypted without the app.
            try db.execute(Self.registrySchema)
            try db.execute("INSERT OR REPLACE INTO \(Self.registryTable)(name, encrypted) VALUES (?, ?)",
                           [.text(name), .integer(encrypted ? 1 : 0)])
        }
    }

    /// The table recording each file service of a store and whether it is encrypted.
    public static let registryTable = "datacenter_file_services"
    static let registrySchema = """
        CREATE TABLE IF NOT EXISTS datacenter_file_services(name TEXT PRIMARY KEY, encrypted INTEGER NOT NULL) WITHOUT ROWID
        """

    /// Opens the service `name` in a custom storage's common store (or, with
    /// `userDependent`, its current user's store; nil when no user is signed in).
    public convenience init?(name: String, storage: CustomStorage, userDependent: Bool = false,
                             encrypted: Bool = false, capacity: Int = 0) throws {
        guard let store = userDependent ? try storage.userStore() : try storage.commonStore() else { return nil }
        try self.init(name: name, store: store, encrypted: encrypted, capacity: capacity)
    }

    private var table: String { Database.quoteIdentifier(tableName) }

    // MARK: Asynchronous

    /// Stores `data` under `fileName`, replacing any file of that name.
    public func write(_ data: Data, to fileName: String, completion: (@Sendable (Error?) -> Void)? = nil) {
        // The operation runs first: `completion?(…)` would skip it when there is no completion.
        queue.async { [self] in
            let error = Self.error { try writeNow(data, to: fileName) }
            completion?(error)
        }
    }

    /// Reads `fileName`; the result is nil when there is no such file.
    public func read(_ fileName: String, completion: @escaping @Sendable (Result<Data?, Error>) -> Void) {
        queue.async { [self] in completion(Result { try readNow(fileName) }) }
    }

    /// Renames a file; fails when `from` does not exist, and replaces a file called `to`.
    public func rename(_ from: String, to: String, completion: (@Sendable (Error?) -> Void)? = nil) {
        queue.async { [self] in
            let error = Self.error {
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
        queue.async { [self] in
            let error = Self.error { try store.queue.write { db in try db.execute("DELETE FROM \(table) WHERE name = ?", [.text(fileName)]) } }
            completion?(error)
        }
    }

    /// Runs `body` on the service's queue, after every operation asked so far.
    func enqueue(_ body: @escaping @Sendable () -> Void) { queue.async(execute: body) }

    /// Waits until every operation asked so far has run.
    public func waitForPendingOperations() { queue.sync {} }

    // MARK: Synchronous

    /// The contents of `fileName`, or nil; waits for operations asked before.
    public func read(_ fileName: String) throws -> Data? { try queue.sync { try readNow(fileName) } }

    /// Every file whose name matches the SQL LIKE `pattern`, by name.
    public func read(like pattern: String) throws -> [String: Data] {
        try queue.sync {
            let rows = try store.queue.read { db in try db.query("SELECT name, data FROM \(table) WHERE name LIKE ?", [.text(pattern)]) }
            var result: [String: Data] = [:]
            for row in rows {
                guard let fileName = row[0].stringValue, let stored = row[1].dataValue else { continue }
                result[fileName] = try open(stored, fileName: fileName)
            }
            return result
        }
    }

    /// Removes every file whose name matches the SQL LIKE `pattern`; returns how many.
    @discardableResult
    public func remove(like pattern: String) throws -> Int {
        try queue.sync {
            try store.queue.write { db in
                try db.execute("DELETE FROM \(table) WHERE name LIKE ?", [.text(pattern)])
                return db.changes
            }
        }
    }

    /// Removes every file.
    public func removeAll() throws {
        try queue.sync { try store.queue.write { db in try db.execute("DELETE FROM \(table)") } }
    }

    /// True when a file called `fileName` exists.
    public func exists(_ fileName: String) throws -> Bool {
        try queue.sync { try store.queue.read { db in try db.scalar("SELECT 1 FROM \(table) WHERE name = ?", [.text(fileName)]) != nil } }
    }

    /// Every file name, sorted.
    public func allNames() throws -> [String] {
        try queue.sync { try store.queue.read { db in try db.query("SELECT name FROM \(table) ORDER BY name").compactMap { $0[0].stringValue } } }
    }

    /// How many files there are.
    public func count() throws -> Int {
        try queue.sync { try store.queue.read { db in Int(try db.scalar("SELECT count(*) FROM \(table)")?.int64Value ?? 0) } }
    }

    // MARK: Helpers (on the queue)

    private func writeNow(_ data: Data, to fileName: String) throws {
        let stored: Data
        do { stored = isEncrypted ? try store.kv.defaultCrypt.encrypt(data) : data } catch let error as CryptError {
            throw CacheError.cannotDecrypt(cache: name, key: fileName, reason: error)
        }
        try store.queue.inTransaction { db in
            try db.execute("INSERT OR REPLACE INTO \(table)(name, data, size, modified) VALUES (?, ?, ?, ?)",
                           [.text(fileName), .blob(stored), .integer(Int64(data.count)), .real(Date().timeIntervalSince1970)])
            if capacity > 0 {
                try db.execute("DELETE FROM \(table) WHERE name IN (SELECT name FROM \(table) ORDER BY modified DESC, name LIMIT -1 OFFSET ?)",
                               [.integer(Int64(capacity))])
            }
        }
    }

    private func readNow(_ fileName: String) throws -> Data? {
        let stored = try store.queue.read { db in try db.scalar("SELECT data FROM \(table) WHERE name = ?", [.text(fileName)]) }
        guard let data = stored?.dataValue else { return nil }
        return try open(data, fileName: fileName)
    }

    private func open(_ stored: Data, fileName: String) throws -> Data {
        guard isEncrypted else { return stored }
        do { return try store.kv.defaultCrypt.decrypt(stored) } catch let error as CryptError {
            throw CacheError.cannotDecrypt(cache: name, key: fileName, reason: error)
        }
    }

    private static func error(_ body: () throws -> Void) -> Error? {
        do { try body(); return nil } catch { return error }
    }
}
