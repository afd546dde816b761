import Foundation

/// A writer connection and a bounded set of read-only connections to one WAL database, so
/// reads run in parallel with each other and with the writer.
///
/// Readers are opened on demand, up to `maximumReaderCount`, and closed after
/// `readerIdleTimeout` seconds unused. On an encrypted database they open with the key
/// that opened the writer (`writer.key`), so they read the pages, and the WAL frames, it
/// wrote.
///
/// `@unchecked Sendable`: `idleReaders` and `openReaderCount` are touched only with
/// `condition` locked, and a reader connection (a `Database`, not thread-safe) belongs to
/// one `read` call at a time, from check-out to check-in.
public final class DatabasePool: @unchecked Sendable {
    /// The serialized writer connection.
    public let writer: DatabaseQueue
    /// The database file path.
    public var path: String { writer.path }
    /// The most read connections open at once.
    public let maximumReaderCount: Int
    /// How long an unused reader stays open.
    public let readerIdleTimeout: TimeInterval

    /// Guards the two properties below. An `NSCondition`, not a `Mutex`: a `read` finding
    /// every reader busy sleeps until one is checked in, which needs a wait and a wake-up.
    private let condition = NSCondition()
    private var idleReaders: [(database: Database, since: Date)] = []
    private var openReaderCount = 0

    /// Opens `path` read-write (WAL mode) with readers opened on demand.
    /// - parameter key: the database key of an encrypted file, for the writer and every
    ///   reader (a new file is created encrypted with it); nil for a plain database.
    public convenience init(path: String, maximumReaderCount: Int = 4, readerIdleTimeout: TimeInterval = 30,
                            busyTimeout: TimeInterval = 5, key: DatabaseKey? = nil) throws {
        self.init(writer: try DatabaseQueue(path: path, mode: .readWrite, busyTimeout: busyTimeout, key: key),
                  maximumReaderCount: maximumReaderCount, readerIdleTimeout: readerIdleTimeout)
    }

    /// Adds read connections to an open writer queue; they open with the writer's key.
    public init(writer: DatabaseQueue, maximumReaderCount: Int = 4, readerIdleTimeout: TimeInterval = 30) {
        self.writer = writer
        self.maximumReaderCount = max(1, maximumReaderCount)
        self.readerIdleTimeout = readerIdleTimeout
    }

    /// Runs `body` on the writer connection.
    public func write<T>(_ body: (Database) throws -> T) rethrows -> T { try writer.write(body) }

    /// Runs `body` on a read-only connection of its own; waits while all readers are busy.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        let reader = try checkOutReader()
        defer { checkIn(reader) }
        return try body(reader)
    }

    /// How many read connections are open now (busy or idle).
    public var readerCount: Int {
        condition.lock(); defer { condition.unlock() }
        return openReaderCount
    }

    private func checkOutReader() throws -> Database {
        condition.lock()
        closeIdleReaders()
        while idleReaders.isEmpty && openReaderCount >= maximumReaderCount { condition.wait() }
        if let reader = idleReaders.popLast() {
            condition.unlock()
            return reader.database
        }
        openReaderCount += 1
        condition.unlock()
        do {
            return try Database(path: path, key: writer.key, mode: .readOnly)
        } catch {
            condition.lock(); openReaderCount -= 1; condition.signal(); condition.unlock()
            throw error
        }
    }

    private func checkIn(_ reader: Database) {
        condition.lock()
        idleReaders.append((reader, Date()))
        condition.signal()
        condition.unlock()
    }

    /// Drops readers unused for longer than the idle timeout. Called with the lock held.
    private func closeIdleReaders() {
        let cutoff = Date().addingTimeInterval(-readerIdleTimeout)
        let before = idleReaders.count
        idleReaders.removeAll { $0.since < cutoff }
        openReaderCount -= before - idleReaders.count
    }
}
