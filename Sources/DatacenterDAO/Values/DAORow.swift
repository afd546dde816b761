import DatacenterKit

/// A type an app reads a select's rows into by field name, with `fetch(_:_:as:)`, as
/// GRDB's `FetchableRecord` is read from a `Row`.
///
/// `Decodable` works too and needs no code, but every field it reads goes through
/// containers the standard library boxes and dispatches generically; a type that writes
/// its `init(row:)` reads each field with one call, and is what an app reads many rows with.
/// Both read the same fields with the same conversions (`DAOFieldDecodable`), so a type may
/// adopt both: `fetch` then takes this path.
///
/// ```swift
/// struct Message: DAORowDecodable {
///     var id: Int64, sender: String, content: String?
///     init(row: borrowing DAORow) throws {
///         id = try row["msgId"]
///         sender = try row["sender"]
///         content = try row["content"]
///     }
/// }
/// let messages = try dao.fetch("listMessages", arguments, as: Message.self)
/// ```
///
/// For many rows, write `init(row:)` in an extension, calling the memberwise initializer
/// Swift synthesizes: `self.init(id: try row["msgId"], sender: try row["sender"], content:
/// try row["content"])`. Swift 6.3 compiles a throwing initializer that assigns the fields of
/// a larger struct one by one, or that calls an initializer written in the struct, with a
/// copy and a destroy of the whole value at its end (a retain and a release per reference it
/// holds, per row: measured on the bench's seven-field `MessageRow`); the synthesized
/// memberwise form builds the value in place.
public protocol DAORowDecodable {
    /// Reads one row. `row` is borrowed for this call only (it cannot be copied or kept):
    /// keep what it gives.
    /// - throws: what reading a field throws (`DecodingError`), or an error of the type's own.
    init(row: borrowing DAORow) throws
}

/// One row of a select's result, as a `<map>` or `{}` result lays it out: each field (a
/// mapped property name, else a column name) with its value, crypt columns decrypted.
///
/// Read by `DAORowDecodable` types during `fetch`, straight from the statement's columns
/// when the call runs one statement, else from the row's dictionary.
///
/// Not copyable: a row is the statement's current row, so `init(row:)` borrows it for the
/// call and the compiler refuses to copy or keep it; keep the values it gives.
public struct DAORow: ~Copyable {
    /// Where the fields are read from.
    @usableFromInline
    enum Source {
        /// The row a statement is on, read by the call's `ColumnDecoder`.
        case columns(ColumnDecoder)
        /// A row value's fields.
        case dictionary([String: DAOValue])
    }

    @usableFromInline let source: Source

    /// The fields, for the reads that need no speed.
    private var fields: any DAOValueDecoding.Fields {
        switch source {
        case .columns(let columns): return columns
        case .dictionary(let fields): return DAOValueDecoding.DictionaryFields(fields: fields)
        }
    }

    /// The row's field names.
    public var fieldNames: [String] { fields.fieldNames }

    /// True when the row has field `name` (whatever its value, `nil` included).
    public func contains(_ name: String) -> Bool { fields.hasField(name) }

    /// The value of field `name` read as `T`, with the conversions `Decodable` reads with
    /// (`DAOValue.decode`): an integer from 0/1 for a `Bool`, from numeric text, and so on.
    /// An optional `T` reads nil for a missing field or a `nil` value.
    /// - throws: `DecodingError.keyNotFound` (no such field), `.typeMismatch` (a value that
    ///   does not fit `T`), both naming the field; `DAOError.crypt` for a crypt column that
    ///   does not decrypt.
    @inlinable
    public subscript<T: DAOFieldDecodable>(_ name: String) -> T {
        get throws { try decode(T.self, name) }
    }

    /// `row[name]` with the type spelt out.
    ///
    /// Inlined where it is called, so `T`'s reading is specialized: a column holding what
    /// `T` reads without conversion is read straight from the statement (`decode(column:)`),
    /// anything else through its value, with the same result.
    ///
    /// What is inlined is kept small: finding the column is one call shared by every field
    /// and type (`ColumnDecoder.nextPlainColumn`), and everything else (a missing field, a
    /// crypt column to decrypt, a conversion) is one call out of line (`readField`). A
    /// row's code runs between two steps of SQLite's own, which evict it: the fewer bytes a
    /// row runs, the fewer it fetches again (see docs/BENCHMARKS.md, `dao-messages-list`).
    @inlinable
    public func decode<T: DAOFieldDecodable>(_ type: T.Type, _ name: String) throws -> T {
        if case .columns(let columns) = source {
            // The same reading as `cell(name).read(by:)`, without building the cell.
            if let column = columns.nextPlainColumn(name), let value = T.decode(column: DAOColumn(column)) {
                return value
            }
            return try columns.readField(T.self, name)
        }
        guard let value = try cell(name).read(by: { try T.decode(fieldValue: $0, field: name) }) else {
            return try T.decodeMissingField(name)
        }
        return value
    }

    /// The field's value as the value path has it, nil when the row has no such field.
    public func value(_ name: String) throws -> DAOValue? { try fields.value(ofField: name) }

    /// What the row holds for field `name`.
    /// - throws: `DAOError.crypt` for a crypt column that does not decrypt.
    @usableFromInline
    func cell(_ name: String) throws -> DAORowCell {
        switch source {
        case .columns(let columns): return try columns.cell(forField: name)
        case .dictionary(let fields): return DAOValueDecoding.DictionaryFields(fields: fields).cell(forField: name)
        }
    }

    /// The row as a `Decoder`, for a `Decodable` type read by `fetch`.
    @usableFromInline
    var decoder: any Decoder {
        get throws { try fields.wholeDecoder() }
    }
}

extension DAORow {
    /// The row `decoder` is on. The decoder is taken as an owned reference: Swift 6.3's
    /// optimizer crashes building a non-copyable row from a borrowed one.
    init(columns decoder: consuming ColumnDecoder) {
        self.init(source: .columns(decoder))
    }

    /// The row of a call's result value: a `{}`, model or map row (a dictionary).
    /// - throws: `DecodingError.typeMismatch` for a value that is not a row.
    @usableFromInline
    init(value: DAOValue) throws {
        guard let fields = value.fields else { throw DAOValueDecoding.mismatch([String: DAOValue].self, value, []) }
        self.init(source: .dictionary(fields))
    }
}
