import CPageCipher
import CSQLite
import Foundation

/// One connection to a SQLite database: DBConnect's `DBCDatabase`.
///
/// A connection is used by one thread at a time; share it through a `DatabaseQueue` or a
/// `DatabasePool`. Statements prepared with `cachedStatement(_:)` are kept per connection,
/// keyed by their SQL text, so SQL that does not vary is prepared once.
///
/// For example:
/// ```swift
/// let db = try Database(path: "app.sqlite")
/// try db.execute("CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, name TEXT)")
/// try db.execute("INSERT INTO t(name) VALUES (:name)", ["name": "ann"])
/// let rows = try db.query("SELECT * FROM t WHERE id = ?", [.integer(db.lastInsertRowID)])
/// ```
public final class Database {
    /// How to open a database file.
    public enum OpenMode: Sendable {
        /// Read and write, creating the file when it is missing.
        case readWrite
        /// Read and write an existing file; a missing file is an error.
        case readWriteExisting
        /// Read only. Nothing about the file is changed, not even its journal mode.
        case readOnly
    }

    /// The file path; `:memory:` for an in-memory database, empty for a temporary one.
    public private(set) var path: String
    /// True when the connection was opened read-only.
    public private(set) var isReadOnly: Bool
    /// The key the file was opened with (nil: plain): what a copy of it must be encrypted with.
    public let key: DatabaseKey?
    /// How long a statement waits for another connection's lock before failing with
    /// `SQLITE_BUSY`, as given when the connection was opened.
    public var busyTimeout: TimeInterval { busyWait.timeout }
    /// At most how many times a statement retries another connection's lock before failing
    /// with `SQLITE_BUSY` (DBConnect's `busyRetryCount`); nil (the default): no limit but
    /// `busyTimeout`. With both, the wait ends at whichever comes first: the count bounds how
    /// often the lock is tried, the timeout how long the tries may last (SQLite's back-off
    /// waits 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, then 100 ms between tries, so 5 retries
    /// wait about 33 ms). 0 fails at the first busy lock.
    public var busyRetryCount: Int? {
        get { busyWait.retryLimit }
        set { busyWait.retryLimit = newValue.map { max(0, $0) } }
    }
    /// Whether statements are prepared once and kept with the connection (the default), or
    /// prepared and finalized on every use (DBConnect's `shouldCacheStatements`). Turning it
    /// off finalizes the statements cached so far; the SQL-taking methods (`execute`,
    /// `query`, `scalar`, `cachedStatement`…) then hand out a new statement each time.
    public var cachesStatements = true {
        didSet { if !cachesStatements { clearStatementCache() } }
    }
    /// Waits for other connections' locks, and remembers how long it last waited.
    let busyWait: BusyWait
    /// Whether `close()` has run; shared with this connection's statements.
    let lifetime = ConnectionLifetime()
    /// True once `close()` has run: every later use fails with a `DatabaseError` whose
    /// `isClosed` is true.
    public var isClosed: Bool { lifetime.isClosed }
    private(set) var handle: OpaquePointer
    private var statementCache: [String: Statement] = [:]
    /// The statement `cachedStatement` returned last (always one of `statementCache`'s).
    private var lastCachedStatement: Statement?
    private var savepointDepth = 0
    /// The trace SQLite reports statements to (`startTracing`), kept alive while it does.
    var tracer: SQLTrace?
    /// True while SQLite reports row writes to an observer (`observeRowWrites`).
    var observesRowWrites = false
    /// How a sequence of statements runs (`execute` with several, `executeScript`,
    /// `runScript`): DBConnect's switches, its defaults by default (`SQLSequenceOptions`).
    public var sqlSequences = SQLSequenceOptions()

    /// Opens the database at `path`.
    ///
    /// The file is checked on open: a file that is not a SQLite database fails here, with a
    /// `DatabaseError` whose `isNotADatabase` is true, rather than on first use.
    /// - parameter busyTimeout: how long a statement waits for another connection's lock
    ///   before failing with `SQLITE_BUSY` (DBConnect's `busyRetryCount`).
    /// - parameter defaultEncoding: the text encoding of a new database (DBConnect's
    ///   `defaultEncoding`); an existing one keeps its own, and any opens and reads and
    ///   writes text whatever it is (SQLite converts).
    public convenience init(path: String, mode: OpenMode = .readWrite, busyTimeout: TimeInterval = 5,
                            defaultEncoding: TextEncoding = .utf8) throws {
        try self.init(path: path, key: nil, mode: mode, busyTimeout: busyTimeout, defaultEncoding: defaultEncoding)
    }

