import Foundation

/// A writer connection and a bounded set of read-only connections to one WAL database, so
/// reads run in parallel with each other and with the writer.
///
/// Readers are opened on demand (or ahead of time by `prepareReader`), up to
/// `maximumReaderCount`, and closed after `readerIdleTimeout` seconds unused: a sweep on a
/// background queue closes them while the pool is idle, and each check-out drops the stale
/// ones too. On an encrypted database they open with the key that opened the writer
/// (`writer.key`), so they read the pages, and the WAL frames, it wrote.
///
/// `@unchecked Sendable`: `idleReaders`, `openReaderCount`, `idleTimeout` and
/// `sweepScheduled` are touched only with `condition` locked, and a reader connection (a
/// `Database`, not thread-safe) belongs to one `read` call at a time, from check-out to
/// check-in.
public final class DatabasePool: @unchecked Sendable {
    /// The serialized writer connection.
    public let writer: DatabaseQueue
    /// The database file path.
    public var path: String { writer.path }
    /// The most read connections open at once.
    public let maximumReaderCount: Int
    /// How long an unused reader stays open; `prepareReader(idleTimeout:)` may change it.
    public var readerIdleTimeout: TimeInterval {
        condition.lock(); defer { condition.unlock() }
        return idleTimeout
    }

    /// Guards the two properties below. An `NSCondition`, not a `Mutex`: a `read` finding
    /// every reader busy sleeps until one is checked in, which needs a wait and a wake-up.
    private let condition = NSCondition()
    private var idleReaders: [(database: Database, since: Date)] = []
    private var openReaderCount = 0
    private var idleTimeout: TimeInterval
    /// True while a sweep of idle readers is waiting to run (at most one counts: the one
    /// scheduled in the current `sweepGeneration`).
    private var sweepScheduled = false
    /// Changed when the timeout changes, so a sweep scheduled for the old one stands down.
    private var sweepGeneration = 0

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
        self.idleTimeout = readerIdleTimeout
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

    /// Opens one more read connection now, ahead of the reads that will use it
    /// (`prepareParallelConnection:`): each call adds a stand-by reader, up to
    /// `maximumReaderCount`. The reader is idle until a read checks it out, and is closed
    /// once it has been idle for the timeout.
    /// - parameter idleTimeout: how long unused readers stay open from now on, in seconds;
    ///   nil or 0 keeps the pool's timeout (the reference's "system value").
    /// - returns: how many readers are open afterwards.
    /// - throws: `DatabaseError` when the connection does not open (nothing is kept).
    @discardableResult
    public func prepareReader(idleTimeout: TimeInterval? = nil) throws -> Int {
        condition.lock()
        if let idleTimeout, idleTimeout > 0, idleTimeout != self.idleTimeout {
            self.idleTimeout = idleTimeout
            sweepGeneration += 1
            sweepScheduled = false
        }
        closeIdleReaders()
        guard openReaderCount < maximumReaderCount else {
            defer { condition.unlock() }
            return openReaderCount
        }
        openReaderCount += 1
        condition.unlock()
        let reader: Database
        do {
            reader = try Database(path: path, key: writer.key, mode: .readOnly)
        } catch {
            condition.lock(); openReaderCount -= 1; condition.signal(); condition.unlock()
            throw error
        }
        condition.lock()
        defer { condition.unlock() }
        idleReaders.append((reader, Date()))
        scheduleSweep()
        condition.signal()
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
        scheduleSweep()
        condition.signal()
        condition.unlock()
    }

    /// Schedules a sweep of idle readers at the moment the oldest one expires, unless one is
    /// scheduled already. Called with the lock held. The sweep holds the pool weakly: a pool
    /// let go closes its readers itself.
    private func scheduleSweep() {
        guard !sweepScheduled, let oldest = idleReaders.map(\.since).min() else { return }
        sweepScheduled = true
        let delay = max(0, oldest.addingTimeInterval(idleTimeout).timeIntervalSinceNow) + 0.01
        let generation = sweepGeneration
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + delay) { [weak self] in
            self?.sweep(generation: generation)
        }
    }

    /// Closes the readers idle for longer than the timeout, and schedules the next sweep
    /// while idle readers remain.
    private func sweep(generation: Int) {
        condition.lock()
        guard generation == sweepGeneration else { condition.unlock(); return }
        sweepScheduled = false
        let closed = closeIdleReaders()
        scheduleSweep()
        condition.unlock()
        // The connections close here, after the lock is given up.
        withExtendedLifetime(closed) {}
    }

    /// Drops readers unused for longer than the idle timeout, returning them (they close
    /// when released). Called with the lock held.
    @discardableResult
    private func closeIdleReaders() -> [Database] {
        let cutoff = Date().addingTimeInterval(-idleTimeout)
        guard idleReaders.contains(where: { $0.since < cutoff }) else { return [] }
        let closed = idleReaders.filter { $0.since < cutoff }.map(\.database)
        idleReaders.removeAll { $0.since < cutoff }
        openReaderCount -= closed.count
        return closed
    }
}
