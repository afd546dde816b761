import CSQLite
import Foundation

/// How a connection waits for another connection's lock, and how long it last waited: the
/// busy handler `Database` installs instead of `sqlite3_busy_timeout`, with the same back-off,
/// so an error can say how long the writer waited before giving up.
///
/// Not `Sendable`, like the connection it belongs to: its two `var`s are written by SQLite's
/// busy handler and read by `describing`, both on the thread using that connection, which
/// is one thread at a time; no lock of its own is needed.
final class BusyWait {
    /// How long a wait may last.
    let timeout: TimeInterval
    /// At most how many retries a wait may make (nil: as many as `timeout` allows).
    var retryLimit: Int?
    /// How many times the last wait retried the lock.
    private(set) var retries = 0
    /// When the current wait began (monotonic nanoseconds).
    private var started: UInt64 = 0
    /// How long the last wait lasted, in seconds (0 when the last statement did not wait).
    private(set) var waited: TimeInterval = 0

    init(timeout: TimeInterval) { self.timeout = max(0, timeout) }

    /// SQLite's own back-off for `sqlite3_busy_timeout`, in milliseconds.
    private static let delays: [Int] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]

    /// Installs the handler on `handle`; the connection must not outlive `self`.
    func install(on handle: OpaquePointer) {
        sqlite3_busy_handler(handle, { context, count in
            guard let context else { return 0 }
            return Unmanaged<BusyWait>.fromOpaque(context).takeUnretainedValue().shouldRetry(after: count) ? 1 : 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Called by SQLite each time the lock is found taken (`count` times before in this wait):
    /// sleeps a little and says to try again, until the timeout is spent.
    private func shouldRetry(after count: Int32) -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        if count == 0 { started = now }
        let elapsed = Double(now - started) / 1e9
        waited = elapsed
        retries = Int(count)
        if let retryLimit, Int(count) >= retryLimit { return false }
        guard elapsed < timeout else { return false }
        let delay = min(Double(Self.delays[min(Int(count), Self.delays.count - 1)]) / 1000, timeout - elapsed)
        usleep(UInt32(delay * 1_000_000))
        return true
    }

    /// `error` with how long it waited for, when it is a busy error; else `error` unchanged.
    func describing(_ error: DatabaseError) -> DatabaseError {
        guard error.extendedCode & 0xFF == SQLITE_BUSY else { return error }
        let seconds = String(format: "%.1f", waited)
        let limit = String(format: "%g", timeout)
        let count = retryLimit.map { ", the retry limit \($0)" } ?? ""
        return DatabaseError(extendedCode: error.extendedCode,
                             message: error.message + " (waited \(seconds) s and retried \(retries) time(s) for another connection's lock; the busy timeout is \(limit) s\(count))",
                             sql: error.sql, path: error.path)
    }
}
