import DatacenterKit
import Foundation

/// The rows of a typed read (`DAOObject.fetch(_:_:as:)`): each row of a `{}`, model or
/// map result is read straight from the statement's columns, through the same `RowLayout`
/// (field → column, crypt columns decrypted) the value path builds its dictionaries with,
/// so no dictionary is made per row.
///
/// Not generic: `fetch` is inlined into the app's code, where the type's reading is
/// specialized, and hands here the two functions that read a row or a value into its array.
///
/// Carried by the call (`DAOCall.typedRows`, `Executor.ResultMapping`) and used only on the
/// thread running the call. A class: the row loop passes it along per row, one reference.
final class TypedRows: @unchecked Sendable {
    // @unchecked: used by the one thread running the call, while `fetch` waits for it.

    /// False for the types `DAOValue.decode` reads from a row's whole value (`Date`, `Data`,
    /// `URL`), which take the value path: `readRow` is not called then.
    let readsColumns: Bool
    /// Reads a row from its fields into `fetch`'s array.
    private let readRow: (borrowing DAORow) throws -> Void
    /// Reads a whole value that is not `.nil` into the array: a scalar result, a row of the
    /// value path, or a row whose columns are not read. nil: `readRow` reads it as a row
    /// (`DAORow(value:)`).
    private let readValue: ((DAOValue) throws -> Void)?
    /// The type the rows are read as.
    private let type: ObjectIdentifier
    /// The decoder of the row being read, moved from row to row; made at the first row.
    private var decoder: ColumnDecoder?

    /// Rows of `type` read by `readRow` (when `readsColumns`), values by `readValue` (nil:
    /// by `readRow` too).
    init(type: Any.Type, readsColumns: Bool, readRow: @escaping (borrowing DAORow) throws -> Void,
         readValue: ((DAOValue) throws -> Void)?) {
        self.type = ObjectIdentifier(type)
        self.readsColumns = readsColumns
        self.readRow = readRow
        self.readValue = readValue
    }

    /// The decoder, made at its first use.
    private func rowDecoder() -> ColumnDecoder {
        if let decoder { return decoder }
        let made = ColumnDecoder(type: type)
        decoder = made
        return made
    }

    /// Decodes the row `row` is on, laid out by `layout`, its crypt columns decrypted with
    /// `mapper`'s decryptor.
    func add(_ row: some ResultRow, layout: RowLayout, mapper: ResultMapper) throws {
        guard readsColumns else {
            try read(value: layout.value(of: row, decryptor: mapper.decryptor))
            return
        }
        let decoder = rowDecoder()
        decoder.move(to: row, layout: layout, mapper: mapper)
        try readColumns(of: row, with: decoder, layout: layout, mapper: mapper)
    }

