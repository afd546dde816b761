import DatacenterKit
import Foundation

/// The rows of one table (or view), paged by key: the rowid, or the primary key of a
/// WITHOUT ROWID table; views, which have neither, page by offset.
///
/// The rowid is reached through whichever of its names (`_rowid_`, `rowid`, `oid`) no
/// column of the table shadows; a table whose columns take all three is paged by offset
/// and cannot be edited here.
public final class TableSource: GridSource, @unchecked Sendable {
    public let title: String
    public let columns: [String]
    let store: Store
    let table: String
    /// The columns that order and address rows: a rowid name, or the primary key.
    let keyColumns: [String]
    let usesOffset: Bool
    /// True for a view (no row can be addressed to edit it).
    let isView: Bool
    /// Why rows cannot be edited (no key to address them by), or nil.
    let editRefusal: String?
    let encryptedColumns: Set<String>
    let crypt: any DataCrypt
    private let selectList: String

    /// The names SQLite gives the rowid, in the order they are tried.
    static let rowidNames = ["_rowid_", "rowid", "oid"]

    /// Reads `table` of `store`; values of `encryptedColumns` are decrypted with `crypt`.
    public init(store: Store, table: String, encryptedColumns: Set<String> = [], crypt: any DataCrypt, title: String? = nil) throws {
        self.store = store
        self.table = table
        self.encryptedColumns = encryptedColumns
        self.crypt = crypt
        self.title = title ?? table
        struct Shape { var names: [String]; var keys: [String]; var isView: Bool; var refusal: String? }
        let shape: Shape = try store.queue.read { db in
            let info = try db.query("SELECT name, pk FROM pragma_table_info(?) ORDER BY cid", [.text(table)])
            let names = info.compactMap { $0[0].stringValue }
            let isView = try db.scalar("SELECT 1 FROM sqlite_master WHERE type = 'view' AND name = ?", [.text(table)]) != nil
            if isView { return Shape(names: names, keys: [], isView: true, refusal: "\(table) is a view: its rows cannot be edited here (use the SQL console)") }
            let withoutRowID = try db.scalar("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", [.text(table)])?.int64Value == 1
            if withoutRowID {
                let pk = info.filter { ($0[1].int64Value ?? 0) > 0 }.sorted { ($0[1].int64Value ?? 0) < ($1[1].int64Value ?? 0) }.compactMap { $0[0].stringValue }
                return Shape(names: names, keys: pk, isView: false, refusal: pk.isEmpty ? "\(table) has no primary key: its rows cannot be edited here (use the SQL console)" : nil)
            }
            let taken = Set(names.map { $0.lowercased() })
            guard let alias = TableSource.rowidNames.first(where: { !taken.contains($0) }) else {
                return Shape(names: names, keys: [], isView: false,
                             refusal: "\(table) has columns named _rowid_, rowid and oid, which hide its rowid: its rows cannot be addressed to edit them (use the SQL console)")
            }
            return Shape(names: names, keys: [alias], isView: false, refusal: nil)
        }
        columns = shape.names
        keyColumns = shape.keys
        usesOffset = shape.keys.isEmpty
        isView = shape.isView
        editRefusal = shape.refusal
        selectList = (shape.keys.map(Database.quoteIdentifier) + ["*"]).joined(separator: ", ")
    }

    private var quoted: String { Database.quoteIdentifier(table) }
    private var keyTuple: String { "(" + keyColumns.map(Database.quoteIdentifier).joined(separator: ", ") + ")" }
    private func order(_ direction: String) -> String {
        keyColumns.map { Database.quoteIdentifier($0) + " " + direction }.joined(separator: ", ")
    }

    public func firstPage(limit: Int) throws -> [GridRow] {
        if usesOffset { return try offsetPage(from: 0, limit: limit) }
        return try fetch("SELECT \(selectList) FROM \(quoted) ORDER BY \(order("ASC")) LIMIT ?", [.integer(Int64(limit))])
    }

