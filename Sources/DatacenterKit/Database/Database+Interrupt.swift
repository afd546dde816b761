import CSQLite
import Foundation

/// Stopping a long statement from outside: `interrupt()` from another thread, and
/// `withInterruptCheck` so a statement that starts after the decision stops too.
///
/// For example, a query a user can cancel:
/// ```swift
/// let cancelled = CancelFlag()                 // any thread-safe flag
/// try db.withInterruptCheck({ cancelled.isSet }) {
///     try db.forEachRow("SELECT * FROM big") { _ in true }
/// }                                            // throws SQLITE_INTERRUPT once the flag is set
/// // elsewhere: cancelled.set(); db.interrupt()
/// ```
///
/// See <https://sqlite.org/c3ref/interrupt.html> and
/// <https://sqlite.org/c3ref/progress_handler.html>.
extension Database {
    /// Makes the statements running on this connection stop at their next step, failing with
    /// `SQLITE_INTERRUPT` (a `DatabaseError` whose `isInterrupted` is true); an open
    /// transaction is rolled back.
    ///
    /// The one method of a connection that may be called from any thread while another uses
    /// it, as long as the connection stays open: the caller must hold a reference to it.
    /// A call while no statement runs does nothing, not even to the next statement (SQLite
    /// clears it when one starts): to be sure, also check with `withInterruptCheck`.
    package func interrupt() {
        sqlite3_interrupt(handle)
    }

    /// Runs `body`, asking `shouldInterrupt` every `instructions` virtual-machine steps of any
    /// statement it runs on this connection; once it answers true, that statement fails with
    /// `SQLITE_INTERRUPT`. Unlike `interrupt()`, a statement starting after the flag was set
    /// stops too. `shouldInterrupt` runs on this connection's thread and must be quick.
    /// The check is removed when `body` returns or throws.
    package func withInterruptCheck<T>(every instructions: Int32 = 1_000, _ shouldInterrupt: @escaping () -> Bool,
                                       _ body: () throws -> T) rethrows -> T {
        // A closed connection runs nothing: `body` fails on its first use of it.
        if isClosed { return try body() }
        let box = Unmanaged.passRetained(InterruptCheck(shouldInterrupt))
        sqlite3_progress_handler(handle, max(1, instructions), { user in
            guard let user else { return 0 }
            return Unmanaged<InterruptCheck>.fromOpaque(user).takeUnretainedValue().shouldInterrupt() ? 1 : 0
        }, box.toOpaque())
        defer {
            sqlite3_progress_handler(handle, 0, nil, nil)
            box.release()
        }
        return try body()
    }

    /// The check's closure, handed to SQLite as the progress handler's user data.
    private final class InterruptCheck {
        let shouldInterrupt: () -> Bool
        init(_ shouldInterrupt: @escaping () -> Bool) { self.shouldInterrupt = shouldInterrupt }
    }
}

extension DatabaseError {
    /// True when the statement was stopped by `Database.interrupt()` or an interrupt check.
    package var isInterrupted: Bool { code == SQLITE_INTERRUPT }
}