    /// Runs `statement` with `values` bound and decodes its rows as `element` rows (a `{}`,
    /// model or map: `element.isRow`; only when `readsColumns`), every row when `readsAll`, else
    /// the first: what a `ResultCollector` with this typed read does, in one loop. The rows'
    /// layout is `layout` when it was made for the statement's columns; else a new one,
    /// returned to be kept.
    ///
    /// Its own loop: between two steps a row runs only this loop's body and the type's
    /// reading, and SQLite's stepping evicts what a row runs; the collector's way (a closure
    /// per row, the collector, the mapper, `add`) ran three times the bytes of code a row.
    /// - throws: `DatabaseError` from stepping; else the first row's error (the rows after
    ///   a failed one are stepped, not read, as the collector does).
    func readRows(of statement: Statement, values: [DatabaseValue], as element: DAOResultType.Element,
                  mapper: ResultMapper, layout kept: RowLayout?, readsAll: Bool) throws -> RowLayout? {
        try statement.bind(values: values)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        // The first row: the layout checked against the statement's columns (made again when
        // SQLite prepared the statement again with others), the decoder moved to it.
        let layout: RowLayout
        do {
            layout = try mapper.layout(of: statement, as: element, kept: kept)
        } catch {
            while readsAll, try statement.step() {} // as the collector: a later row's database error comes first
            throw error
        }
        var failure: (any Error)?
        let decoder = rowDecoder()
        do {
            decoder.move(to: statement, layout: layout, mapper: mapper)
            try readColumns(of: statement, with: decoder, layout: layout, mapper: mapper)
        } catch {
            failure = error
        }
        while readsAll, try statement.step() {
            guard failure == nil else { continue }
            do {
                decoder.nextRow()
                try readColumns(of: statement, with: decoder, layout: layout, mapper: mapper)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return layout === kept ? nil : layout
    }

    /// Decodes the row `decoder` is on (`row`, laid out by `layout`) with `readRow`.
    ///
    /// The mapper is handed down rather than its decryptor: the decryptor is an existential
    /// of two references, copied (both retained and released) at each hand-over, and it is
    /// needed only where a crypt column is read.
    @inline(__always)
    private func readColumns(of row: some ResultRow, with decoder: ColumnDecoder, layout: RowLayout,
                             mapper: ResultMapper) throws {
        do {
            try readRow(DAORow(columns: decoder))
            decoder.finishRow()
            // The value path decrypts every crypt column of a row: one the type does not read
            // fails the row just the same (only a BLOB is decrypted; other values pass).
            for column in layout.decryptedColumns where !decoder.hasRead(column) && row.isBlob(at: column) {
                _ = try layout.cell(column, of: row, decryptor: mapper.decryptor)
            }
        } catch {
            // As the value path: a crypt column that does not decrypt is the row's error,
            // the first such in column order.
            for column in layout.decryptedColumns { _ = try layout.cell(column, of: row, decryptor: mapper.decryptor) }
            throw error
        }
    }

    /// Decodes a scalar result's value (a `.nil` one is no row, as `fetch` has always read it).
    func add(scalar value: DAOValue) throws {
        guard !value.isNil else { return }
        try read(value: value)
    }

    /// Reads a whole value (not `.nil`): by `readValue`, else as a row by `readRow`.
    /// - throws: what reading throws; `DecodingError.typeMismatch` for a value that is not
    ///   a row, read as one.
    func read(value: DAOValue) throws {
        if let readValue { return try readValue(value) }
        try readRow(DAORow(value: value))
    }
}

/// A `Decoder` (and `DAORow`'s fields) over the row a statement is on, for `TypedRows`:
/// moved from row to row.
///
/// A type asks for its fields in the same order row after row: the order the first row
/// asked in is learnt (kept with the layout, for later calls too), and each request is
/// checked against the next one by name before the layout is consulted (a guess that
/// misses costs a lookup, never a wrong column).
@usableFromInline
final class ColumnDecoder: Decoder {
    // Used by the one thread reading the rows.

    /// The type the rows are read as (the learnt order is per type).
    let type: ObjectIdentifier
    /// The statement whose row is read, and that row; or the row read (for rows already read).
    private var statement: Statement?
    private var cursor: StatementCursor?
    private var otherRow: (any ResultRow)?
    /// The row's layout and the mapper whose decryptor decrypts its crypt columns (set at
    /// the first row).
    private var rowLayout: RowLayout?
    private var mapper: ResultMapper?
    /// The learnt order of the fields; empty while it is being learnt.
    private var order: [FieldRequest] = []
    /// True while the order is being learnt (the first row read on a layout).
    private var learning = false
    /// How many fields have been asked for (the position in `order`).
    private var position = 0
    /// While learning: the fields asked for, with their columns.
    private var asked: [FieldRequest] = []
    /// The crypt columns read among the first 64 (the others are never taken as read).
    private var readMask: UInt64 = 0

    @usableFromInline var codingPath: [any CodingKey] { [] }
    @usableFromInline var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// A decoder of rows read as `type`, on no row yet.
    init(type: ObjectIdentifier) {
        self.type = type
    }

    /// Starts reading the row `row` is on, laid out by `layout`, its crypt columns decrypted
    /// with `mapper`'s decryptor.
    func move(to row: some ResultRow, layout: RowLayout, mapper: ResultMapper) {
        if let statement = row as? Statement {
            if self.statement !== statement {
                self.statement = statement
                cursor = statement.cursor
            }
        } else {
            statement = nil
            cursor = nil
            otherRow = row
        }
        if rowLayout !== layout {
            rowLayout = layout
            let learnt = layout.fieldOrder(of: type)
            order = learnt ?? []
            learning = learnt == nil
            asked = []
        }
        if self.mapper !== mapper { self.mapper = mapper }
        position = 0
        readMask = 0
    }

    /// Starts reading the next row of the statement and layout the decoder was moved to.
    @inline(__always)
    func nextRow() {
        position = 0
        readMask = 0
    }

    /// Ends reading a row: the order it asked for its fields in is learnt, if it was not.
    @inline(__always)
    func finishRow() {
        if learning { learnOrder() }
    }

    /// Keeps the order the row asked for its fields in.
    private func learnOrder() {
        layout.fieldOrder = (type, asked)
        order = asked
        asked = []
        learning = false
    }

    /// The layout of the row being read.
    private var layout: RowLayout { rowLayout! }

    /// The row as the value path reads it.
    private var row: any ResultRow { statement ?? otherRow! }

    /// Where field `field` is: `FieldRequest.location` (its column and whether it is a crypt
    /// column, in one integer), or -1 when no column fills it. Each call is the next field
    /// the row is asked for: the learnt guess is checked first; `lookUp` finds a field the
    /// guess misses.
    @inline(__always)
    private func locate(_ field: String) -> Int {
        let position = self.position
        self.position = position &+ 1
        if position < order.count, order[position].field == field { return order[position].location }
        return lookUp(field)
    }

    /// `locate` of a field the learnt order does not guess: the layout's column for it
    /// (noted in the order being learnt, while it is).
    private func lookUp(_ field: String) -> Int {
        let column = layout.column(forField: field)
        let request = FieldRequest(field: field, column: column, decrypted: column.map(layout.isDecrypted) ?? false)
        if learning { asked.append(request) }
        return request.location
    }

    /// The column of the next field asked for, `field`, read directly: nil when no column
    /// fills it, it is a crypt column holding a BLOB (its value is decrypted), or the row is
    /// not a statement's; `readField` then reads the field. A crypt column holding anything
    /// else reads as it is (and cannot fail the row: it counts as read).
    ///
    /// One function for every field of every type: `DAORow.decode`'s inlined part only
    /// calls it and converts what it returns (see there why it is kept small).
    @usableFromInline
    func nextPlainColumn(_ field: String) -> ColumnValue? {
        let location = locate(field)
        lastLocation = location
        guard location >= 0, let cursor else { return nil }
        let column = FieldRequest.column(of: location)
        let value = cursor.column(at: column)
        guard FieldRequest.isDecrypted(location) else { return value }
        guard !value.isBlob else { return nil }
        markRead(column)
        return value
    }

    /// Where the last field asked for (by `nextPlainColumn`) is: `FieldRequest.location`.
    private var lastLocation = -1

    /// The last field asked for, `field`, when `nextPlainColumn` did not read it or its
    /// column does not hold what `T` reads as it is: through its value, as the value path
    /// reads it (decrypted for a crypt column); a field no column fills as `T` reads a
    /// missing one.
    ///
    /// Specialized where it is called but never inlined: the common case does not run it.
    /// - throws: what `T` throws for the value or the missing field; `DAOError.crypt`.
    @inlinable @inline(never)
    func readField<T: DAOFieldDecodable>(_ type: T.Type, _ field: String) throws -> T {
        let value = try lastFieldValue()
        guard let value else { return try T.decodeMissingField(field) }
        return try T.decode(fieldValue: value, field: field)
    }

    /// The value of the last field asked for, as the value path has it (decrypted when it is
    /// a crypt column); nil when no column fills it.
    /// - throws: `DAOError.crypt` for a crypt column that does not decrypt.
    @usableFromInline
    func lastFieldValue() throws -> DAOValue? {
        let location = lastLocation
        guard location >= 0 else { return nil }
        return try cell(FieldRequest.column(of: location), decrypted: FieldRequest.isDecrypted(location))
    }

    /// The column that fills `field` (nil when none does), and whether it is a crypt column.
    private func column(_ field: String) -> (column: Int, decrypted: Bool)? {
        let location = locate(field)
        return location < 0 ? nil : (FieldRequest.column(of: location), FieldRequest.isDecrypted(location))
    }

    /// What the row holds for `field`: its column, read directly, unless it is a crypt
    /// column holding a BLOB (then its decrypted value) or the row is not a statement's
    /// (then its value).
    /// - throws: `DAOError.crypt` for a crypt column that does not decrypt.
    func cell(forField field: String) throws -> DAORowCell {
        if let column = nextPlainColumn(field) { return .column(DAOColumn(column)) }
        return try lastFieldValue().map(DAORowCell.value) ?? .missing
    }

    /// The value of `column`, decrypted when it is a crypt column.
    private func cell(_ column: Int, decrypted: Bool) throws -> DAOValue {
        guard decrypted else { return DAOValue(cursor?.value(at: column) ?? otherRow!.value(at: column)) }
        markRead(column)
        return try layout.cell(column, of: row, decryptor: mapper!.decryptor)
    }

    /// Notes that crypt column `column` was read (decrypted, or not a BLOB).
    @inline(__always)
    private func markRead(_ column: Int) {
        if column < 64 { readMask |= 1 << UInt64(column) }
    }

    /// True when crypt column `column` was read (so it decrypted, or holds no BLOB).
    func hasRead(_ column: Int) -> Bool { column < 64 && readMask & (1 << UInt64(column)) != 0 }

    @usableFromInline func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(DAOValueDecoding.Keyed<Key, ColumnDecoder>(fields: self, codingPath: []))
    }

    // A type that reads the row as a whole reads the value the value path builds.
    @usableFromInline func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try wholeRow().unkeyedContainer()
    }

    @usableFromInline func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try wholeRow().singleValueContainer()
    }

    /// A decoder of the row's value as the value path builds it (every column read).
    private func wholeRow() throws -> DAOValueDecoding.Decoder {
        readMask = ~0
        return DAOValueDecoding.Decoder(value: try layout.value(of: row, decryptor: mapper!.decryptor), codingPath: [])
    }
}

extension ColumnDecoder: DAOValueDecoding.Fields {
    var fieldNames: [String] { layout.fieldNames }
    func hasField(_ name: String) -> Bool { column(name) != nil }
    func value(ofField name: String) throws -> DAOValue? { try column(name).map { try cell($0.column, decrypted: $0.decrypted) } }
    func wholeDecoder() -> any Swift.Decoder { self }
}