    /// The encoding of a database's text, chosen when it is created (`PRAGMA encoding`).
    public enum TextEncoding: String, Sendable {
        case utf8 = "UTF-8"
        /// UTF-16 in the machine's byte order.
        case utf16 = "UTF-16"
        case utf16le = "UTF-16le"
        case utf16be = "UTF-16be"
    }

    /// Opens the database at `path`, encrypted page by page in SQLCipher's format with `key`
    /// (plaintext when `key` is nil). A new file is created encrypted.
    ///
    /// The key is checked on open: a wrong key, the wrong format, or a file that is not
    /// encrypted fails here with a `DatabaseError` whose `isWrongKeyOrNotEncrypted` is true.
    /// Later, a page that does not authenticate fails the statement that read it with an
    /// error naming the page (`failedPage`), never with altered data.
    /// Encryption needs a file: an in-memory or temporary database with a key is refused.
    public init(path: String, key: DatabaseKey?, mode: OpenMode = .readWrite, busyTimeout: TimeInterval = 5,
                defaultEncoding: TextEncoding = .utf8) throws {
        if key != nil, path.isEmpty || path == ":memory:" {
            throw DatabaseError(extendedCode: SQLITE_MISUSE, message: "an encrypted database needs a file",
                                path: Database.displayPath(path))
        }
        // A FIFO or a device would make SQLite wait for ever on its first read.
        if !path.isEmpty, path != ":memory:" {
            do { try RegularFile.refuseIfNotRegular(path) } catch let error as FileAccessError {
                throw DatabaseError(extendedCode: SQLITE_CANTOPEN, message: error.reason, path: Database.displayPath(path))
            }
        }
        if mode == .readWrite, !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") {
            // Created 0600 before SQLite sees it: SQLite gives the file it creates the
            // umask's mode (often world-readable), and its -wal, -shm and -journal files take
            // the main file's mode, so this one file decides them all.
            do { try PrivateFile.createIfMissing(atPath: path) } catch let error as FileAccessError {
                throw DatabaseError(extendedCode: SQLITE_CANTOPEN, message: error.reason, path: path)
            }
        }
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        switch mode {
        case .readWrite: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWriteExisting: flags |= SQLITE_OPEN_READWRITE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        let openedPath = mode == .readOnly ? ReadOnlyMedia.openingPath(for: path) : path
        var db: OpaquePointer?
        let rc: Int32
        if let key {
            let (secret, isRaw) = key.material
            var settings = key.settings.cValue
            rc = dc_cipher_open(openedPath, &db, flags, secret, Int32(secret.count), isRaw ? 1 : 0, &settings)
        } else {
            rc = sqlite3_open_v2(openedPath, &db, flags, nil)
        }
        guard rc == SQLITE_OK, let db else {
            var error = DatabaseError.from(db, code: rc, path: Database.displayPath(path))
            if key != nil, error.code == SQLITE_NOTADB { error = .wrongKeyOrNotEncrypted(path: path) }
            sqlite3_close_v2(db)
            throw error
        }
        self.handle = db
        self.path = path
        self.key = key
        self.isReadOnly = mode == .readOnly
        self.busyWait = BusyWait(timeout: busyTimeout)
        busyWait.install(on: db)
        sqlite3_extended_result_codes(db, 1)
        // Read-only means no file written: not this one, and none other (VACUUM INTO, ATTACH).
        if mode == .readOnly { ReadOnlyAuthorizer.install(on: db) }
        try validate()
        // Only a database with nothing in it yet takes an encoding (SQLite ignores it later).
        if defaultEncoding != .utf8, mode != .readOnly, try scalar("PRAGMA page_count", cached: false) == .integer(0) {
            try execute("PRAGMA encoding = '\(defaultEncoding.rawValue)'")
        }
    }

    /// Opens a private in-memory database.
    public static func inMemory() throws -> Database { try Database(path: ":memory:") }

    /// Opens a private temporary on-disk database, deleted when closed.
    public static func temporary() throws -> Database { try Database(path: "") }

