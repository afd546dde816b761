import Foundation

/// A serial queue of operations on stores, for services that run writes in the background
/// (`FileArrayService`, `AndroidSharedPreferences`) and promise that a synchronous call sees
/// every asynchronous operation asked before it.
///
/// A plain serial `DispatchQueue` in front of a store's lock deadlocks: a thread that holds
/// the store (inside `store.queue.write`, a transaction or a KV batch) and makes a synchronous
/// call waits for the queue, whose pending write waits for the store. The rule
/// (docs/ARCHITECTURE.md): **a queue that takes a store's lock is never waited on from a thread
/// that may hold it.** Here whoever runs an operation (the background worker, or a caller)
/// takes its store's lock *before* taking it off the queue, so no operation is ever stuck
/// half-taken behind another thread's lock; and a synchronous call takes its store's lock
/// (recursive: a thread that holds it takes it again) and runs the operations still pending
/// itself, in order, before its own.
///
/// One operation runs at a time, in the order asked, whichever thread runs it: completion
/// handlers called from operations may run on the thread of a synchronous caller.
///
/// `@unchecked Sendable`: its mutable state (the pending operations, who runs, whether the
/// worker is scheduled) is only reached with `condition` locked; the worker queue is
/// thread-safe. (Not `LockedState`: waiting for a change needs a condition variable.)
final class StoreSerialQueue: @unchecked Sendable {
    /// An operation asked, with the connection (a store's queue) whose lock it takes (nil: none).
    private struct Operation {
        let store: DatabaseQueue?
        let body: @Sendable () -> Void
    }

    private let condition = NSCondition()
    // Guarded by `condition`:
    private var pending: [Operation] = []
    private var running = false
    private var workerScheduled = false

    private let worker: DispatchQueue

    /// A queue whose background work runs on a serial dispatch queue labelled `label`.
    init(label: String) {
        worker = DispatchQueue(label: label)
    }

    /// Runs `body` after every operation asked before, in the background; `store` is the
    /// store connection whose lock it takes (nil: none), taken before `body` runs.
    func async(on store: DatabaseQueue?, _ body: @escaping @Sendable () -> Void) {
        condition.lock()
        pending.append(Operation(store: store, body: body))
        let schedule = !workerScheduled
        workerScheduled = true
        condition.unlock()
        if schedule { worker.async { [self] in drain() } }
    }

    /// Runs `body` on the store connection `store` once every operation asked before has
    /// run, and returns what it returns. The calling thread takes the connection's lock first
    /// (again, when it holds it already) and runs the pending operations itself, in order: no
    /// thread ever waits for one that needs a lock it holds.
    func sync<T>(on store: DatabaseQueue, _ body: () throws -> T) rethrows -> T {
        try store.write { _ in
            runPending()
            return try runExclusively(body)
        }
    }

    /// True when no operation is pending or running: every one asked so far has run.
    var isIdle: Bool {
        condition.lock()
        defer { condition.unlock() }
        return pending.isEmpty && !running
    }

    /// Runs every operation asked so far (on the calling thread, when the worker has not).
    func waitForPendingOperations() {
        runPending()
    }

    /// Holds the background worker back (tests use it to look at what is seen before a
    /// write lands); synchronous callers still run the pending operations. `resume` lets it go.
    func suspend() { worker.suspend() }

    /// Lets the background worker run again after `suspend`.
    func resume() { worker.resume() }

    // MARK: Running

    /// The worker's loop.
    private func drain() {
        while runNextOperation(fromWorker: true) {}
    }

    private func runPending() {
        while runNextOperation(fromWorker: false) {}
    }

    /// Runs the head operation, if any, under its store's lock, taken before the operation
    /// is taken off the queue (so an operation is never held by a thread waiting for a
    /// lock). Never waits for the running operation while holding a lock of its own making.
    /// Returns false when nothing was pending.
    private func runNextOperation(fromWorker: Bool) -> Bool {
        condition.lock()
        while running { condition.wait() }
        guard let head = pending.first else {
            if fromWorker { workerScheduled = false }
            condition.unlock()
            return false
        }
        condition.unlock()
        if let store = head.store {
            store.write { _ in runHead(ifStill: store) }
        } else {
            runHead(ifStill: nil)
        }
        return true
    }

    /// Takes and runs the head operation when it still works on `store` and nothing else
    /// runs (another thread may have taken it meanwhile).
    private func runHead(ifStill store: DatabaseQueue?) {
        condition.lock()
        guard !running, let head = pending.first, head.store === store else {
            condition.unlock()
            return
        }
        pending.removeFirst()
        running = true
        condition.unlock()
        head.body()
        endRun()
    }

    /// Runs `body` as the one running operation. The caller holds the store `body` works
    /// on: whatever runs meanwhile works on another store and finishes without it.
    private func runExclusively<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        while running { condition.wait() }
        running = true
        condition.unlock()
        defer { endRun() }
        return try body()
    }

    private func endRun() {
        condition.lock()
        running = false
        condition.broadcast()
        condition.unlock()
    }
}
