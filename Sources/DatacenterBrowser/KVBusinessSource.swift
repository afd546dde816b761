import DatacenterKit
import Foundation

/// The entries of one KV business, paged by key.
package final class KVBusinessSource: GridSource, Sendable {
    package let title: String
    package let columns = ["KEY", "TYPE", "FLAGS", "SIZE", "VALUE"]
    package var initialColumn: Int { 4 }
    /// The KV store of the file.
    let store: KVStore
    /// The business shown.
    let business: String

    /// The values of `business` in `store`.
    package init(store: KVStore, business: String) {
        self.store = store
        self.business = business
        self.title = "kv: " + business
    }

    package func firstPage(limit: Int) throws -> [GridRow] { try store.entries(business: business, after: nil, limit: limit).map(row) }
    package func page(after row: GridRow, limit: Int) throws -> [GridRow] {
        try store.entries(business: business, after: row.key.first?.stringValue, limit: limit).map(self.row)
    }
    package func page(before row: GridRow, limit: Int) throws -> [GridRow] {
        guard let key = row.key.first?.stringValue else { return [] }
        return try store.entries(business: business, before: key, limit: limit).map(self.row)
    }
    package func lastPage(limit: Int) throws -> [GridRow] { try store.entries(business: business, before: nil, limit: limit).map(row) }
    package func count() throws -> Int { try store.count(business: business) }

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