    deinit {
        // Released, not closed: a statement kept elsewhere goes on working (SQLite keeps
        // the connection until its last statement is finalized), as before `close()` existed.
        guard !lifetime.isClosed else { return }
        lastCachedStatement = nil
        statementCache.removeAll()
        if tracer != nil { stopTracing() }
        stopObservingRowWrites()
        sqlite3_close_v2(handle)
    }

    /// Closes the connection now, rather than when the last reference goes (DBConnect's
    /// `close`). The cached statements are finalized; an open transaction is rolled back
    /// (SQLite does this on close). Closing again does nothing.
    ///
    /// Every later use of this connection — running SQL, preparing, beginning a transaction,
    /// and running a statement prepared before the close and kept elsewhere — fails with a
    /// `DatabaseError` whose `isClosed` is true; nothing touches the closed handle. Plain
    /// properties answer as for an idle connection (`isInTransaction` false, `changes` 0).
    /// A statement still kept elsewhere keeps SQLite's side of the connection (and its file
    /// lock) until that statement is released (`sqlite3_close_v2`).
    public func close() {
        guard !lifetime.isClosed else { return }
        lifetime.isClosed = true
        lastCachedStatement = nil
        statementCache.removeAll()
        stopObservingRowWrites()
        sqlite3_close_v2(handle)
    }

    /// Throws the closed-connection error when `close()` has run.
    @inline(__always) func checkOpen(sql: String? = nil) throws {
        if lifetime.isClosed { throw DatabaseError.closed(path: path, sql: sql) }
    }

    private static func displayPath(_ path: String) -> String {
        path.isEmpty ? "(temporary database)" : path
    }

    /// Reads the schema, so a file that is not a database fails now with a clear error.
    private func validate() throws {
        do {
            _ = try scalar("SELECT count(*) FROM sqlite_master", cached: false)
        } catch let error as DatabaseError {
            if error.failedPage == 1 && error.code == SQLITE_NOTADB { throw DatabaseError.wrongKeyOrNotEncrypted(path: path) }
            throw error.with(path: Database.displayPath(path), dropsSQL: true)
        }
    }

    /// Switches the file to WAL mode with `synchronous=NORMAL`, so readers never wait for the
    /// writer. Does nothing for read-only connections and in-memory databases.
    ///
    /// Switching needs the file to itself, and SQLite reports `SQLITE_BUSY` at once (without
    /// the busy handler) while another connection is opening it too: the switch is retried
    /// for up to `busyTimeout`. A file already in WAL mode is left as it is.
    public func enableWAL(busyTimeout: TimeInterval = 5) throws {
        guard !isReadOnly, !path.isEmpty, path != ":memory:" else { return }
        let deadline = Date().addingTimeInterval(busyTimeout)
        var mode = try scalar("PRAGMA journal_mode", cached: false)?.stringValue?.lowercased()
        while mode != "wal" {
            do {
                mode = try scalar("PRAGMA journal_mode=WAL", cached: false)?.stringValue?.lowercased()
                if mode != "wal" {
                    throw DatabaseError(extendedCode: SQLITE_ERROR, message: "could not switch to WAL mode", path: path)
                }
            } catch let error as DatabaseError where error.isBusy && Date() < deadline {
                usleep(2_000)
            }
        }
        try execute("PRAGMA synchronous=NORMAL")
    }

    // MARK: Statements

    /// A new statement for `sql`, owned by the caller; `sql` must hold exactly one statement
    /// (see `cachedStatement`).
    public func makeStatement(_ sql: String) throws -> Statement {
        try checkHoldsNoNUL(sql)
        var remaining = ""
        guard let statement = try prepare(sql, persistent: false, tail: &remaining) else {
            throw DatabaseError(extendedCode: SQLITE_MISUSE, message: "no SQL statement", sql: sql, path: path)
        }
        if !StatementTail.isBlank(remaining) {
            throw DatabaseError.moreThanOneStatement(sql: sql, path: path)
        }
        return statement
    }

