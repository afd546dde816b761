import DatacenterKit
import Foundation

/// The rows of a typed read (`DAOObject.fetch(_:_:as:)`): each row of a `{}`, model or
/// map result is read straight from the statement's columns, through the same `RowLayout`
/// (field → column, crypt columns decrypted) the value path builds its dictionaries with,
/// so no dictionary is made per row.
///
/// Not generic: `fetch` is inlined into the app's code, where the type's reading and the
/// array it fills are specialized, and hands its closures here. A generic type here ran
/// unspecialized in the app's module, looking up its metadata and its array's at run time
/// on every call and row.
///
/// Carried by the call (`DAOCall.typedRows`, `Executor.ResultMapping`) and used only on the
/// thread running the call. A class: the row loop passes it along per row, one reference
/// (a struct of its closures and decoder was three).
final class TypedRows: @unchecked Sendable {
    // @unchecked: used by the one thread running the call, while `fetch` waits for it.

    /// False for the types `DAOValue.decode` reads from a row's whole value (`Date`, `Data`,
    /// `URL`), which take the value path: `readRow` is not called then.
    private let readsColumns: Bool
    /// Reads a row from its fields. Not optional: an optional closure of a borrowing
    /// parameter is wrapped in a thunk, allocated per call.
    private let readRow: (borrowing DAORow) throws -> Void
    /// Reads a whole value that is not `.nil`: a scalar result, a row of the value path, or
    /// a row whose columns are not read. nil: `readRow` reads it as a row (`DAORow(value:)`).
    private let readValue: ((DAOValue) throws -> Void)?
    /// The decoder of the row being read, moved from row to row. A separate object, which
    /// holds nothing of the call: a type may keep the decoder it was given, and the call's
    /// closures must not outlive the call.
    private let decoder: ColumnDecoder

    /// Rows of `type` read by `readRow` (when `readsColumns`), values by `readValue` (nil:
    /// by `readRow` too); both append to `fetch`'s array.
    init(type: Any.Type, readsColumns: Bool, readRow: @escaping (borrowing DAORow) throws -> Void,
         readValue: ((DAOValue) throws -> Void)?) {
        self.readsColumns = readsColumns
        self.readRow = readRow
        self.readValue = readValue
        self.decoder = ColumnDecoder(type: ObjectIdentifier(type))
    }

    deinit {
        // The decoder's kept container refers to it: a cycle, broken when the call ends.
        decoder.forgetContainer()
    }

