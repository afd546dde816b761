import DatacenterKit
import Foundation

/// Whether a value was encrypted, and whether the keys given opened it.
package enum EncryptionState: Equatable, Sendable {
    /// Not encrypted.
    case plain
    /// Encrypted, and opened by one of the keys given.
    case decrypted
    /// No key opened it; the reason in words ("no key", "wrong key", …).
    case locked(String)
}

/// A value as the inspector shows it.
package enum CellContent: Sendable {
    /// A column value as SQLite holds it (decrypted when it was encrypted).
    case database(DatabaseValue)
    /// A KV value, decoded and decrypted.
    case kv(KVValue)
    /// A cache entry's value, decoded and decrypted.
    case propertyList(PropertyListValue)
    /// Nothing beyond the cell's text (a locked value, or a column the source derives, such
    /// as a size).
    case none
}

/// One cell of the grid: a one-line rendering, its role, and what the inspector needs.
package struct GridCell: Sendable {
    /// One line of display text (cut; control characters are escaped when drawn).
    package let text: String
    /// How the cell is drawn.
    package let role: StyleRole
    /// The type in words: `text`, `integer`, `blob`, `json`, …
    package let typeName: String
    /// Whether the value was encrypted and opened.
    package let encryption: EncryptionState
    /// The whole value, for the inspector (the text is cut).
    package let content: CellContent
    /// The value's bytes as stored (decrypted when it was encrypted), for the inspector's hex
    /// view, when they are not the text shown: a property list or an archive is stored as a
    /// binary property list, not as the JSON the other views show. Nil when the value's text
    /// or blob is what is stored.
    package let storedBytes: Data?

    /// A cell showing `text`; `content` is what the inspector shows in full, `storedBytes`
    /// what its hex view shows when the value is stored in another form.
    package init(text: String, role: StyleRole, typeName: String, encryption: EncryptionState = .plain, content: CellContent = .none,
                 storedBytes: Data? = nil) {
        self.text = text
        self.role = role
        self.typeName = typeName
        self.encryption = encryption
        self.content = content
        self.storedBytes = storedBytes
    }
}

/// One row: its paging key and its cells.
package struct GridRow: Sendable {
    /// Where the row stands in the source's order (rowid, primary key, KV key…).
    package let key: [DatabaseValue]
    /// One cell per column of the source, in order.
    package let cells: [GridCell]
    /// The value of the column a sorted grid is ordered by, before `key` in its order
    /// (empty when the grid is in its source's own order).
    package let orderKey: [DatabaseValue]

    /// A row addressed by `key`, showing `cells`, at `orderKey` in a sorted grid's order.
    package init(key: [DatabaseValue], cells: [GridCell], orderKey: [DatabaseValue] = []) {
        self.key = key
        self.cells = cells
        self.orderKey = orderKey
    }
}

/// Something the grid shows, read a page at a time in a stable order, never whole.
///
/// The requirements are documented here once; a conforming source's own doc comment says
/// what its rows are and what they are paged by.
package protocol GridSource: AnyObject, Sendable {
    /// What the grid's title says.
    var title: String { get }
    /// The column names.
    var columns: [String] { get }
    /// The first `limit` rows.
    func firstPage(limit: Int) throws -> [GridRow]
    /// Up to `limit` rows after `row`.
    func page(after row: GridRow, limit: Int) throws -> [GridRow]
    /// Up to `limit` rows before `row`, in order.
    func page(before row: GridRow, limit: Int) throws -> [GridRow]
    /// The last `limit` rows, in order.
    func lastPage(limit: Int) throws -> [GridRow]
    /// How many rows there are (may be slow: the browser asks in the background).
    func count() throws -> Int
    /// The column the cursor starts on (the value column of KV and cache grids).
    var initialColumn: Int { get }
    /// The sort and filter the rows are read with.
    var view: TableView { get }
    /// The same rows sorted and filtered as `view` says.
    /// - throws: `TableViewError` when this source cannot be read so.
    func viewing(_ view: TableView) throws -> GridSource
    /// The same as `viewing(_:)`, stopped (`TableViewError`) once `cancel` is set: a sort
    /// in memory reads every row first (`InMemoryOrder`), which Esc may cancel.
    func viewing(_ view: TableView, cancel: CancellationFlag) throws -> GridSource
    /// How the status line names `row`: `key 42` (its paging key), or `row 7` (1-based) for
    /// rows paged by offset, whose key is an offset from 0 that means nothing to the user.
    func position(of row: GridRow) -> String
    /// The first row after `row` (from the first row when nil) holding `needle`,
    /// and up to `limit` rows from it, found by one query run in SQLite; nil when this source
    /// cannot search so (the browser then scans its pages). `[]` when no row matches.
    /// - throws: `DatabaseError` (`isInterrupted` once `cancel` is set).
    func firstMatch(of needle: SearchNeedle, after row: GridRow?, limit: Int, cancel: CancellationFlag) throws -> [GridRow]?
    /// The nearest row holding `needle` past `start` in the search's direction
    /// (the grid's order, or against it when `backward`) and up to `stop`, `stop` included:
    /// forward, the first row after `start` (from the first row when nil) and not after
    /// `stop`; backward, the last row before `start` (from the last row when nil) and not
    /// before `stop` (no bound when nil). The match and up to `limit` rows from it in the grid's order, found by one query
    /// run in SQLite; nil when this source cannot search so (the browser then scans its
    /// pages). `[]` when no row matches. `stop` bounds a search that wrapped round the end: it is
    /// the row the search started from, which the wrapped pass reaches last.
    /// - throws: `DatabaseError` (`isInterrupted` once `cancel` is set).
    func match(of needle: SearchNeedle, from start: GridRow?, to stop: GridRow?, backward: Bool, limit: Int,
               cancel: CancellationFlag) throws -> [GridRow]?
    /// The row at 1-based position `number` in the grid's order (sort and filter kept), or
    /// nil when there are fewer rows (`Ctrl-G`).
    /// - throws: `DatabaseError`.
    func row(number: Int) throws -> GridRow?
    /// The row whose key is `keyText`, as typed after `key ` at the `Ctrl-G` prompt, or nil
    /// when no row shown has that key.
    /// - throws: `GoToError` when the text is no key of this source; `DatabaseError`.
    func row(keyText: String) throws -> GridRow?
    /// A number that changes when another connection commits to the source's file
    /// (`PRAGMA data_version` on the connection that pages it); nil when the source does
    /// not tell, and is then not watched.
    func dataVersion() throws -> Int64?
    /// Stops what still runs for a grid no longer shown (its row count, which for a console
    /// query may never end); the source is not read again after.
    func retire()
    /// The data version its rows were read at, when the source read them all as it was made
    /// (a grid of changes): the grid starts from it, so a write between then and the first
    /// look (`pollForChanges`) is seen. Nil for sources read page by page.
    var dataVersionAtOpen: Int64? { get }
}

