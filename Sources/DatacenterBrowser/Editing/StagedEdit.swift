import DatacenterKit
import Foundation

/// One change the user asked for, not yet written: shown as the SQL it will run, committed
/// with the others in one transaction per store, or discarded.
package struct StagedEdit: Sendable {
    /// What to do.
    enum Action: Sendable {
        /// A statement on a table: an update, delete or insert.
        case execute(sql: String, arguments: [DatabaseValue])
        /// A KV value written through the store, encrypted again as it was.
        case setKV(business: String, key: String, value: KVValue, encryption: KVEncryptionChoice, options: KVOptions)
        /// A KV entry removed.
        case removeKV(business: String, key: String)
        /// A change of a table's schema (`ALTER TABLE … RENAME COLUMN`): it changes no row;
        /// `inverse` undoes it.
        case executeSchema(sql: String, inverse: String)
        /// The rows of a CSV or JSON Lines file loaded into a table (`.import`).
        case importRows(file: String, format: TableImport.Format, table: String)
        /// The undo of a store's last commit (`Z`): the statements of its undo file (`UndoFile`),
        /// which must still be the one of commit `commitID`.
        case applyUndo(file: String, commitID: String)
    }

    /// Encryption to keep when a KV value is rewritten.
    enum KVEncryptionChoice: Sendable { case none, `default` }

    /// The store file the edit writes.
    let storePath: String
    /// The store in words (`common · common.sqlite`, `user bob · user.sqlite`), set when
    /// staged, so every review line says where it writes.
    var storeName = ""
    /// The change itself.
    let action: Action
    /// The SQL shown for review (values inlined, encrypted ones as a placeholder).
    package let preview: String
    /// The table (or KV business) it changes, to refresh the grid afterwards.
    let target: String
    /// Which edit this is, set when staged: a commit's result names the edits it wrote.
    var id = 0
    /// The cell (or, with no column, the whole row) it changes in the grid it was made in,
    /// which draws it in the `staged` role until it is committed or discarded; nil for an
    /// insert (its row is not in the grid yet).
    var mark: StagedMark?
    /// What the cell shows until the edit is committed or discarded (an update): the new
    /// value as typed, and whether the commit encrypts it. Nil for a delete or an insert.
    var newValue: StagedValue?

    /// Applies the edit inside the caller's transaction on `store`; `recorder`, keeping the
    /// commit's own undo, is told of the schema statements an undo runs.
    func apply(to store: Store, in db: Database, recorder: UndoRecorder? = nil) throws {
        switch action {
        case let .execute(sql, arguments):
            try db.execute(sql, StatementArguments(arguments))
            if db.changes == 0 { throw BrowserEditError(message: "no row matched: \(preview)") }
        case let .setKV(business, key, value, encryption, options):
            try store.kv.set(value, forKey: key, business: business, encryption: encryption == .default ? .default : .none, options: options)
        case .executeSchema(let sql, _): try db.execute(sql)
        case let .applyUndo(file, commitID):
            let undo = try UndoFile.open(path: file, key: store.databaseKey)
            defer { undo.close() }
            guard try UndoFile.commit(in: undo).id == commitID else {
                throw BrowserEditError(message: "\(file) was replaced by another commit since Z: press Z again")
            }
            try UndoFile.run(undo, on: db, dryRun: false, recorder: recorder)
        case let .importRows(file, format, table):
            _ = try TableImport.run(file: file, format: format, into: db, table: table)
        case let .removeKV(business, key):
            guard try store.kv.removeValue(forKey: key, business: business) else {
                throw BrowserEditError(message: "the key \(key) is gone from \(business)")
            }
        }
    }
}

/// Where a staged edit shows in a grid: the grid's node, the row's key, the column (nil: the
/// whole row, a delete).
struct StagedMark: Sendable, Hashable {
    /// The tree node of the grid the edit was made in.
    let nodeID: String
    /// The key of the row it changes.
    let rowKey: [DatabaseValue]
    /// The column it changes; nil for the whole row.
    let column: Int?
}

/// A cell's new value while its update is staged: drawn in the cell (in the `staged` role)
/// and shown by the inspector beside the value it replaces, as typed: a crypt column's is
/// shown before the commit encrypts it, and never written so.
struct StagedValue: Sendable {
    /// The new value as a cell.
    let cell: GridCell
    /// True when the commit writes it encrypted (a crypt column, an encrypted KV value).
    let encryptedOnCommit: Bool
}

