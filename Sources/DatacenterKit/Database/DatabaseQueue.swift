import Foundation

/// One connection shared safely between threads: every access is serialized.
///
/// A connection is only reached inside `read` or `write`, so nobody keeps it past its lock.
/// Calls may nest on the same thread (the lock is recursive).
///
/// `@unchecked Sendable`: the connection (a `Database` wrapping a `sqlite3` handle, not
/// thread-safe) and `holdDepth` are only reached with `lock` held, which `read` and `write`
/// take around every use.
public final class DatabaseQueue: @unchecked Sendable {
    /// Serializes every use of the connection. An `NSRecursiveLock`, not a `Mutex`: calls
    /// nest on one thread (a transaction calling `write`, a cache committing inside `read`),
    /// and a `Mutex` taken twice by one thread deadlocks.
    @usableFromInline let lock = NSRecursiveLock()
    @usableFromInline let database: Database
    /// How many `read`/`write` calls hold `lock` now (more than one only when nested on one
    /// thread). Changed and read only with `lock` held.
    @usableFromInline var holdDepth = 0

    /// The database file path.
    public let path: String
    /// The key the connection was opened with (nil for a plain database). Other connections
    /// to the same file — a pool's readers — open with it, so they read what the writer wrote.
    public let key: DatabaseKey?

    /// Opens `path` and, unless read-only or in memory, switches it to WAL mode.
    /// - parameter key: the database key of an encrypted file (a new file is created
    ///   encrypted with it); nil for a plain database.
    public init(path: String, mode: Database.OpenMode = .readWrite, busyTimeout: TimeInterval = 5,
                wal: Bool = true, key: DatabaseKey? = nil) throws {
        database = try Database(path: path, key: key, mode: mode, busyTimeout: busyTimeout)
        if wal { try database.enableWAL(busyTimeout: busyTimeout) }
        self.path = path
        self.key = key
    }

    /// Opens `path` with whichever of `keys` fits it (a new file gets the newest key; with
    /// an empty list the file must be plain), then, unless read-only or in memory, switches
    /// it to WAL mode. `key` tells which key fitted.
    /// - throws: a `DatabaseError` whose `keyProblem` says why the keys and the file do not
    ///   go together, naming the file.
    public init(path: String, keys: DatabaseKeyList, mode: Database.OpenMode = .readWrite,
                busyTimeout: TimeInterval = 5, wal: Bool = true) throws {
        (database, key) = try keys.open(path: path, mode: mode, busyTimeout: busyTimeout)
        if wal { try database.enableWAL(busyTimeout: busyTimeout) }
        self.path = path
    }

    /// Wraps an open connection; the queue now owns it.
    /// - parameter key: the key `database` was opened with, for connections opened beside
    ///   it (nil: a plain database).
    public init(database: Database, key: DatabaseKey? = nil) {
        self.database = database
        self.path = database.path
        self.key = key
    }

    /// True when the connection is read-only.
    public var isReadOnly: Bool { database.isReadOnly }

    /// Runs `body` with exclusive use of the connection. May nest (`withConnection`).
    @inlinable public func read<T>(_ body: (Database) throws -> T) rethrows -> T {
        try withConnection(body)
    }

    /// Runs `body` with exclusive use of the connection (the same as `read`, named for intent).
    /// May nest (`withConnection`).
    @inlinable public func write<T>(_ body: (Database) throws -> T) rethrows -> T {
        try withConnection(body)
    }

    /// The one path to the connection, for `read`, `write` and `inTransaction` alike.
    ///
    /// **Nesting is allowed and goes through here**: called from inside another `read`,
    /// `write` or `inTransaction` of this queue on the same thread (a DAO call inside
    /// `KVStore.batch`, a cache committing inside a read), `body` runs at once on the
    /// connection the outer call holds, inside its transaction if one is open: the lock is
    /// recursive. What is not allowed is *waiting*, while holding the connection, for
    /// another thread's work that needs it: that deadlocks, and `StoreLockRule.wait` traps
    /// it in debug builds.
    @inlinable func withConnection<T>(_ body: (Database) throws -> T) rethrows -> T {
        lock.lock()
        holdDepth += 1
        defer { holdDepth -= 1; lock.unlock() }
        return try body(database)
    }

    /// True when the calling thread is inside `read`, `write` or `inTransaction` of this
    /// queue, so anything that waits for another thread to use the connection would wait
    /// for ever. Never blocks: a connection held by another thread answers false at once.
    ///
    /// For example, a background writer must not be waited for from here:
    ///
    ///     if queue.isHeldByCurrentThread { /* commit later, or refuse */ }
    public var isHeldByCurrentThread: Bool {
        // The lock is recursive: taking it succeeds at once when it is free or already ours,
        // and with it held, a depth above zero can only be this thread's outer calls.
        guard lock.try() else { return false }
        defer { lock.unlock() }
        return holdDepth > 0
    }

    /// Closes the connection (see `Database.close()`), waiting for a `read` or `write` running
    /// on another thread to finish. Closing again does nothing; every later `read`, `write`
    /// or `inTransaction` gets the closed connection, whose every use fails with a
    /// `DatabaseError` whose `isClosed` is true.
    public func close() {
        write { $0.close() }
    }

    /// True once `close()` has run.
    public var isClosed: Bool { read { $0.isClosed } }

    /// Runs `body` in a transaction (immediate by default): committed on return, rolled back
    /// on a throw.
    public func inTransaction<T>(_ kind: Database.TransactionKind = .immediate,
                                 _ body: (Database) throws -> T) throws -> T {
        try write { db in try db.inTransaction(kind) { try body(db) } }
    }
}