extension GridSource {
    /// Sources other than tables are read in their own order, every row.
    package var view: TableView { TableView() }

    /// Sources other than tables are read in their own order, every row: only the default
    /// view is accepted.
    package func viewing(_ view: TableView) throws -> GridSource {
        guard view.isDefault else {
            throw TableViewError("\(title) is shown in key order: sorting and filtering work on tables and views")
        }
        return self
    }
}

extension GridSource {
    package var initialColumn: Int { 0 }

    /// Sources that never read every row to open a view cannot be cancelled meanwhile.
    package func viewing(_ view: TableView, cancel: CancellationFlag) throws -> GridSource { try viewing(view) }

    /// Most sources' work ends by itself: nothing to stop.
    package func retire() {}

    /// Sources other than tables are not watched for changes.
    package func dataVersion() throws -> Int64? { nil }

    /// Sources read page by page start from the first look.
    package var dataVersionAtOpen: Int64? { nil }

    /// Sources other than tables are searched page by page.
    package func firstMatch(of needle: SearchNeedle, after row: GridRow?, limit: Int, cancel: CancellationFlag) throws -> [GridRow]? { nil }

    /// Sources other than tables are searched page by page, either way.
    package func match(of needle: SearchNeedle, from start: GridRow?, to stop: GridRow?, backward: Bool, limit: Int,
                       cancel: CancellationFlag) throws -> [GridRow]? { nil }

    /// Walks the pages from the first row (a source paged by key has no quicker way to
    /// count rows off).
    package func row(number: Int) throws -> GridRow? {
        var left = number
        var page = try firstPage(limit: min(left, 1_000))
        while let last = page.last {
            if left <= page.count { return page[left - 1] }
            left -= page.count
            page = try self.page(after: last, limit: min(left, 1_000))
        }
        return nil
    }

    /// Sources keyed by text (KV businesses, caches): the text is the key. Found by one
    /// keyset read on each side of it: the row after the last one before the key is the
    /// row with the key, when there is one.
    package func row(keyText: String) throws -> GridRow? {
        let key: [DatabaseValue] = [.text(keyText)]
        let probe = GridRow(key: key, cells: [])
        let next = try page(before: probe, limit: 1).last.map { try page(after: $0, limit: 1) } ?? firstPage(limit: 1)
        return next.first.flatMap { $0.key == key ? $0 : nil }
    }

    /// `key` and the row's paging key, its parts joined by commas.
    package func position(of row: GridRow) -> String {
        "key " + row.key.map(\.description).joined(separator: ",")
    }
}