    /// The cached statement for `sql`, prepared on first use and kept with the connection.
    ///
    /// `sql` must be exactly one statement: after it only whitespace, comments and `;` may
    /// follow (where it ends is SQLite's own reading, so quotes and comments are lexed
    /// exactly), and it may not hold a NUL character (SQLite would stop reading there).
    /// Otherwise nothing is prepared and the error's `isMoreThanOneStatement` is true. This
    /// is checked once, when the statement is prepared; a cached one was checked then.
    public func cachedStatement(_ sql: String) throws -> Statement {
        guard cachesStatements else { return try makeStatement(sql) }
        // A loop asks for the same SQL again and again, usually one constant: comparing with
        // the last one asked for is cheaper than hashing the text.
        if let last = lastCachedStatement, last.sql == sql { return last }
        if let statement = statementCache[sql] {
            lastCachedStatement = statement
            return statement
        }
        try checkHoldsNoNUL(sql)
        var remaining = ""
        guard let statement = try prepare(sql, persistent: true, tail: &remaining) else {
            throw DatabaseError(extendedCode: SQLITE_MISUSE, message: "no SQL statement", sql: sql, path: path)
        }
        guard StatementTail.isBlank(remaining) else { throw DatabaseError.moreThanOneStatement(sql: sql, path: path) }
        remember(statement, for: sql)
        lastCachedStatement = statement
        return statement
    }

    /// The most statements a connection keeps; past it the cache starts afresh, so SQL with
    /// inlined values cannot grow it without bound.
    public static let statementCacheLimit = 512

    private func remember(_ statement: Statement, for sql: String) {
        guard cachesStatements else { return }
        if statementCache.count >= Database.statementCacheLimit {
            statementCache.removeAll()
            lastCachedStatement = nil
        }
        statementCache[sql] = statement
    }

    /// How many prepared statements the cache holds.
    public var cachedStatementCount: Int { statementCache.count }

    /// Finalizes every cached statement.
    public func clearStatementCache() {
        statementCache.removeAll()
        lastCachedStatement = nil
    }

    /// Refuses SQL holding a NUL character: SQLite stops reading at it, so the text after it
    /// would silently not run.
    private func checkHoldsNoNUL(_ sql: String) throws {
        if sql.utf8.contains(0) {
            throw DatabaseError(extendedCode: SQLITE_MISUSE, message: DatabaseError.moreThanOneStatementMessage + " (it holds a NUL character)",
                                sql: nil, path: path)
        }
    }

    /// Prepares the first statement of `sql`; `tail` receives the unparsed rest.
    /// Returns nil when `sql` holds only whitespace or comments.
    private func prepare(_ sql: String, persistent: Bool, tail: inout String) throws -> Statement? {
        try checkOpen(sql: sql)
        var stmt: OpaquePointer?
        var result: Statement?
        try sql.withCString { cSQL in
            var tailPointer: UnsafePointer<CChar>?
            let flags: UInt32 = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
            let rc = sqlite3_prepare_v3(handle, cSQL, -1, flags, &stmt, &tailPointer)
            guard rc == SQLITE_OK else {
                throw busyWait.describing(DatabaseError.from(handle, code: rc, sql: sql, path: path))
            }
            tail = tailPointer.map { String(cString: $0) } ?? ""
            if let stmt {
                let consumed = tailPointer.map { $0 - cSQL } ?? strlen(cSQL)
                let text = String(decoding: UnsafeRawBufferPointer(start: cSQL, count: consumed), as: UTF8.self)
                result = Statement(handle: stmt, sql: persistent ? sql : text, database: self)
            }
        }
        return result
    }

    // MARK: Executing

