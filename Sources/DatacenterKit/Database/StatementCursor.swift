import CSQLite
import Foundation

/// The row a statement is on, read column by column: `Statement.value(at:)`'s reading, and
/// each column as a `ColumnValue` that typed reads take one storage class from without
/// making a `DatabaseValue` (a typed fetch reads a field this way when the column holds what
/// the field's type reads).
///
/// A plain handle, not a reference: valid only while its statement is alive and on the
/// same row, which is how long a row is read.
@usableFromInline
package struct StatementCursor {
    @usableFromInline let handle: OpaquePointer

    init(handle: OpaquePointer) { self.handle = handle }

    /// The value of column `index`.
    package func value(at index: Int) -> DatabaseValue { column(at: index).value }

    /// True when column `index` holds a BLOB (known without reading it).
    @inlinable
    package func isBlob(at index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_BLOB }
}

extension StatementCursor {
    /// Column `index` of the row, to be read once for its type and content: one call into
    /// SQLite for the column, then reads of the value that need none of a statement's
    /// checks (`sqlite3_column_value`: each `sqlite3_column_*` call checks the statement and
    /// its connection again; a field read as a type that checks the storage class first made
    /// two or three of those calls).
    @inlinable
    package func column(at index: Int) -> ColumnValue { ColumnValue(handle: sqlite3_column_value(handle, Int32(index))) }
}

/// One column of the row a statement is on (`StatementCursor.column(at:)`), or one argument
/// of a SQL function call: a SQLite value read by storage class, without conversion.
///
/// Valid only while the statement stays on the row (or the function call runs). Read by
/// the thread that owns the connection: the value is the row's own (what SQLite calls an
/// unprotected value, which takes no lock; connections here are opened without one).
@usableFromInline
package struct ColumnValue {
    /// The value; nil reads as NULL.
    @usableFromInline let handle: OpaquePointer?

    @inlinable
    package init(handle: OpaquePointer?) { self.handle = handle }

    /// The storage class (`SQLITE_INTEGER`, …, `SQLITE_NULL`).
    @inlinable
    package var type: Int32 { handle.map(sqlite3_value_type) ?? SQLITE_NULL }

    /// True when the value is NULL.
    @inlinable
    package var isNull: Bool { type == SQLITE_NULL }

    /// True when the value is a BLOB.
    @inlinable
    package var isBlob: Bool { type == SQLITE_BLOB }

    /// The value when it is an INTEGER, else nil (not converted).
    @inlinable
    package var integer: Int64? { type == SQLITE_INTEGER ? sqlite3_value_int64(handle) : nil }

    /// The value when it is a REAL, else nil (not converted).
    @inlinable
    package var real: Double? { type == SQLITE_FLOAT ? sqlite3_value_double(handle) : nil }

    /// The value when it is TEXT, else nil (not converted).
    @inlinable
    package var text: String? { type == SQLITE_TEXT ? textOfText : nil }

    /// The text of a TEXT value (its pointer asked for first, then its length, as SQLite
    /// advises).
    @inlinable
    var textOfText: String {
        guard let p = sqlite3_value_text(handle) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: p, count: Int(sqlite3_value_bytes(handle))), as: UTF8.self)
    }

    /// The value as a `DatabaseValue`.
    package var value: DatabaseValue {
        switch type {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(handle))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(handle))
        case SQLITE_TEXT: return .text(textOfText)
        case SQLITE_BLOB:
            guard let bytes = sqlite3_value_blob(handle) else { return .blob(Data()) }
            let count = Int(sqlite3_value_bytes(handle))
            return .blob(count > 0 ? Data(bytes: bytes, count: count) : Data())
        default: return .null
        }
    }
}

