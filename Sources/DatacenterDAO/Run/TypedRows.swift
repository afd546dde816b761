import DatacenterKit
import Foundation

/// Where a typed read (`DAOObject.fetch(_:_:as:)`) sends its rows: each row of a `{}`,
/// model or map result is decoded straight from the statement's columns, through the same
/// `RowLayout` (field → column, crypt columns decrypted) the value path builds its
/// dictionaries with, so no dictionary is made per row.
///
/// Held by the call's `ResultMapper` and used only on the thread running the call.
protocol TypedRowSink: AnyObject, Sendable {
    /// Decodes the row `row` is on, laid out by `layout`.
    func add(_ row: some ResultRow, layout: RowLayout, decryptor: any DataCrypt) throws
    /// Decodes a scalar result's value (a `.nil` one is no row, as `fetch` has always read it).
    func add(scalar value: DAOValue) throws
}

/// The rows of one typed read, decoded as `T`: by `Decodable`, or by `DAORowDecodable`
/// (the same fields and conversions, without the standard library's containers).
final class TypedRows<T>: TypedRowSink, @unchecked Sendable {
    // @unchecked: used by the one thread running the call (see `TypedRowSink`).

    /// How a row's fields become a `T`.
    private let decodeRow: (ColumnDecoder) throws -> T
    /// How a whole value (a scalar result, a row of the value path, or a row whose columns
    /// are not read) becomes a `T`.
    let decodeValue: (DAOValue) throws -> T
    /// False for the types `DAOValue.decode` reads from a row's whole value (`Date`, `Data`,
    /// `URL`): those take the value path.
    private let readsColumns: Bool

    /// The decoded rows, in order.
    private(set) var rows: [T] = []

    private init(readsColumns: Bool, decodeRow: @escaping (ColumnDecoder) throws -> T, decodeValue: @escaping (DAOValue) throws -> T) {
        self.readsColumns = readsColumns
        self.decodeRow = decodeRow
        self.decodeValue = decodeValue
    }

    func add(_ row: some ResultRow, layout: RowLayout, decryptor: any DataCrypt) throws {
        guard readsColumns else {
            rows.append(try decodeValue(layout.value(of: row, decryptor: decryptor)))
            return
        }
        let type = ObjectIdentifier(T.self)
        let learnt = layout.fieldOrder.flatMap { $0.type == type ? $0.fields : nil }
        let decoder = ColumnDecoder(row: row, layout: layout, decryptor: decryptor, order: learnt)
        do {
            rows.append(try decodeRow(decoder))
            if learnt == nil { layout.fieldOrder = (type, decoder.asked) }
            // The value path decrypts every crypt column of a row: one the type does not read
            // fails the row just the same.
            for column in layout.decryptedColumns where !decoder.hasRead(column) {
                _ = try layout.cell(column, of: row, decryptor: decryptor)
            }
        } catch {
            // As the value path: a crypt column that does not decrypt is the row's error,
            // the first such in column order.
            for column in layout.decryptedColumns { _ = try layout.cell(column, of: row, decryptor: decryptor) }
            throw error
        }
    }

    func add(scalar value: DAOValue) throws {
        guard !value.isNil else { return }
        rows.append(try decodeValue(value))
    }
}

extension TypedRows where T: Decodable {
    /// Rows decoded by `T`'s `init(from:)`.
    convenience init() {
        self.init(readsColumns: T.self != Date.self && T.self != Data.self && T.self != URL.self,
                  decodeRow: { try T(from: $0) }, decodeValue: { try $0.decode(T.self) })
    }
}

extension TypedRows where T: DAORowDecodable {
    /// Rows read by `T`'s `init(row:)`.
    convenience init(rowType: T.Type) {
        self.init(readsColumns: true, decodeRow: { try T(row: DAORow(fields: $0)) },
                  decodeValue: { try T(row: try DAORow(value: $0)) })
    }
}

/// A `Decoder` over the row a statement is on, for `TypedRows`.
final class ColumnDecoder: Decoder {
    let row: any ResultRow
    let layout: RowLayout
    let decryptor: any DataCrypt
    /// The order an earlier row asked for its fields in (see `RowLayout.fieldOrder`); nil
    /// while it is being learnt.
    let order: [FieldRequest]?
    /// How many fields have been asked for (the position in `order`).
    @exclusivity(unchecked) var position = 0
    /// While learning: the fields asked for, with their columns.
    @exclusivity(unchecked) var asked: [FieldRequest] = []
    /// The crypt columns read among the first 64 (the others are never taken as read).
    @exclusivity(unchecked) var readMask: UInt64 = 0

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(row: any ResultRow, layout: RowLayout, decryptor: any DataCrypt, order: [FieldRequest]?) {
        self.row = row
        self.layout = layout
        self.decryptor = decryptor
        self.order = order
    }

    /// The column that fills `field`, nil when none does.
    func column(_ field: String) -> Int? {
        let position = self.position
        self.position = position + 1
        guard let order else {
            let column = layout.column(forField: field)
            asked.append(FieldRequest(field: field, column: column))
            return column
        }
        if position < order.count, order[position].field == field { return order[position].column }
        return layout.column(forField: field)
    }

    /// The value of `column`, decrypted when it is a crypt column.
    func cell(_ column: Int) throws -> DAOValue {
        if column < 64, layout.isDecrypted(column) { readMask |= 1 << UInt64(column) }
        return try layout.cell(column, of: row, decryptor: decryptor)
    }

    /// True when crypt column `column` was read (so it decrypted).
    func hasRead(_ column: Int) -> Bool { column < 64 && readMask & (1 << UInt64(column)) != 0 }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(DAOValueDecoding.Keyed<Key, ColumnDecoder>(fields: self, codingPath: []))
    }

    // A type that reads the row as a whole reads the value the value path builds.
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try wholeRow().unkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try wholeRow().singleValueContainer()
    }

    /// A decoder of the row's value as the value path builds it (every column read).
    private func wholeRow() throws -> DAOValueDecoding.Decoder {
        readMask = ~0
        return DAOValueDecoding.Decoder(value: try layout.value(of: row, decryptor: decryptor), codingPath: [])
    }
}

extension ColumnDecoder: DAOValueDecoding.Fields {
    var fieldNames: [String] { layout.fieldNames }
    func hasField(_ name: String) -> Bool { column(name) != nil }
    func value(ofField name: String) throws -> DAOValue? { try column(name).map(cell) }
    func wholeDecoder() -> any Swift.Decoder { self }
}