    /// Runs `sql` with `arguments`. `sql` may hold several statements separated by `;`:
    /// positional values are then taken in order by each statement, named values by name;
    /// values left over are an error, as for a single statement.
    ///
    /// For example: `try db.execute("UPDATE t SET name = ? WHERE id = ?", ["bo", 1])`.
    public func execute(_ sql: String, _ arguments: StatementArguments = .none) throws {
        if let statement = statementCache[sql] {
            try statement.execute(arguments)
            return
        }
        var remaining = ""
        guard let first = try prepare(sql, persistent: true, tail: &remaining) else { return }
        if remaining.allSatisfy(\.isWhitespace) {
            remember(first, for: sql)
            try first.execute(arguments)
            return
        }
        // Several statements: a sequence (`sqlSequences`), each run once, uncached. The first
        // was prepared before the sequence's transaction began, which changes nothing it reads.
        // Positional values: a statement of `?` takes the next ones in line; one with numbered
        // parameters takes the call's values from the first, `?N` the call's value N, as
        // DBConnect numbers them across the whole sequence (its example reuses `?1` in every
        // insert of one call).
        try runSequence(SQLScript.statements(in: sql)) {
            var offset = 0, numbered = 0
            var statement: Statement? = first
            while let current = statement {
                let used = current.parameterCount
                var args = arguments
                if !arguments.positional.isEmpty {
                    if current.hasNumberedParameters {
                        args.positional = Array(arguments.positional.prefix(used))
                        numbered = max(numbered, used)
                    } else {
                        let end = min(arguments.positional.count, offset + used)
                        args.positional = offset < end ? Array(arguments.positional[offset..<end]) : []
                        offset = end
                    }
                }
                try current.execute(args)
                let sqlRest = remaining
                statement = try prepare(sqlRest, persistent: false, tail: &remaining)
            }
            let taken = max(offset, numbered)
            if taken < arguments.positional.count {
                throw DatabaseError(extendedCode: SQLITE_RANGE,
                                    message: "the statements take \(taken) value(s), \(arguments.positional.count) given", sql: sql, path: path)
            }
        }
    }

    /// Runs a script of statements with no parameters (schema, dumps), as a sequence
    /// (`sqlSequences`: by default in one transaction, undone whole when one fails).
    public func executeScript(_ sql: String) throws {
        try runSequence(SQLScript.statements(in: sql)) { try forEachStatement(in: sql) { try $0.execute() } }
    }

    /// Prepares the first statement of `sql` (uncached); `tail` receives the rest.
    func prepareStatement(_ sql: String, tail: inout String) throws -> Statement? {
        try prepare(sql, persistent: false, tail: &tail)
    }

    /// Every row of `sql`.
    public func query(_ sql: String, _ arguments: StatementArguments = .none) throws -> [Row] {
        try cachedStatement(sql).fetchAll(arguments)
    }

    /// The first row of `sql`, or nil.
    public func queryFirst(_ sql: String, _ arguments: StatementArguments = .none) throws -> Row? {
        var first: Row?
        try cachedStatement(sql).forEachRow(arguments) { first = $0.row(); return false }
        return first
    }

    /// The first column of the first row of `sql`, or nil when there is no row.
    public func scalar(_ sql: String, _ arguments: StatementArguments = .none, cached: Bool = true) throws -> DatabaseValue? {
        let statement = cached ? try cachedStatement(sql) : try makeStatement(sql)
        var value: DatabaseValue?
        try statement.forEachRow(arguments) { value = $0.value(at: 0); return false }
        return value
    }

    /// Calls `body` for each row of `sql`, streaming; return false to stop.
    public func forEachRow(_ sql: String, _ arguments: StatementArguments = .none,
                           _ body: (Statement) throws -> Bool) throws {
        try cachedStatement(sql).forEachRow(arguments, body)
    }

    /// The rowid of the last row inserted on this connection.
    public var lastInsertRowID: Int64 {
        get { lifetime.isClosed ? 0 : sqlite3_last_insert_rowid(handle) }
        // Set by layers that run statements of their own around a caller's (the DAO engine's
        // table preparation), so the caller sees only its own inserts.
        set { if !lifetime.isClosed { sqlite3_set_last_insert_rowid(handle, newValue) } }
    }

    /// The rows changed by the last INSERT, UPDATE or DELETE on this connection.
    public var changes: Int { lifetime.isClosed ? 0 : Int(sqlite3_changes64(handle)) }

    /// The rows changed since the connection opened.
    public var totalChanges: Int { lifetime.isClosed ? 0 : Int(sqlite3_total_changes64(handle)) }

    /// The raw `sqlite3*` handle, an escape hatch for what this API does not cover.
    /// Valid while the connection is open (see `isClosed`); do not close it.
    public var sqliteHandle: OpaquePointer { handle }

    // MARK: Transactions

    /// The locking behaviour of a transaction.
    public enum TransactionKind: String, Sendable {
        /// Takes locks when first needed.
        case deferred = "DEFERRED"
        /// Takes the write lock at once, so a later write cannot fail with `SQLITE_BUSY`.
        case immediate = "IMMEDIATE"
        /// Takes the write lock at once and keeps readers out (in rollback-journal mode).
        case exclusive = "EXCLUSIVE"
    }

