import Foundation

/// The rule for queues in front of a store (docs/ARCHITECTURE.md): **a queue that takes a
/// store's lock is never waited on from a thread that may hold it.** Such a wait deadlocks
/// the moment the queue has work queued that needs the store: the queue waits for the store,
/// the thread holding the store waits for the queue.
///
/// What the API allows instead is nesting: a thread inside `DatabaseQueue.read`, `write` or
/// `inTransaction` may call them again on the same queue (`DatabaseQueue.withConnection`). Waiting is
/// what must never nest: every wait on a queue whose work takes a store's lock goes through
/// `wait(on:needing:_:)`, which in debug builds traps a thread that holds one of those stores,
/// naming both, so the misuse is loud at its first run instead of a hang found in the field.
/// Release builds behave as `DispatchQueue.sync`.
package enum StoreLockRule {
    /// Waits for `queue` to run `body`, work that takes the locks of `stores`.
    ///
    /// In debug builds, a calling thread that holds one of `stores` is a broken rule: it
    /// traps (or, in tests, reports to `violationHandler` and then waits as asked).
    package static func wait<T>(on queue: DispatchQueue, needing stores: [DatabaseQueue], _ body: () throws -> T) rethrows -> T {
        #if DEBUG
        if let held = stores.first(where: \.isHeldByCurrentThread) {
            violation("a thread that holds the store \(held.path) waits on the queue '\(queue.label)', whose work takes "
                      + "that store's lock: this deadlocks as soon as work is queued there (see StoreLockRule)")
        }
        #endif
        return try queue.sync(execute: body)
    }

    /// Where a broken rule goes instead of a trap, for the tests that break it on purpose.
    /// nil (the default): trap.
    @TaskLocal package static var violationHandler: (@Sendable (String) -> Void)?

    private static func violation(_ message: String) {
        guard let handler = violationHandler else { preconditionFailure(message) }
        handler(message)
    }
}