    public func page(after row: GridRow, limit: Int) throws -> [GridRow] {
        if usesOffset { return try offsetPage(from: (row.key.first?.int64Value ?? 0) + 1, limit: limit) }
        let marks = "(" + Array(repeating: "?", count: keyColumns.count).joined(separator: ", ") + ")"
        return try fetch("SELECT \(selectList) FROM \(quoted) WHERE \(keyTuple) > \(marks) ORDER BY \(order("ASC")) LIMIT ?",
                         row.key + [.integer(Int64(limit))])
    }

    public func page(before row: GridRow, limit: Int) throws -> [GridRow] {
        if usesOffset {
            let start = row.key.first?.int64Value ?? 0
            return try offsetPage(from: max(0, start - Int64(limit)), limit: Int(min(Int64(limit), start)))
        }
        let marks = "(" + Array(repeating: "?", count: keyColumns.count).joined(separator: ", ") + ")"
        return try fetch("SELECT \(selectList) FROM \(quoted) WHERE \(keyTuple) < \(marks) ORDER BY \(order("DESC")) LIMIT ?",
                         row.key + [.integer(Int64(limit))]).reversed()
    }

    public func lastPage(limit: Int) throws -> [GridRow] {
        if usesOffset {
            let total = Int64(try count())
            return try offsetPage(from: max(0, total - Int64(limit)), limit: limit)
        }
        return try fetch("SELECT \(selectList) FROM \(quoted) ORDER BY \(order("DESC")) LIMIT ?", [.integer(Int64(limit))]).reversed()
    }

    public func count() throws -> Int {
        // On its own read connection, so a slow count never holds up paging.
        try store.pool.read { db in Int(try db.scalar("SELECT count(*) FROM \(quoted)", cached: false)?.int64Value ?? 0) }
    }

    private func offsetPage(from start: Int64, limit: Int) throws -> [GridRow] {
        guard limit > 0 else { return [] }
        var index = start
        return try store.queue.read { db in
            var rows: [GridRow] = []
            try db.forEachRow("SELECT * FROM \(quoted) LIMIT ? OFFSET ?", [.integer(Int64(limit)), .integer(start)]) { s in
                rows.append(GridRow(key: [.integer(index)], cells: (0..<s.columnCount).map { cell(s.value(at: $0), column: $0) }))
                index += 1
                return true
            }
            return rows
        }
    }

    private func fetch(_ sql: String, _ arguments: [DatabaseValue]) throws -> [GridRow] {
        let keyCount = keyColumns.count
        return try store.queue.read { db in
            var rows: [GridRow] = []
            try db.forEachRow(sql, StatementArguments(arguments)) { s in
                let key = (0..<keyCount).map { s.value(at: $0) }
                let cells = (keyCount..<s.columnCount).map { cell(s.value(at: $0), column: $0 - keyCount) }
                rows.append(GridRow(key: key, cells: cells))
                return true
            }
            return rows
        }
    }

    private func cell(_ value: DatabaseValue, column: Int) -> GridCell {
        if column < columns.count, encryptedColumns.contains(columns[column]) {
            return ValueFormatter.encryptedCell(value, crypt: crypt)
        }
        return ValueFormatter.cell(value)
    }
}

/// The entries of one KV business, paged by key.
public final class KVBusinessSource: GridSource, @unchecked Sendable {
    public let title: String
    public let columns = ["KEY", "TYPE", "FLAGS", "SIZE", "VALUE"]
    public var initialColumn: Int { 4 }
    let store: KVStore
    let business: String

    public init(store: KVStore, business: String) {
        self.store = store
        self.business = business
        self.title = "kv: " + business
    }

    public func firstPage(limit: Int) throws -> [GridRow] { try store.entries(business: business, after: nil, limit: limit).map(row) }
    public func page(after row: GridRow, limit: Int) throws -> [GridRow] {
        try store.entries(business: business, after: row.key.first?.stringValue, limit: limit).map(self.row)
    }
    public func page(before row: GridRow, limit: Int) throws -> [GridRow] {
        guard let key = row.key.first?.stringValue else { return [] }
        return try store.entries(business: business, before: key, limit: limit).map(self.row)
    }
    public func lastPage(limit: Int) throws -> [GridRow] { try store.entries(business: business, before: nil, limit: limit).map(row) }
    public func count() throws -> Int { try store.count(business: business) }