/// Turns stored values into grid cells: one line, safe, cut, and decrypted where a key
/// opens them.
package enum ValueFormatter {
    /// The most characters a grid cell keeps of a value.
    package static let cellTextLimit = 256

    /// A database value as a cell.
    package static func cell(_ value: DatabaseValue) -> GridCell {
        switch value {
        case .null: return GridCell(text: "NULL", role: .null, typeName: "null", content: .database(value))
        case .integer(let v): return GridCell(text: String(v), role: .grid, typeName: "integer", content: .database(value))
        case .real(let d): return GridCell(text: String(d), role: .grid, typeName: "real", content: .database(value))
        case .text(let s): return GridCell(text: cut(s), role: .grid, typeName: "text", content: .database(value))
        case .blob(let d): return GridCell(text: blobPreview(d), role: .blob, typeName: "blob", content: .database(value))
        }
    }

    /// A value from an encrypted column: decrypted with `crypt` when it opens it, else
    /// shown locked — never as ciphertext.
    package static func encryptedCell(_ value: DatabaseValue, crypt: any DataCrypt) -> GridCell {
        guard case .blob(let ciphertext) = value else { return cell(value) }
        do {
            let plain = try crypt.decrypt(ciphertext)
            if let text = String(data: plain, encoding: .utf8) {
                return GridCell(text: cut(text), role: .decrypted, typeName: "text", encryption: .decrypted, content: .database(.text(text)))
            }
            return GridCell(text: blobPreview(plain), role: .decrypted, typeName: "blob", encryption: .decrypted, content: .database(.blob(plain)))
        } catch {
            let reason = lockReason(error)
            return GridCell(text: "[locked: \(reason)]", role: .locked, typeName: "blob", encryption: .locked(reason), content: .none)
        }
    }

    /// A column value as a cell: decrypted with `crypt` when `encrypted`, as stored otherwise.
    package static func cell(_ value: DatabaseValue, encrypted: Bool, crypt: any DataCrypt) -> GridCell {
        encrypted ? encryptedCell(value, crypt: crypt) : cell(value)
    }

    /// A KV entry's value, decoded and decrypted by the store.
    package static func kvCell(_ entry: KVEntry, store: KVStore) -> GridCell {
        let typeName = entry.encoding == .integer ? "int" : entry.encoding.rawValue
        do {
            let value = try store.decode(entry)
            return GridCell(text: cut(value.displayString), role: entry.options.isEncrypted ? .decrypted : .grid, typeName: typeName,
                            encryption: entry.options.isEncrypted ? .decrypted : .plain, content: .kv(value),
                            storedBytes: propertyListBytes(entry, store: store))
        } catch {
            let reason = lockReason(error)
            return GridCell(text: "[locked: \(reason)]", role: .locked, typeName: typeName, encryption: .locked(reason))
        }
    }

    /// The bytes a property-list or archive KV value is stored as (a binary property list),
    /// decrypted when it is encrypted; nil for other encodings, whose text is what is stored.
    /// Called once `store.decode` opened the value, so the same key opens these bytes.
    static func propertyListBytes(_ entry: KVEntry, store: KVStore) -> Data? {
        guard entry.encoding == .plist || entry.encoding == .archive, case .blob(let stored) = entry.stored else { return nil }
        guard entry.options.isEncrypted else { return stored }
        let context = CryptContext.kvValue(business: entry.business, key: entry.key, encoding: entry.encoding)
        return try? store.defaultCrypt.decrypt(stored, boundTo: context)
    }

    /// Why a value stays locked, in words.
    package static func lockReason(_ error: Error) -> String {
        switch error {
        case CryptError.noKey, KVError.cannotDecrypt(_, _, .noKey), CacheError.cannotDecrypt(_, _, .noKey): return "no key"
        case CryptError.wrongKey, KVError.cannotDecrypt(_, _, .wrongKey), CacheError.cannotDecrypt(_, _, .wrongKey): return "wrong key"
        case KVError.cannotDecrypt(_, _, .misplaced): return "misplaced"
        case KVError.needsCustomCrypt: return "custom crypt"
        default: return "unreadable"
        }
    }

    /// A cache's value in one line: bytes as their UTF-8 text, or their size and first bytes;
    /// anything else as compact JSON.
    package static func propertyListText(_ value: PropertyListValue) -> String {
        if case .data(let d) = value { return String(data: d, encoding: .utf8).map(cut) ?? blobPreview(d) }
        return cut(KVValue.plist(value).displayString)
    }

    /// Text cut to `cellTextLimit` characters with `…`.
    package static func cut(_ text: String) -> String {
        text.count > cellTextLimit ? String(text.prefix(cellTextLimit)) + "…" : text
    }

    /// A blob as its size and the first bytes in hex: `⟨16 B⟩ 00 01 02 …`.
    package static func blobPreview(_ data: Data) -> String {
        let size = data.count >= 1024 ? String(format: "%.1f KB", Double(data.count) / 1024) : "\(data.count) B"
        let bytes = data.prefix(16).map { String(format: "%02x", $0) }.joined(separator: " ")
        return "⟨\(size)⟩ " + bytes + (data.count > 16 ? " …" : "")
    }
}
