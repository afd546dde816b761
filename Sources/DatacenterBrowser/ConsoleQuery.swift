import DatacenterKit
import Foundation

/// SQL typed in the console, run off the input loop on a read-only connection of its own,
/// and stoppable from the input loop.
///
/// The connection is opened by `run` on the thread that runs the query, used there only, and
/// closed when `run` returns; no other code reaches it. While it is open, `cancel()` (from
/// any thread) sets the flag and calls `Database.interrupt()`, the one call SQLite allows from
/// another thread; the query also checks the flag every thousand SQLite steps and between
/// rows, so a statement starting just after the cancel stops as well.
///
/// Rows are streamed: at most `RowsLayout.rowLimit` are kept for the screen, the others only
/// counted, so a huge result never sits in memory.
package final class ConsoleQuery: Sendable {
    /// The query's id: its events carry it, so a late result of a cancelled query is ignored.
    package let id: Int
    /// The store file it reads.
    package let storePath: String
    /// The SQL as typed: one or more statements.
    package let sql: String
    /// The keys handed to `RowsLayout`; the console names no encrypted column, so nothing is
    /// decrypted with them.
    let crypt: any DataCrypt
    /// How long the query waits for another connection's lock, in seconds.
    let busyTimeout: Double

    /// Whether `cancel()` was called, and the connection while `run` has it open, so
    /// `cancel` can interrupt it.
    private let state = LockedState<(cancelled: Bool, running: Database?)>((false, nil))

    /// How many rows pass between two progress events.
    static let progressInterval = 1_000

    /// A query not yet run; `run` runs it.
    init(id: Int, storePath: String, sql: String, crypt: any DataCrypt, busyTimeout: Double) {
        self.id = id
        self.storePath = storePath
        self.sql = sql
        self.crypt = crypt
        self.busyTimeout = busyTimeout
    }

    /// True once `cancel()` was called.
    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Stops the query: now if it runs, before it starts otherwise. Safe from any thread.
    package func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.running?.interrupt()
        }
    }

    /// Runs every statement of the SQL in turn and lays out the rows of each, posting
    /// `consoleProgress` as rows come; returns `consoleFinished`. Writes fail: the connection
    /// is read-only.
    func run(post: (BrowserEvent) -> Void) -> BrowserEvent {
        var lines: [String] = []
        do {
            let db = try Database(path: storePath, mode: .readOnly, busyTimeout: busyTimeout)
            let started: Bool = state.withLock { state in
                if !state.cancelled { state.running = db }
                return !state.cancelled
            }
            guard started else { return cancelledEvent }
            defer { state.withLock { $0.running = nil } }
            var seen = 0
            try db.withInterruptCheck({ [unowned self] in self.isCancelled }) {
                try db.forEachStatement(in: sql) { statement in
                    var kept: [Row] = []
                    var count = 0
                    try statement.forEachRow { row in
                        if count < RowsLayout.rowLimit { kept.append(row.row()) }
                        count += 1
                        seen += 1
                        if seen % ConsoleQuery.progressInterval == 0 {
                            if isCancelled { return false }
                            post(.consoleProgress(queryID: id, rows: seen))
                        }
                        return true
                    }
                    lines += kept.isEmpty && statement.columnCount == 0 ? ["ok"]
                        : RowsLayout.lines(kept, total: count, crypt: crypt)
                }
            }
            if isCancelled { return cancelledEvent }
            return .consoleFinished(queryID: id, output: ["> " + sql] + lines, isError: false)
        } catch let error as DatabaseError where error.isInterrupted {
            return cancelledEvent
        } catch {
            return .consoleFinished(queryID: id, output: ["> " + sql, "\(error)"], isError: true)
        }
    }

    private var cancelledEvent: BrowserEvent {
        .consoleFinished(queryID: id, output: ["> " + sql, "cancelled"], isError: true)
    }
}
