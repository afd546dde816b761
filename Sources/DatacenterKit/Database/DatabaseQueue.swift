import Foundation

/// One connection shared safely between threads: every access is serialized.
///
/// A connection is only reached inside `read` or `write`, so nobody keeps it past its lock.
/// Calls may nest on the same thread (the lock is recursive).
public final class DatabaseQueue: @unchecked Sendable {
    @usableFromInline let lock = NSRecursiveLock()
    @usableFromInline let database: Database

    /// The database file path.
    public let path: String

    /// Opens `path` and, unless read-only or in memory, switches it to WAL mode.
    public init(path: String, mode: Database.OpenMode = .readWrite, busyTimeout: TimeInterval = 5,
                wal: Bool = true) throws {
        database = try Database(path: path, mode: mode, busyTimeout: busyTimeout)
        if wal { try database.enableWAL(busyTimeout: busyTimeout) }
        self.path = path
    }

    /// Wraps an open connection; the queue now owns it.
    public init(database: Database) {
        self.database = database
        self.path = database.path
    }

    /// True when the connection is read-only.
    public var isReadOnly: Bool { database.isReadOnly }

    /// Runs `body` with exclusive use of the connection.
    @inlinable public func read<T>(_ body: (Database) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(database)
    }

    /// Runs `body` with exclusive use of the connection (the same as `read`, named for intent).
    @inlinable public func write<T>(_ body: (Database) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(database)
    }

    /// Runs `body` in a transaction (immediate by default): committed on return, rolled back
    /// on a throw.
    public func inTransaction<T>(_ kind: Database.TransactionKind = .immediate,
                                 _ body: (Database) throws -> T) throws -> T {
        try write { db in try db.inTransaction(kind) { try body(db) } }
    }
}
