import DatacenterKit
import Foundation

/// The entries of one LRU disk cache, paged by key; sorted by any column and filtered by
/// SQL over the stored columns as `StoredKeyView` says.
package final class CacheSource: TextKeyedSource, Sendable {
    package let title: String
    package let columns = ["KEY", "EXPIRES", "SIZE", "VALUE"]
    package var initialColumn: Int { 3 }
    /// The store file that holds the cache's table.
    let store: Store
    private let info: CacheInfo
    /// The sort and filter, and the order of a sort.
    let shown: StoredKeyView

    /// The cache `info` describes, read from `store` (the file that holds its table),
    /// sorted and filtered as `view` says; a sort stops once `cancel` is set.
    /// - throws: what `StoredKeyView.init` throws for the view.
    package init(store: Store, info: CacheInfo, view: TableView = TableView(),
                 cancel: CancellationFlag = CancellationFlag()) throws {
        self.store = store
        self.info = info
        let title = "cache: " + info.name
        self.title = title
        shown = try StoredKeyView(store: store, table: info.tableName, scope: nil, scopeArguments: [], view: view, name: title,
                                  columns: columns, cancel: cancel) { after in
            try CacheCatalog.entries(of: info, in: store, after: after, limit: 1000).map { CacheSource.row($0, info: info, store: store) }
        }
    }

    package func viewing(_ view: TableView) throws -> GridSource { try viewing(view, cancel: CancellationFlag()) }

    package func viewing(_ view: TableView, cancel: CancellationFlag) throws -> GridSource {
        try CacheSource(store: store, info: info, view: view, cancel: cancel)
    }

    func entryRows(after key: String?, limit: Int) throws -> [GridRow] {
        try CacheCatalog.entries(of: info, in: store, after: key, limit: limit).map(row)
    }

    func entryRows(before key: String?, limit: Int) throws -> [GridRow] {
        let clause = key == nil ? "ORDER BY key DESC LIMIT ?" : "WHERE key < ? ORDER BY key DESC LIMIT ?"
        return try entries(clause, StatementArguments((key.map { [DatabaseValue.text($0)] } ?? []) + [.integer(Int64(limit))])).reversed().map(row)
    }

    func entryCount() throws -> Int {
        try store.queue.read { db in Int(try db.scalar("SELECT count(*) FROM \(Database.quoteIdentifier(info.tableName))")?.int64Value ?? 0) }
    }

    /// The rows of `keys` that still exist, in their order, read in one read transaction
    /// (as `entries` reads a page).
    func rows(keys: [String]) throws -> [GridRow] {
        try store.queue.read { db in
            try db.inTransaction(.deferred) { try keys.compactMap { try CacheCatalog.entry($0, of: info, in: store) } }
        }.map(row)
    }

    /// The entries whose keys `clause` (after `FROM table`) selects, in its order: the keys
    /// and then each entry read in one read transaction, so every entry read is one of
    /// the keys as they were (a write between two reads cannot leave a page half old).
    private func entries(_ clause: String, _ arguments: StatementArguments) throws -> [CacheEntry] {
        let table = Database.quoteIdentifier(info.tableName)
        return try store.queue.read { db in
            try db.inTransaction(.deferred) {
                let keys = try db.query("SELECT key FROM \(table) \(clause)", arguments).compactMap { $0[0].stringValue }
                // `entry` reads through the same queue: its lock is recursive, so on this
                // connection, inside this transaction.
                return try keys.compactMap { try CacheCatalog.entry($0, of: info, in: store) }
            }
        }
    }

    /// How an expiry date is shown: ISO 8601 in UTC, e.g. `2026-11-23T00:42:19Z`. A format
    /// style is a value (`Sendable`), so one serves every row on every thread.
    private static let expiryFormat = Date.ISO8601FormatStyle()

    /// The bytes an archived entry is stored as (a binary property list), decrypted when the
    /// cache is encrypted; nil for a `data` entry, whose bytes are its value. Called once
    /// `CacheCatalog.decode` opened the entry, so the same key opens these bytes.
    private static func archivedBytes(_ entry: CacheEntry, info: CacheInfo, store: Store) -> Data? {
        guard entry.encoding == "archive" else { return nil }
        guard info.isEncrypted else { return entry.stored }
        return try? store.kv.defaultCrypt.decrypt(entry.stored)
    }

    private func row(_ entry: CacheEntry) -> GridRow { CacheSource.row(entry, info: info, store: store) }

    /// The row of `entry` of the cache `info` describes, its value decoded (and decrypted
    /// with the store's crypt).
    private static func row(_ entry: CacheEntry, info: CacheInfo, store: Store) -> GridRow {
        let expires = entry.expires.map { $0.formatted(CacheSource.expiryFormat) } ?? "never"
        let value: GridCell
        do {
            let decoded = try CacheCatalog.decode(entry, of: info, crypt: store.kv.defaultCrypt)
            let role: StyleRole = info.isEncrypted ? .decrypted : (entry.encoding == "data" ? .blob : .grid)
            value = GridCell(text: ValueFormatter.propertyListText(decoded), role: role, typeName: entry.encoding, encryption: info.isEncrypted ? .decrypted : .plain,
                             content: .propertyList(decoded), storedBytes: archivedBytes(entry, info: info, store: store))
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
