import CSQLite
import DatacenterBrowser
import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation

/// A raw SQLite connection for the benchmarks' baselines: the C API with nothing of the
/// engine in between, opened and configured as the engine's stores are (WAL,
/// `synchronous=NORMAL`, a busy timeout). Statements it prepares are finalized with it.
package final class RawSQLite {
    /// The `sqlite3*` handle.
    package private(set) var handle: OpaquePointer?
    private var statements: [OpaquePointer?] = []

    /// Opens (creating) `path` read-write in WAL mode.
    package init(path: String) throws {
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            sqlite3_close_v2(handle)
            throw DatabaseError(extendedCode: SQLITE_CANTOPEN, message: "cannot open baseline database", path: path)
        }
        sqlite3_busy_timeout(handle, 5000)
        try exec("PRAGMA journal_mode=WAL")
        try exec("PRAGMA synchronous=NORMAL")
    }

    deinit {
        for statement in statements { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs SQL with no parameters.
    package func exec(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw lastError(sql: sql) }
    }

    /// Prepares a statement kept for the connection's lifetime.
    package func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK else {
            throw lastError(sql: sql)
        }
        statements.append(statement)
        return statement
    }

    /// Binds text, copied by SQLite.
    package func bindText(_ statement: OpaquePointer?, _ index: Int32, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                _ = sqlite3_bind_text(statement, index, chars.baseAddress, Int32(chars.count), dc_sqlite_transient())
            }
        }
    }

    /// The connection's last error.
    package func lastError(sql: String? = nil) -> DatabaseError {
        DatabaseError(extendedCode: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}
