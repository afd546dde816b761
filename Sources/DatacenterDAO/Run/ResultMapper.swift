import DatacenterKit
import Foundation

/// Turns a select's rows into its `result`: scalars, dictionaries, models and maps, with
/// `<crypt>` columns decrypted for the class the rows become.
///
/// Rows are mapped as they are stepped (`ResultCollector`), or from `Row`s already read
/// (`map(_:as:)`); both go through the same `RowLayout`, so they give the same values.
///
/// A class: a DAO object keeps one per decryptor, so a call takes it with one reference.
final class ResultMapper: Sendable {
    /// The config's `<map>`s by id.
    let maps: [String: DAOMap]
    /// The config's `<crypt>` rules.
    let cryptRules: Set<DAOCryptRule>
    let decryptor: any DataCrypt
    let registry: DAOModelRegistry

    /// A mapper for `config`'s maps and crypt rules (only those are kept, not the whole config).
    init(config: DAOConfig, decryptor: any DataCrypt, registry: DAOModelRegistry) {
        self.maps = config.maps
        self.cryptRules = config.cryptRules
        self.decryptor = decryptor
        self.registry = registry
    }

    /// `mapper`'s maps and crypt rules with another decryptor.
    init(_ mapper: ResultMapper, decryptor: any DataCrypt) {
        self.maps = mapper.maps
        self.cryptRules = mapper.cryptRules
        self.decryptor = decryptor
        self.registry = mapper.registry
    }

    /// The mapped value of `rows` (one statement's: they have the same columns), and decoded
    /// objects when the type is registered: every row for an array type, else the first
    /// row's (`.nil` when there is none).
    /// - throws: `DAOError.resultMapping` (no such map, a row that does not decode),
    ///   `DAOError.crypt`: the first failing row's error.
    func map(_ rows: [Row], as type: DAOResultType?) throws -> (DAOValue, [any Sendable]) {
        let collector = ResultCollector(type, mapper: self)
        for row in rows {
            guard collector.wantsRow else { break }
            collector.add(row)
        }
        return try collector.finish()
    }

    /// The value of a scalar result for a row whose first column is `first`; nil for the
    /// types a `RowLayout` builds (`{}`, models and maps).
    static func scalar(_ first: DatabaseValue, as element: DAOResultType.Element) -> DAOValue? {
        switch element {
        case .int, .longLong:
            switch first {
            case .integer(let i): return .integer(i)
            case .real(let d): return d.isFinite && abs(d) < 9.2e18 ? .integer(Int64(d)) : .nil
            case .text(let s): return Int64(s.trimmingCharacters(in: .whitespaces)).map(DAOValue.integer) ?? .nil
            default: return .nil
            }
        case .bool:
            switch first {
            case .integer(let i): return .bool(i != 0)
            case .real(let d): return .bool(d != 0)
            case .text(let s): return .bool(["1", "true", "yes"].contains(s.lowercased()))
            default: return .nil
            }
        case .double:
            if case .text(let s) = first { return Double(s).map(DAOValue.double) ?? .nil }
            return first.doubleValue.map(DAOValue.double) ?? .nil
        case .string:
            switch first {
            case .text(let s): return .string(s)
            case .integer(let i): return .string(String(i))
            case .real(let d): return .string(String(d))
            case .blob(let d): return String(data: d, encoding: .utf8).map(DAOValue.string) ?? .nil
            case .null: return .nil
            }
        case .binary:
            switch first {
            case .blob(let d): return .data(d)
            case .text(let s): return .data(Data(s.utf8))
            case .null: return .nil
            default: return .data(Data(first.description.utf8))
            }
        case .dictionary, .model, .map:
            return nil
        }
    }

    /// The field a column fills for `element` and whether its BLOBs are decrypted first:
    /// the map's property for the column (or the column's own name) and the class's crypt
    /// rule for that property.
    /// - throws: `DAOError.resultMapping` when `element` names a map the config lacks.
    func field(forColumn column: String, of element: DAOResultType.Element) throws -> (name: String, decrypted: Bool) {
        switch element {
        case .model(let className):
            return (column, cryptRules.contains(DAOCryptRule(className: className, property: column)))
        case .map(let id):
            guard let map = maps[id] else { throw DAOError.resultMapping("no map '\(id)'") }
            let property = map.property(forColumn: column)
            return (property, cryptRules.contains(DAOCryptRule(className: map.className, property: property)))
        default:
            return (column, false)
        }
    }

