import CSQLite
import Foundation

/// The same key-value work as `KVStore`, done with raw SQLite C calls: the benchmarks'
/// baseline. Same schema, same pragmas, prepared statements reused.
final class RawKVBaseline {
    private var db: OpaquePointer?
    private var upsert: OpaquePointer?
    private var select: OpaquePointer?
    private var begin: OpaquePointer?
    private var commit: OpaquePointer?

    init(path: String) throws {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            throw DatabaseError(extendedCode: SQLITE_CANTOPEN, message: "cannot open baseline database", path: path)
        }
        sqlite3_busy_timeout(db, 5000)
        try exec("PRAGMA journal_mode=WAL")
        try exec("PRAGMA synchronous=NORMAL")
        try exec(KVStore.schema)
        upsert = try prepare(KVStore.upsertSQL)
        select = try prepare(KVStore.selectSQL)
        begin = try prepare("BEGIN IMMEDIATE")
        commit = try prepare("COMMIT")
    }

    deinit {
        for s in [upsert, select, begin, commit] { sqlite3_finalize(s) }
        sqlite3_close_v2(db)
    }

    private func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw DatabaseError(extendedCode: sqlite3_errcode(db), message: String(cString: sqlite3_errmsg(db)), sql: sql)
        }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer? {
        var s: OpaquePointer?
        guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &s, nil) == SQLITE_OK else {
            throw DatabaseError(extendedCode: sqlite3_errcode(db), message: String(cString: sqlite3_errmsg(db)), sql: sql)
        }
        return s
    }

    private func bindText(_ s: OpaquePointer?, _ index: Int32, _ text: String) {
        var text = text
        text.withUTF8 { buf in
            buf.withMemoryRebound(to: CChar.self) { chars in
                _ = sqlite3_bind_text(s, index, chars.baseAddress, Int32(chars.count), dc_sqlite_transient())
            }
        }
    }

    private func step(_ s: OpaquePointer?) throws {
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else {
            throw DatabaseError(extendedCode: rc, message: String(cString: sqlite3_errmsg(db)))
        }
    }

    /// Stores a string value, autocommitted unless inside `transaction`.
    func setString(_ value: String, key: String, business: String) throws {
        bindText(upsert, 1, business)
        bindText(upsert, 2, key)
        bindText(upsert, 3, value)
        bindText(upsert, 4, "string")
        sqlite3_bind_int64(upsert, 5, 0)
        sqlite3_bind_double(upsert, 6, Date().timeIntervalSince1970)
        try step(upsert)
    }

    /// Runs `body` between BEGIN IMMEDIATE and COMMIT.
    func transaction(_ body: () throws -> Void) throws {
        try step(begin)
        try body()
        try step(commit)
    }

    /// Reads a string value (with its encoding and options, as the engine does).
    func string(key: String, business: String) -> String? {
        bindText(select, 1, business)
        bindText(select, 2, key)
        defer { sqlite3_reset(select) }
        guard sqlite3_step(select) == SQLITE_ROW, let p = sqlite3_column_text(select, 0) else { return nil }
        let value = String(decoding: UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(select, 0))), as: UTF8.self)
        if let e = sqlite3_column_text(select, 1) {
            _ = String(decoding: UnsafeBufferPointer(start: e, count: Int(sqlite3_column_bytes(select, 1))), as: UTF8.self)
        }
        _ = sqlite3_column_int64(select, 2)
        _ = sqlite3_column_double(select, 3)
        return value
    }
}
