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

extension Database {
    /// `value` as SQLite writes a real as text (`%!.15g`: `0.1`, `1.0e+20`, `Inf`), which
    /// is what the sqlite3 shell prints.
    package static func realText(_ value: Double) -> String {
        guard let text = withVaList([value], { sqlite3_vmprintf("%!.15g", $0) }) else { return String(value) }
        defer { sqlite3_free(text) }
        return String(cString: text)
    }
}