    /// True while a transaction is open.
    public var isInTransaction: Bool { !lifetime.isClosed && sqlite3_get_autocommit(handle) == 0 }

    /// Begins a transaction.
    public func beginTransaction(_ kind: TransactionKind = .deferred) throws {
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
    }

    /// Commits the open transaction.
    public func commit() throws { try execute("COMMIT TRANSACTION") }

    /// Rolls back the open transaction; does nothing when none is open.
    public func rollback() throws {
        guard isInTransaction else { return }
        try execute("ROLLBACK TRANSACTION")
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws
    /// (and the error rethrown). Inside an open transaction, `body` runs in a savepoint, so
    /// its work alone is undone on a throw.
    public func inTransaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        if isInTransaction { return try inSavepoint(body) }
        try beginTransaction(kind)
        do {
            let result = try body()
            try commit()
            return result
        } catch {
            try? rollback()
            throw error
        }
    }

    /// Runs `body` in a savepoint: released when it returns, rolled back to when it throws.
    public func inSavepoint<T>(_ body: () throws -> T) throws -> T {
        savepointDepth += 1
        let name = "dc_savepoint_\(savepointDepth)"
        defer { savepointDepth -= 1 }
        try execute("SAVEPOINT \(name)")
        do {
            let result = try body()
            try execute("RELEASE SAVEPOINT \(name)")
            return result
        } catch {
            if isInTransaction {
                try? execute("ROLLBACK TO SAVEPOINT \(name)")
                try? execute("RELEASE SAVEPOINT \(name)")
            }
            throw error
        }
    }

    // MARK: Versions and attached databases

    /// The `user_version` of the main database or of an attached one.
    public func userVersion(schema: String = "main") throws -> Int {
        Int(try scalar("PRAGMA \(Database.quoteIdentifier(schema)).user_version", cached: false)?.int64Value ?? 0)
    }

    /// Sets the `user_version` of the main database or of an attached one.
    public func setUserVersion(_ version: Int, schema: String = "main") throws {
        try executeScript("PRAGMA \(Database.quoteIdentifier(schema)).user_version = \(version)")
    }

    /// Attaches the existing database file at `path` as `schema` to this read-only
    /// connection, read-only, with the database key that opens it (nil: plain): the one
    /// `ATTACH` its authorizer lets through, for reading two files in one transaction (a
    /// diff). Nothing is written to either file.
    package func attachReadOnly(path: String, as schema: String, key: DatabaseKey?) throws {
        guard isReadOnly else {
            throw DatabaseError(extendedCode: SQLITE_MISUSE, message: "attachReadOnly is for read-only connections", path: self.path)
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw DatabaseError(extendedCode: SQLITE_CANTOPEN, message: "no such file", path: path)
        }
        try checkOpen()
        sqlite3_set_authorizer(handle, nil, nil)
        defer { ReadOnlyAuthorizer.install(on: handle) }
        try DatabaseFileConversion.attach(self, path: path, key: key, as: schema)
    }

    /// Attaches the database file at `path` under `name` (created when missing, as SQLite's
    /// `ATTACH` does).
    public func attach(path: String, as name: String) throws {
        try makeStatement("ATTACH DATABASE ? AS \(Database.quoteIdentifier(name))").execute([.text(path)])
    }

    /// Detaches the database attached as `name`.
    public func detach(_ name: String) throws {
        try makeStatement("DETACH DATABASE \(Database.quoteIdentifier(name))").execute()
    }

    /// Quotes an identifier for SQL: `my "table"` becomes `"my ""table"""`.
    public static func quoteIdentifier(_ name: String) -> String {
        quote(name, with: UInt8(ascii: "\""))
    }

    /// Quotes text as a SQL string literal: `it's` becomes `'it''s'`.
    public static func quoteLiteral(_ text: String) -> String {
        quote(text, with: UInt8(ascii: "'"))
    }

