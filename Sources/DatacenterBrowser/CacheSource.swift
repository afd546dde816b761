import DatacenterKit
import Foundation

/// The entries of one LRU disk cache, paged by key.
package final class CacheSource: GridSource, Sendable {
    package let title: String
    package let columns = ["KEY", "EXPIRES", "SIZE", "VALUE"]
    package var initialColumn: Int { 3 }
    /// The store file that holds the cache's table.
    let store: Store
    private let info: CacheInfo

    /// The cache `info` describes, read from `store` (the file that holds its table).
    package init(store: Store, info: CacheInfo) {
        self.store = store
        self.info = info
        self.title = "cache: " + info.name
    }

    package func firstPage(limit: Int) throws -> [GridRow] { try CacheCatalog.entries(of: info, in: store, after: nil, limit: limit).map(row) }
    package func page(after row: GridRow, limit: Int) throws -> [GridRow] {
        try CacheCatalog.entries(of: info, in: store, after: row.key.first?.stringValue, limit: limit).map(self.row)
    }
    package func page(before row: GridRow, limit: Int) throws -> [GridRow] {
        guard let key = row.key.first?.stringValue else { return [] }
        let table = Database.quoteIdentifier(info.tableName)
        let keys = try store.queue.read { db in
            try db.query("SELECT key FROM \(table) WHERE key < ? ORDER BY key DESC LIMIT ?", [.text(key), .integer(Int64(limit))])
        }.compactMap { $0[0].stringValue }.reversed()
        return try keys.compactMap { try CacheCatalog.entry($0, of: info, in: store) }.map(self.row)
    }
    package func lastPage(limit: Int) throws -> [GridRow] {
        let table = Database.quoteIdentifier(info.tableName)
        let keys = try store.queue.read { db in
            try db.query("SELECT key FROM \(table) ORDER BY key DESC LIMIT ?", [.integer(Int64(limit))])
        }.compactMap { $0[0].stringValue }.reversed()
        return try keys.compactMap { try CacheCatalog.entry($0, of: info, in: store) }.map(self.row)
    }
    package func count() throws -> Int {
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