    /// The value of the row `row` is on as `element`: the one function every way of running
    /// a call maps a row with. `layout` is the `RowLayout` of the rows so far, made (again)
    /// when missing or made for other columns (not checked when `checkingColumns` is false:
    /// a later row of the statement whose first row was checked). With `typedRows` (a typed
    /// read's), the row is decoded there and its value is `.nil`.
    /// - throws: `DAOError.resultMapping` (no such map), `DAOError.crypt`.
    @inline(__always)
    func value(of row: some ResultRow, as element: DAOResultType.Element, layout: inout RowLayout?,
               typedRows: TypedRows? = nil, checkingColumns: Bool = true) throws -> DAOValue {
        guard element.isRow else {
            let value = ResultMapper.scalar(row.columnCount > 0 ? row.value(at: 0) : .null, as: element) ?? .nil
            if let typedRows {
                try typedRows.add(scalar: value)
                return .nil
            }
            return value
        }
        if layout == nil || checkingColumns { layout = try self.layout(of: row, as: element, kept: layout) }
        if let typedRows {
            try typedRows.add(row, layout: layout!, mapper: self)
            return .nil
        }
        return try layout!.value(of: row, decryptor: decryptor)
    }

    /// The layout of `row`'s columns as `element` rows (`element.isRow`): `kept` when it was
    /// made for these columns (a statement SQLite prepared again may have others), else a new one.
    /// - throws: `DAOError.resultMapping` (no such map).
    func layout(of row: some ResultRow, as element: DAOResultType.Element, kept: RowLayout?) throws -> RowLayout {
        if let kept, kept.columnNames == row.columnNames { return kept }
        return try RowLayout(element, columnNames: row.columnNames, mapper: self)
    }

    /// The model class rows of `element` become; nil for a dictionary or scalar.
    func className(of element: DAOResultType.Element) -> String? {
        switch element {
        case .model(let className): return className
        case .map(let id): return maps[id]?.className
        default: return nil
        }
    }
}

/// What a row reads from: a statement on a row, or a `Row` already read.
protocol ResultRow {
    /// How many columns the row has.
    var columnCount: Int { get }
    /// The column names, the same array for every row of one statement.
    var columnNames: [String] { get }
    /// The value of the column at `index`.
    func value(at index: Int) -> DatabaseValue
    /// True when the column at `index` holds a BLOB (the only values a crypt column decrypts).
    func isBlob(at index: Int) -> Bool
}

extension Row: ResultRow {
    var columnCount: Int { values.count }
    func value(at index: Int) -> DatabaseValue { values[index] }
    func isBlob(at index: Int) -> Bool {
        if case .blob = values[index] { return true }
        return false
    }
}

extension Statement: ResultRow {
    func isBlob(at index: Int) -> Bool { cursor.isBlob(at: index) }
}

/// How a row of given columns becomes one `{}`, model or map result: for each field, the
/// column that fills it (the last one, when several columns fill the same field, as
/// inserting the columns in order would leave it), and the columns decrypted first.
/// The fields are made with `mapValues` over that template, which lays the dictionary out
/// once instead of hashing every name per row.
final class RowLayout {
    /// The columns the layout was made for (a statement's `columnNames` array is shared by
    /// its rows, so the comparison is usually by identity).
    let columnNames: [String]
    /// The model class; nil for a `{}` dictionary.
    let className: String?
    /// Each field's column.
    private let fieldColumns: [String: Int]
    /// Per column: decrypted before it becomes a value.
    private let decrypted: [Bool]
    /// The decrypted columns, in order.
    let decryptedColumns: [Int]
    /// The order the last type read with `TypedRows` asked for its fields in, learnt from
    /// its first row: a `Decodable` type asks in the same order row after row, so each
    /// request is checked against the next one by name before `fieldColumns` is consulted
    /// (a guess that misses costs a lookup, never a wrong column). Used by the thread
    /// reading the rows, as the layout is.
    var fieldOrder: (type: ObjectIdentifier, fields: [FieldRequest])?
    /// The decrypted columns whose field a later column fills: read only so that a value
    /// that does not decrypt fails the row, as mapping column by column does.
    private let shadowedDecrypted: [Int]

