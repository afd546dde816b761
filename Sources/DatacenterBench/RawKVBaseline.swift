import CSQLite
import DatacenterBrowser
import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation

/// The same key-value work as `KVStore`, done with raw SQLite C calls: the benchmarks'
/// baseline. Same schema, same pragmas, prepared statements reused.
final class RawKVBaseline {
    private let raw: RawSQLite
    private let upsert: OpaquePointer?
    private let select: OpaquePointer?
    private let begin: OpaquePointer?
    private let commit: OpaquePointer?

    init(path: String) throws {
        raw = try RawSQLite(path: path)
        try raw.exec(KVStore.schema)
        upsert = try raw.prepare(KVStore.upsertSQL)
        select = try raw.prepare(KVStore.selectSQL)
        begin = try raw.prepare("BEGIN IMMEDIATE")
        commit = try raw.prepare("COMMIT")
    }

    private func bindText(_ s: OpaquePointer?, _ index: Int32, _ text: String) { raw.bindText(s, index, text) }

    private func step(_ s: OpaquePointer?) throws {
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw raw.lastError() }
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
