import CSQLite
import Foundation

/// The statements a connection ran, as SQLite saw them start: a test's view of what the
/// engine did (a call that should run one statement, a read that should not write), rather
/// than only of what came out. Test support, not API for apps: `package`.
package final class SQLTrace: Sendable {
    private let recorded = LockedState<[String]>([])

    /// The SQL of each statement started since tracing began, in order: the text as prepared
    /// (with `?` placeholders), including statements SQLite runs for the engine (a `BEGIN`,
    /// a `SAVEPOINT`).
    package var statements: [String] { recorded.withLock { $0 } }

    /// Forgets what was recorded so far.
    package func clear() { recorded.withLock { $0.removeAll() } }

    fileprivate func record(_ sql: String) { recorded.withLock { $0.append(sql) } }
}

extension Database {
    /// Starts recording every statement this connection runs (SQLite's `SQLITE_TRACE_STMT`);
    /// the trace records until `stopTracing()` or the connection closes. Starting again
    /// replaces the trace.
    package func startTracing() -> SQLTrace {
        let trace = SQLTrace()
        tracer = trace
        let context = Unmanaged.passUnretained(trace).toOpaque()
        sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_STMT), { _, context, statement, _ in
            guard let context, let statement, let sql = sqlite3_sql(OpaquePointer(statement)) else { return 0 }
            Unmanaged<SQLTrace>.fromOpaque(context).takeUnretainedValue().record(String(cString: sql))
            return 0
        }, context)
        return trace
    }

    /// Stops recording (the trace keeps what it recorded).
    package func stopTracing() {
        sqlite3_trace_v2(handle, 0, nil, nil)
        tracer = nil
    }
}