    /// The layout of `element` (a `{}`, model or map) for rows of `columnNames`.
    /// - throws: `DAOError.resultMapping` when the element names a map the config lacks.
    init(_ element: DAOResultType.Element, columnNames: [String], mapper: ResultMapper) throws {
        let fields = try columnNames.map { try mapper.field(forColumn: $0, of: element) }
        var fieldColumns: [String: Int] = Dictionary(minimumCapacity: fields.count)
        for (column, field) in fields.enumerated() { fieldColumns[field.name] = column }
        self.columnNames = columnNames
        self.className = mapper.className(of: element)
        self.fieldColumns = fieldColumns
        self.decrypted = fields.map(\.decrypted)
        self.decryptedColumns = fields.indices.filter { fields[$0].decrypted }
        self.shadowedDecrypted = decryptedColumns.filter { fieldColumns[fields[$0].name] != $0 }
    }

    /// The value of the row `row` is on: `.model(className, fields)` or `.dictionary(fields)`.
    /// - throws: `DAOError.crypt` when a covered BLOB does not decrypt: the first such
    ///   column's error.
    func value(of row: some ResultRow, decryptor: any DataCrypt) throws -> DAOValue {
        let fields: [String: DAOValue]
        do {
            for column in shadowedDecrypted { _ = try cell(column, of: row, decryptor: decryptor) }
            fields = try fieldColumns.mapValues { try cell($0, of: row, decryptor: decryptor) }
        } catch {
            // The fields are made in no particular order: report the first column that fails.
            for column in decryptedColumns { _ = try cell(column, of: row, decryptor: decryptor) }
            throw error
        }
        guard let className else { return .dictionary(fields) }
        return .model(className, fields)
    }

    /// The order `type` asked for its fields in, when learnt (see `fieldOrder`).
    func fieldOrder(of type: ObjectIdentifier) -> [FieldRequest]? {
        fieldOrder.flatMap { $0.type == type ? $0.fields : nil }
    }

    /// The fields the rows have.
    var fieldNames: [String] { Array(fieldColumns.keys) }

    /// The column that fills `field`; nil when no column does.
    func column(forField field: String) -> Int? { fieldColumns[field] }

    /// True when column `column` is decrypted before it becomes a value.
    func isDecrypted(_ column: Int) -> Bool { decrypted[column] }

    /// The value of column `column` of the row, decrypted when the layout says so.
    @inline(__always)
    func cell(_ column: Int, of row: some ResultRow, decryptor: any DataCrypt) throws -> DAOValue {
        let value = row.value(at: column)
        if decrypted[column], case .blob(let ciphertext) = value { return try CryptColumn.decrypt(ciphertext, with: decryptor) }
        return DAOValue(value)
    }
}

/// A field a typed read asked a row for, and where it is: the column that fills it and
/// whether that is a crypt column, in one integer (`location`).
@usableFromInline
struct FieldRequest {
    /// The field's name.
    @usableFromInline let field: String
    /// `column << 1 | decrypted`, -1 for no column: what `ColumnDecoder.locate` returns, in a
    /// register.
    @usableFromInline let location: Int

    /// Field `field`, filled by `column` (nil: none), a crypt column when `decrypted`.
    init(field: String, column: Int?, decrypted: Bool) {
        self.field = field
        self.location = column.map { $0 << 1 | (decrypted ? 1 : 0) } ?? -1
    }

    /// The column of a location that is not -1.
    @inlinable
    static func column(of location: Int) -> Int { location >> 1 }
    /// True when the column of a location (not -1) is a crypt column.
    @inlinable
    static func isDecrypted(_ location: Int) -> Bool { location & 1 != 0 }
}

/// Maps a result's rows one at a time, as they are read: every row for an array type, the
/// first for a single-row type, decoded into registered model types.
///
/// A row that fails to map (a map the config lacks, a column that does not decrypt, a model
/// that does not decode) stops the mapping, and `finish` throws that first error; rows
/// still being read are not mapped, so the statement runs to its end as it would if the
/// rows were mapped after it.
///
/// A class: a collector is filled by the closure a statement steps its rows with, and a
/// struct of its ten fields was copied into that capture and destroyed again on every run
/// (25 of the 385 retains and releases of a ten-row typed read). Each statement run makes
/// its own; none is shared once made (`Executor.Outcome` keeps the last run's).
final class ResultCollector {
    // Used by the one thread running the statement.

