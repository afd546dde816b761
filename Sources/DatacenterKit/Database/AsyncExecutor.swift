import Dispatch

/// Runs database work off the caller's thread: writes one at a time in order, reads
/// concurrently (CTPersistance's `CTPersistanceAsyncExecutor`).
///
/// Work is a closure that receives a connection; completion handlers run on the executor's
/// queues, not the caller's (a write's may run on the thread of a `waitForWrites` caller that
/// holds the writer, which runs the pending writes itself: see `StoreSerialQueue`).
public final class AsyncExecutor: Sendable {
    private let pool: DatabasePool
    private let writeQueue = StoreSerialQueue(label: "datacenter.executor.write")
    private let readQueue = DispatchQueue(label: "datacenter.executor.read", attributes: .concurrent)

    /// An executor running its work on `pool`'s connections.
    public init(pool: DatabasePool) { self.pool = pool }

    /// Queues `body` to run on the writer connection after every write queued before it.
    public func write(_ body: @escaping @Sendable (Database) throws -> Void,
                      completion: (@Sendable (Error?) -> Void)? = nil) {
        writeQueue.async(on: pool.writer) { [pool] in
            do { try pool.write(body); completion?(nil) } catch { completion?(error) }
        }
    }

    /// Queues `body` to run on a read connection, concurrently with other reads.
    public func read(_ body: @escaping @Sendable (Database) throws -> Void,
                     completion: (@Sendable (Error?) -> Void)? = nil) {
        readQueue.async { [pool] in
            do { try pool.read(body); completion?(nil) } catch { completion?(error) }
        }
    }

    /// Blocks until every write queued so far has run (running them on this thread when it
    /// holds the writer, rather than waiting for ever).
    public func waitForWrites() { writeQueue.sync(on: pool.writer) {} }
}