    private func row(_ entry: KVEntry) -> GridRow {
        var flags = ""
        if entry.options.contains(.defaultEncrypted) { flags += "E" }
        if entry.options.contains(.customEncrypted) { flags += "C" }
        if entry.options.contains(.purgeable) { flags += "P" }
        let value = ValueFormatter.kvCell(entry, store: store)
        return GridRow(key: [.text(entry.key)], cells: [
            GridCell(text: entry.key, role: .grid, typeName: "text", content: .database(.text(entry.key))),
            GridCell(text: value.typeName, role: .grid, typeName: "text"),
            GridCell(text: flags.isEmpty ? "-" : flags, role: .grid, typeName: "text"),
            GridCell(text: String(entry.byteCount), role: .grid, typeName: "integer"),
            value,
        ])
    }
}

/// The entries of one LRU disk cache, paged by key.
public final class CacheSource: GridSource, @unchecked Sendable {
    public let title: String
    public let columns = ["KEY", "EXPIRES", "SIZE", "VALUE"]
    public var initialColumn: Int { 3 }
    let store: Store
    private let info: CacheInfo

    public init(store: Store, info: CacheInfo) {
        self.store = store
        self.info = info
        self.title = "cache: " + info.name
    }

    public func firstPage(limit: Int) throws -> [GridRow] { try CacheCatalog.entries(of: info, in: store, after: nil, limit: limit).map(row) }
    public func page(after row: GridRow, limit: Int) throws -> [GridRow] {
        try CacheCatalog.entries(of: info, in: store, after: row.key.first?.stringValue, limit: limit).map(self.row)
    }
    public func page(before row: GridRow, limit: Int) throws -> [GridRow] {
        guard let key = row.key.first?.stringValue else { return [] }
        let table = Database.quoteIdentifier(info.tableName)
        let keys = try store.queue.read { db in
            try db.query("SELECT key FROM \(table) WHERE key < ? ORDER BY key DESC LIMIT ?", [.text(key), .integer(Int64(limit))])
        }.compactMap { $0[0].stringValue }.reversed()
        return try keys.compactMap { try CacheCatalog.entry($0, of: info, in: store) }.map(self.row)
    }
    public func lastPage(limit: Int) throws -> [GridRow] {
        let table = Database.quoteIdentifier(info.tableName)
        let keys = try store.queue.read { db in
            try db.query("SELECT key FROM \(table) ORDER BY key DESC LIMIT ?", [.integer(Int64(limit))])
        }.compactMap { $0[0].stringValue }.reversed()
        return try keys.compactMap { try CacheCatalog.entry($0, of: info, in: store) }.map(self.row)
    }
    public func count() throws -> Int {
        try store.queue.read { db in Int(try db.scalar("SELECT count(*) FROM \(Database.quoteIdentifier(info.tableName))")?.int64Value ?? 0) }
    }

    private func row(_ entry: CacheEntry) -> GridRow {
        let expires = entry.expires.map { ISO8601DateFormatter().string(from: $0) } ?? "never"
        let value: GridCell
        do {
            let decoded = try CacheCatalog.decode(entry, of: info, crypt: store.kv.defaultCrypt)
            let role: StyleRole = info.isEncrypted ? .decrypted : (entry.encoding == "data" ? .blob : .grid)
            let text: String
            if case .data(let d) = decoded { text = String(data: d, encoding: .utf8).map(ValueFormatter.cut) ?? ValueFormatter.blobPreview(d) }
            else { text = ValueFormatter.cut(KVValue.plist(decoded).displayString) }
            value = GridCell(text: text, role: role, typeName: entry.encoding, encryption: info.isEncrypted ? .decrypted : .plain,
                             content: .propertyList(decoded))
        } catch {
            let reason = ValueFormatter.lockReason(error)
            value = GridCell(text: "[locked: \(reason)]", role: .locked, typeName: entry.encoding, encryption: .locked(reason))
        }
        return GridRow(key: [.text(entry.key)], cells: [
            GridCell(text: entry.key, role: .grid, typeName: "text", content: .database(.text(entry.key))),
            GridCell(text: expires, role: entry.expires == nil ? .null : .grid, typeName: "date"),
            GridCell(text: String(entry.stored.count), role: .grid, typeName: "integer"),
            value,
        ])
    }
}
