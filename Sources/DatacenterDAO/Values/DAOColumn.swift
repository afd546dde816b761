import DatacenterKit

/// A column of the row a statement is on, as a `DAOFieldDecodable` type reads it directly
/// (`decode(column:)`): what SQLite holds, with no `DAOValue` made of it, as GRDB's
/// `StatementColumnConvertible` types read a statement's columns.
///
/// Valid only while the `DAORow` it comes from is read. A crypt column is never one of
/// these: it is read decrypted, through its value.
public struct DAOColumn {
    @usableFromInline let column: ColumnValue

    @usableFromInline
    init(_ column: ColumnValue) {
        self.column = column
    }

    /// The integer the column holds; nil when it holds another type (not converted).
    @inlinable
    public var integer: Int64? { column.integer }
    /// The floating-point number the column holds; nil when it holds another type.
    @inlinable
    public var real: Double? { column.real }
    /// The text the column holds; nil when it holds another type.
    @inlinable
    public var text: String? { column.text }
    /// True when the column holds NULL.
    @inlinable
    public var isNull: Bool { column.isNull }

    /// The column's value as the value path has it.
    @usableFromInline
    var value: DAOValue { DAOValue(column.value) }
}

/// What a `DAORow` holds for a field: a column read directly, a value (a decrypted crypt
/// column, a dictionary's field), or nothing.
@usableFromInline
enum DAORowCell {
    case column(DAOColumn)
    case value(DAOValue)
    case missing

    /// The cell read as `T`: straight from its column when that holds what `T` reads
    /// without conversion (`DAOFieldDecodable.decode(column:)`), else by `convert` from its
    /// value (which gives the same for such a column); nil when the field is missing.
    @inlinable
    func read<T: DAOFieldDecodable>(by convert: (DAOValue) throws -> T) rethrows -> T? {
        switch self {
        case .column(let column):
            if let value = T.decode(column: column) { return value }
            return try convert(column.value)
        case .value(let value): return try convert(value)
        case .missing: return nil
        }
    }

    /// True when the field is missing or holds nil (NULL).
    @usableFromInline
    var isNil: Bool {
        switch self {
        case .column(let column): return column.isNull
        case .value(let value): return value.isNil
        case .missing: return true
        }
    }
}
