import CSQLite
import Foundation

/// The row a statement is on, read column by column: `Statement.value(at:)`'s reading,
/// and typed reads of one storage class that make no `DatabaseValue` (a typed fetch reads
/// a field this way when the column holds what the field's type reads).
///
/// A plain handle, not a reference: valid only while its statement is alive and on the
/// same row, which is how long a row is read.
@usableFromInline
package struct StatementCursor {
    @usableFromInline let handle: OpaquePointer

    init(handle: OpaquePointer) { self.handle = handle }

    /// The value of column `index`.
    package func value(at index: Int) -> DatabaseValue {
        let i = Int32(index)
        switch sqlite3_column_type(handle, i) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, i))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, i))
        case SQLITE_TEXT: return .text(text(i))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, i))
            guard count > 0, let p = sqlite3_column_blob(handle, i) else { return .blob(Data()) }
            return .blob(Data(bytes: p, count: count))
        default: return .null
        }
    }

    /// True when column `index` holds a BLOB (known without reading it).
    @inlinable
    package func isBlob(at index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_BLOB }

    /// True when column `index` holds NULL.
    @inlinable
    package func isNull(at index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }

    /// Column `index` when it holds an INTEGER, else nil (not converted).
    @inlinable
    package func integer(at index: Int) -> Int64? {
        let i = Int32(index)
        return sqlite3_column_type(handle, i) == SQLITE_INTEGER ? sqlite3_column_int64(handle, i) : nil
    }

    /// Column `index` when it holds a REAL, else nil (not converted).
    @inlinable
    package func real(at index: Int) -> Double? {
        let i = Int32(index)
        return sqlite3_column_type(handle, i) == SQLITE_FLOAT ? sqlite3_column_double(handle, i) : nil
    }

    /// Column `index` when it holds TEXT, else nil (not converted).
    @inlinable
    package func text(at index: Int) -> String? {
        let i = Int32(index)
        return sqlite3_column_type(handle, i) == SQLITE_TEXT ? text(i) : nil
    }

    /// The text of column `i`, which holds TEXT.
    @inlinable
    func text(_ i: Int32) -> String {
        let count = Int(sqlite3_column_bytes(handle, i))
        guard let p = sqlite3_column_text(handle, i) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)
    }
}