/// Why an edit could not be staged or committed, in words.
package struct BrowserEditError: Error, CustomStringConvertible {
    /// What went wrong, in words.
    package let message: String
    package var description: String { message }
}

/// Sources whose rows can be edited.
///
/// Each edit is checked twice: `editRefusal`/`insertRefusal` say at the key, before anything
/// is typed, why it cannot be made; the `stage…` functions check the typed value.
protocol EditableSource: GridSource {
    /// Why `column` of `row` cannot be changed (asked when `e` is pressed), or nil.
    func editRefusal(row: GridRow, column: Int, keys: KeyRing) -> String?
    /// Why `row` cannot be deleted, or nil.
    func deleteRefusal(row: GridRow) -> String?
    /// Why no row can be inserted here, or nil.
    var insertRefusal: String? { get }
    /// The text the edit prompt starts from: the whole value, in a form `stageUpdate` reads
    /// back as the same value (so Enter alone changes nothing).
    func editText(row: GridRow, column: Int) -> String
    /// The edit that sets `column` of `row` to what `text` says, or nil when that is the value
    /// the row already holds (nothing to stage).
    func stageUpdate(row: GridRow, column: Int, text: String, keys: KeyRing) throws -> StagedEdit?
    /// The edit that deletes `row`.
    func stageDelete(row: GridRow) throws -> StagedEdit
    /// The edit that inserts a row described by `text` (a JSON object of column values).
    func stageInsert(text: String, keys: KeyRing) throws -> StagedEdit
}

/// How typed text becomes a database value, and how a value is shown so that it reads back
/// as itself.
///
/// Typed text is read as an SQL literal where it is one: `NULL` is null; a whole number an
/// integer; a decimal number a real; `X'00ff'` a blob; `'it''s'` (quoted, quotes doubled) the
/// text inside. Anything else is text as typed, so plain words need no quotes. `literal(_:)`
/// quotes exactly the texts that would otherwise read as something else (`'NULL'`, `'42'`).
enum TypedValue {
    /// The value typed `text` stands for.
    static func parse(_ text: String) -> DatabaseValue {
        if text == "NULL" { return .null }
        if let i = Int64(text) { return .integer(i) }
        if let d = Double(text), text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) { return .real(d) }
        if text.hasPrefix("X'") || text.hasPrefix("x'"), text.hasSuffix("'"), text.count >= 3,
           let bytes = EncryptionKeyHex.bytes(String(text.dropFirst(2).dropLast())) {
            return .blob(Data(bytes))
        }
        if let quoted = unquoted(text) { return .text(quoted) }
        return .text(text)
    }

    /// The text `parse` reads back as `value`.
    static func literal(_ value: DatabaseValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let i): return String(i)
        case .real(let d): return DatabaseValue.realLiteral(d)
        case .blob(let d): return "X'" + d.map { String(format: "%02x", $0) }.joined() + "'"
        case .text(let s):
            return parse(s) == .text(s) ? s : Database.quoteLiteral(s)
        }
    }

    /// The text inside an SQL string literal (`'…'`, quotes doubled inside), or nil when
    /// `text` is not exactly one. Read byte by byte, as SQLite reads it: a quote followed by a
    /// combining mark is one Swift `Character` but still a quote to SQLite.
    private static func unquoted(_ text: String) -> String? {
        let quote = UInt8(ascii: "'")
        let bytes = Array(text.utf8)
        guard bytes.count >= 2, bytes.first == quote, bytes.last == quote else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 1
        while index < bytes.count - 1 {
            if bytes[index] == quote {
                guard index + 1 < bytes.count - 1, bytes[index + 1] == quote else { return nil }
                index += 2
            } else {
                index += 1
            }
            out.append(bytes[index - 1])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A value of a JSON object (for inserts): `DatabaseValue(jsonObject:)`.
    static func fromJSON(_ object: Any) -> DatabaseValue { DatabaseValue(jsonObject: object) }
}

/// Hex digits to bytes (even length, 0-9 a-f A-F), or nil.
enum EncryptionKeyHex {
    /// The bytes of `text`, or nil when it is not hex of even length.
    static func bytes(_ text: String) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            out.append(byte)
            index = next
        }
        return out
    }
}