    private let type: DAOResultType?
    private let mapper: ResultMapper
    /// Where a typed read decodes the rows; nil for the value path.
    private let typedRows: TypedRows?
    /// The layout of the rows so far (made at the first row, again if the columns change).
    private var layout: RowLayout?
    /// The layout given at the start (kept with the statement): a new one is kept again.
    private let givenLayout: RowLayout?
    /// The row of a single-row type (no array to allocate), or every row of an array type.
    private var first: DAOValue?
    private var all: [DAOValue] = []
    private var objects: [any Sendable] = []
    private var decoder: DAOModelRegistry.Decoder?
    private var lookedUpDecoder = false
    private var error: (any Error)?
    /// True once a row's columns were checked against the layout: the rows collected are
    /// those of one statement run, whose columns do not change from row to row.
    private var checkedColumns = false

    /// A collector of rows into `type` (nil: no result, the value is `.nil`); with
    /// `typedRows`, rows are decoded there and the value has none of them.
    init(_ type: DAOResultType?, mapper: ResultMapper, typedRows: TypedRows? = nil, layout: RowLayout? = nil) {
        self.type = type
        self.mapper = mapper
        self.typedRows = typedRows
        self.layout = layout
        self.givenLayout = layout
    }

    /// False once more rows would change nothing: a single-row type has its row, a type-less
    /// call maps none, or a row failed.
    var wantsRow: Bool {
        guard let type, error == nil else { return false }
        return type.isArray || first == nil
    }

    /// The layout made for the rows when it is not the one given at the start: the one to
    /// keep with their statement.
    var newLayout: RowLayout? { layout === givenLayout ? nil : layout }

    /// Maps the row `row` is on (when `wantsRow`).
    func add(_ row: some ResultRow) {
        guard let type, wantsRow else { return }
        do {
            let value = try mapper.value(of: row, as: type.element, layout: &layout, typedRows: typedRows,
                                         checkingColumns: !checkedColumns)
            checkedColumns = true
            // A typed read decoded the row: its value is `.nil`, kept only as the first row taken.
            if !type.isArray { first = value } else if typedRows == nil { all.append(value) }
            if let name = value.modelTypeName {
                if !lookedUpDecoder {
                    decoder = mapper.registry.decoder(named: name)
                    lookedUpDecoder = true
                }
                if let decoder { objects.append(try DAOModelRegistry.decode(value, as: name, with: decoder)) }
            }
        } catch {
            self.error = error
        }
    }

    /// The mapped value (an array for an array type, else the first row's or `.nil`) and
    /// the decoded objects.
    /// - throws: the first row's mapping error.
    func finish() throws -> (DAOValue, [any Sendable]) {
        if let error { throw error }
        guard let type else { return (.nil, []) }
        return (type.isArray ? .array(all) : first ?? .nil, objects)
    }
}

/// How crypt columns are stored.
///
/// **Decision**: a crypt property is stored as a BLOB holding the crypt's output for the
/// value's bytes (text as UTF-8; numbers as their text). On read, decrypted bytes that are
/// valid UTF-8 become a string, others stay data; a non-BLOB value is read as is (it was
/// written before the column was encrypted).
package enum CryptColumn {
    /// What a crypt column's stored `value` holds, as a database value: a BLOB decrypted
    /// (text when its bytes are UTF-8, else a blob), anything else as it is (written before
    /// the column was encrypted). Exports and browsers show crypt columns through this.
    /// - throws: `DAOError.crypt` when the BLOB does not decrypt with `crypt`.
    package static func plaintext(of value: DatabaseValue, with crypt: any DataCrypt) throws -> DatabaseValue {
        guard case .blob(let ciphertext) = value else { return value }
        switch try decrypt(ciphertext, with: crypt) {
        case .string(let text): return .text(text)
        case .data(let data): return .blob(data)
        default: return .null
        }
    }

    static func encrypt(_ value: DatabaseValue, with crypt: any DataCrypt) throws -> DatabaseValue {
        let plaintext: Data
        switch value {
        case .null: return .null
        case .text(let s): plaintext = Data(utf8Of: s)
        case .blob(let d): plaintext = d
        case .integer(let i): plaintext = Data(utf8Of: String(i))
        case .real(let d): plaintext = Data(utf8Of: String(d))
        }
        do {
            return .blob(try crypt.encrypt(plaintext))
        } catch {
            throw DAOError.crypt("encryption failed: \(error)")
        }
    }

    static func decrypt(_ ciphertext: Data, with crypt: any DataCrypt) throws -> DAOValue {
        let plaintext: Data
        do {
            plaintext = try crypt.decrypt(ciphertext)
        } catch {
            throw DAOError.crypt("decryption failed: \(error)")
        }
        if let text = String(data: plaintext, encoding: .utf8) { return .string(text) }
        return .data(plaintext)
    }
}