    /// Decodes the row `row` is on, laid out by `layout`.
    func add(_ row: some ResultRow, layout: RowLayout, decryptor: any DataCrypt) throws {
        guard readsColumns else {
            try read(value: layout.value(of: row, decryptor: decryptor))
            return
        }
        decoder.move(to: row, layout: layout, decryptor: decryptor)
        do {
            try readRow(DAORow(source: .columns(Unmanaged.passUnretained(decoder))))
            decoder.finishRow()
            // The value path decrypts every crypt column of a row: one the type does not read
            // fails the row just the same (only a BLOB is decrypted; other values pass).
            for column in layout.decryptedColumns where !decoder.hasRead(column) && row.isBlob(at: column) {
                _ = try layout.cell(column, of: row, decryptor: decryptor)
            }
        } catch {
            // As the value path: a crypt column that does not decrypt is the row's error,
            // the first such in column order.
            for column in layout.decryptedColumns { _ = try layout.cell(column, of: row, decryptor: decryptor) }
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
    // Unchecked exclusivity: used by the one thread reading the rows, never across a
    // nested access.

    /// The type the rows are read as (the learnt order is per type).
    private let type: ObjectIdentifier
    /// The statement whose row is read, and that row; or the row read (for rows already read).
    @exclusivity(unchecked) private var statement: Statement?
    @usableFromInline @exclusivity(unchecked) var cursor: StatementCursor?
    @exclusivity(unchecked) private var otherRow: (any ResultRow)?
    /// The row's layout and decryptor (set at the first row).
    @exclusivity(unchecked) private var rowLayout: RowLayout?
    @exclusivity(unchecked) private var decryptor: (any DataCrypt)?
    /// The learnt order of the fields; empty while it is being learnt.
    @usableFromInline @exclusivity(unchecked) var order: [FieldRequest] = []
    /// True while the order is being learnt (the first row read on a layout).
    @exclusivity(unchecked) private var learning = false
    /// How many fields have been asked for (the position in `order`).
    @usableFromInline @exclusivity(unchecked) var position = 0
    /// While learning: the fields asked for, with their columns.
    @exclusivity(unchecked) private var asked: [FieldRequest] = []
    /// The crypt columns read among the first 64 (the others are never taken as read).
    @exclusivity(unchecked) private var readMask: UInt64 = 0

    @usableFromInline var codingPath: [any CodingKey] { [] }
    @usableFromInline var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// A decoder of rows read as `type`, on no row yet.
    init(type: ObjectIdentifier) {
        self.type = type
    }

    /// Starts reading the row `row` is on, laid out by `layout`.
    func move(to row: some ResultRow, layout: RowLayout, decryptor: any DataCrypt) {
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
            self.decryptor = decryptor // the call's, the same for every row
            let learnt = layout.fieldOrder(of: type)
            order = learnt ?? []
            learning = learnt == nil
            asked = []
        }
        position = 0
        readMask = 0
    }

    /// Ends reading a row: the order it asked for its fields in is learnt, if it was not.
    func finishRow() {
        guard learning else { return }
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
    /// the row is asked for.
    ///
    /// Inlined into the type's reading, where `field` is a literal: the learnt guess is
    /// checked with no call; `lookUp` finds a field the guess misses.
    @inlinable @inline(__always)
    func locate(_ field: String) -> Int {
        let position = self.position
        self.position = position &+ 1
        if position < order.count, order[position].field == field { return order[position].location }
        return lookUp(field)
    }

    /// `locate` of a field the learnt order does not guess: the layout's column for it
    /// (noted in the order being learnt, while it is).
    @usableFromInline
    func lookUp(_ field: String) -> Int {
        let column = layout.column(forField: field)
        let request = FieldRequest(field: field, column: column, decrypted: column.map(layout.isDecrypted) ?? false)
        if learning { asked.append(request) }
        return request.location
    }

    /// The column at `location` (from `locate`, not -1) read directly: nil when it is a crypt
    /// column holding a BLOB (its value is decrypted) or the row is not a statement's.
    /// Inlined, as `locate` is.
    @inlinable
    func plainColumn(at location: Int) -> ColumnValue? {
        guard let cursor else { return nil }
        let column = FieldRequest.column(of: location)
        let value = cursor.column(at: column)
        guard FieldRequest.isDecrypted(location) else { return value }
        return plainCryptColumn(value, at: column)
    }

    /// `plainColumn` of crypt column `column`, holding `value`: only a BLOB is decrypted, so
    /// a crypt column holding anything else reads as it is (and cannot fail the row: it
    /// counts as read).
    @usableFromInline
    func plainCryptColumn(_ value: ColumnValue, at column: Int) -> ColumnValue? {
        guard !value.isBlob else { return nil }
        markRead(column)
        return value
    }

    /// The value at `location` (from `locate`, not -1) as the value path has it, decrypted
    /// when it is a crypt column.
    /// - throws: `DAOError.crypt` for a crypt column that does not decrypt.
    @usableFromInline
    func value(at location: Int) throws -> DAOValue {
        try cell(FieldRequest.column(of: location), decrypted: FieldRequest.isDecrypted(location))
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
        let location = locate(field)
        guard location >= 0 else { return .missing }
        if let column = plainColumn(at: location) { return .column(DAOColumn(column)) }
        return .value(try value(at: location))
    }

    /// The value of `column`, decrypted when it is a crypt column.
    private func cell(_ column: Int, decrypted: Bool) throws -> DAOValue {
        guard decrypted else { return DAOValue(cursor?.value(at: column) ?? otherRow!.value(at: column)) }
        markRead(column)
        return try layout.cell(column, of: row, decryptor: decryptor!)
    }

    /// Notes that crypt column `column` was read (decrypted, or not a BLOB).
    @inline(__always)
    private func markRead(_ column: Int) {
        if column < 64 { readMask |= 1 << UInt64(column) }
    }

    /// True when crypt column `column` was read (so it decrypted, or holds no BLOB).
    func hasRead(_ column: Int) -> Bool { column < 64 && readMask & (1 << UInt64(column)) != 0 }

    /// A keyed container of the rows (`Decodable` types), kept from the second one made and
    /// handed out again for its key type: it reads whatever row the decoder is on, as a new
    /// one would, and a new one per row cost more than a row's fields (run-time metadata
    /// lookups for the container's generic types, its box allocated). Not kept for a single
    /// row (a get), which keeping would only slow; one only (a type that reads with two key
    /// types gets the other made each time, as before). Held until `forgetContainer`.
    @exclusivity(unchecked) private var keptContainer: AnyObject?
    /// The key type of `keptContainer`.
    @exclusivity(unchecked) private var keptContainerKey: ObjectIdentifier?
    /// True once a keyed container was made (the next one is kept).
    @exclusivity(unchecked) private var madeContainer = false

    /// A kept keyed container of one key type.
    private final class KeptContainer<Key: CodingKey> {
        let container: KeyedDecodingContainer<Key>
        init(_ container: KeyedDecodingContainer<Key>) { self.container = container }
    }

    @usableFromInline func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if keptContainerKey == ObjectIdentifier(Key.self), let kept = keptContainer {
            return unsafeDowncast(kept, to: KeptContainer<Key>.self).container // the key type says which
        }
        let container = KeyedDecodingContainer(DAOValueDecoding.Keyed<Key, ColumnDecoder>(fields: self, codingPath: []))
        if madeContainer, keptContainer == nil {
            keptContainer = KeptContainer(container)
            keptContainerKey = ObjectIdentifier(Key.self)
        }
        madeContainer = true
        return container
    }

    /// Drops the kept keyed container, which refers to this decoder (called when the call
    /// ends; a type that kept the container keeps it working).
    func forgetContainer() {
        keptContainer = nil
        keptContainerKey = nil
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
        return DAOValueDecoding.Decoder(value: try layout.value(of: row, decryptor: decryptor!), codingPath: [])
    }
}

extension ColumnDecoder: DAOValueDecoding.Fields {
    var fieldNames: [String] { layout.fieldNames }
    func hasField(_ name: String) -> Bool { column(name) != nil }
    func value(ofField name: String) throws -> DAOValue? { try column(name).map { try cell($0.column, decrypted: $0.decrypted) } }
    func wholeDecoder() -> any Swift.Decoder { self }
}