    /// `text` between two `quote`s, each `quote` in it doubled. Byte by byte: a quote followed
    /// by a combining mark is one Swift `Character`, which a search for the quote would not
    /// find, but SQLite reads bytes, and would end the quoted text there.
    private static func quote(_ text: String, with quote: UInt8) -> String {
        var bytes: [UInt8] = [quote]
        bytes.reserveCapacity(text.utf8.count + 8)
        for byte in text.utf8 {
            bytes.append(byte)
            if byte == quote { bytes.append(byte) }
        }
        bytes.append(quote)
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Copies

    /// Copies the whole database to a new file at `destination` with SQLite's backup API
    /// (consistent even while the database is being written by others). The copy of an
    /// encrypted database is encrypted with the same key and format.
    /// - throws: when `destination` exists and `overwrite` is false.
    public func backup(to destination: String, overwrite: Bool = false) throws {
        try backup(to: destination, overwrite: overwrite, key: key)
    }

    /// Copies the whole database as `backup(to:overwrite:)` does, the copy encrypted with
    /// `key` (a snapshot pins the source's salt in it, so the copy's key is derived once).
    /// - throws: `SQLITE_MISUSE` when this database is encrypted and `key` is nil: a copy of
    ///   it is never written in plaintext.
    package func backup(to destination: String, overwrite: Bool = false, key: DatabaseKey?) throws {
        guard key != nil || self.key == nil else {
            throw DatabaseError(extendedCode: SQLITE_MISUSE, message: "an encrypted database is not copied in plaintext", path: destination)
        }
        let fm = FileManager.default
        if fm.fileExists(atPath: destination) {
            guard overwrite else {
                throw DatabaseError(extendedCode: SQLITE_CANTOPEN, message: "destination exists", path: destination)
            }
            for suffix in ["", "-wal", "-shm", "-journal"] { try? fm.removeItem(atPath: destination + suffix) }
        }
        // The copy of an encrypted database is encrypted with the same key, never plaintext.
        try checkOpen()
        let target = try Database(path: destination, key: key, mode: .readWrite)
        guard let backup = sqlite3_backup_init(target.handle, "main", handle, "main") else {
            throw DatabaseError.from(target.handle, code: sqlite3_errcode(target.handle), path: destination)
        }
        let rc = sqlite3_backup_step(backup, -1)
        sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE else { throw DatabaseError.from(target.handle, code: rc, path: destination) }
    }

    /// Copies the database to `destination` and reopens this connection there, read-write
    /// (DBConnect's `makeMutableAt`: move a bundled read-only database somewhere writable).
    /// The connection keeps its busy timeout; its cached statements are dropped.
    ///
    /// - throws: `DatabaseError` (`SQLITE_MISUSE`) while a statement of this connection is
    ///   still held elsewhere: it would go on reading the old file. Release it first.
    public func makeMutable(at destination: String, overwrite: Bool = false) throws {
        try checkOpen()
        guard !path.isEmpty, path != ":memory:" else {
            throw DatabaseError(extendedCode: SQLITE_MISUSE, message: "a temporary or in-memory database cannot be reopened elsewhere")
        }
        guard key == nil else {
            throw DatabaseError(extendedCode: SQLITE_MISUSE,
                                message: "an encrypted database is not reopened elsewhere: copy it with backup(to:), which keeps its key, and open the copy with the key",
                                path: path)
        }
        statementCache.removeAll()
        lastCachedStatement = nil
        guard sqlite3_next_stmt(handle, nil) == nil else {
            throw DatabaseError(extendedCode: SQLITE_MISUSE,
                                message: "a statement of this connection is still held: it would go on using the old file; release it before makeMutable",
                                path: path)
        }
        try backup(to: destination, overwrite: overwrite)
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(destination, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let error = DatabaseError.from(db, code: rc, path: destination)
            sqlite3_close_v2(db)
            throw error
        }
        stopObservingRowWrites()
        sqlite3_close_v2(handle)
        handle = db
        path = destination
        isReadOnly = false
        busyWait.install(on: db)
        sqlite3_extended_result_codes(db, 1)
    }
}

extension Database {
    /// Prepares and hands each statement of `sql` to `body` in turn (uncached), so a caller
    /// can run a script and see every statement's rows.
    public func forEachStatement(in sql: String, _ body: (Statement) throws -> Void) throws {
        var remaining = sql
        while true {
            var tail = ""
            guard let statement = try prepareStatement(remaining, tail: &tail) else { return }
            try body(statement)
            remaining = tail
        }
    }
}
