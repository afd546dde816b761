import CSQLite

/// The storage class of a value in a row, as SQLite reports it.
package enum ColumnKind: Sendable, Equatable {
    case integer, real, text, blob, null
}

extension Statement {
    /// The storage class of column `index` of the current row.
    package func kind(at index: Int) -> ColumnKind {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: return .integer
        case SQLITE_FLOAT: return .real
        case SQLITE_TEXT: return .text
        case SQLITE_BLOB: return .blob
        default: return .null
        }
    }

    /// Calls `body` with the bytes of column `index` of the current row as SQLite holds
    /// them, without making a Swift value: the UTF-8 text of a text value, or of a number
    /// as SQLite writes it (`1.0e+20`, `Inf`, as the sqlite3 shell prints it); the bytes of
    /// a blob. The buffer is valid only during the call.
    package func withBytes<R>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let i = Int32(index)
        let start: UnsafeRawPointer?
        if sqlite3_column_type(handle, i) == SQLITE_BLOB {
            start = sqlite3_column_blob(handle, i)
        } else {
            start = sqlite3_column_text(handle, i).map(UnsafeRawPointer.init)
        }
        let count = Int(sqlite3_column_bytes(handle, i))
        guard let start, count > 0 else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count))
    }
}

extension DatabaseValue {
    /// The text SQLite gives the value (`CAST(x AS TEXT)`, what the sqlite3 shell prints):
    /// numbers as SQLite writes them (`Database.realText`), a blob's bytes as UTF-8; nil
    /// for NULL.
    package var sqliteText: String? {
        switch self {
        case .null: return nil
        case .integer(let i): return String(i)
        case .real(let d): return Database.realText(d)
        case .text(let s): return s
        case .blob(let d): return String(decoding: d, as: UTF8.self)
        }
    }
}

extension Database {
    /// `value` as SQLite writes a real as text (`%!.15g`: `0.1`, `1.0e+20`, `Inf`), which
    /// is what the sqlite3 shell prints; with `significantDigits` other than 15, as the
    /// shell's JSON mode writes one (20).
    package static func realText(_ value: Double, significantDigits: Int = 15) -> String {
        guard let text = withVaList([value], { sqlite3_vmprintf("%!.\(significantDigits)g", $0) }) else { return String(value) }
        defer { sqlite3_free(text) }
        return String(cString: text)
    }
}
