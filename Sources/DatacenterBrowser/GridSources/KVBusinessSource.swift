import DatacenterKit
import Foundation

/// The entries of one KV business, paged by key; sorted by any column and filtered by SQL
/// over the stored columns as `StoredKeyView` says.
package final class KVBusinessSource: TextKeyedSource, Sendable {
    package let title: String
    package let columns = ["KEY", "TYPE", "FLAGS", "SIZE", "VALUE"]
    package var initialColumn: Int { 4 }
    /// The KV store of the file.
    let store: KVStore
    /// The store file, whose KV table a sort or filter reads.
    let file: Store
    /// The business shown.
    let business: String
    /// The sort and filter, and the order of a sort.
    let shown: StoredKeyView

    /// The values of `business` in `store`, sorted and filtered as `view` says; a sort stops once `cancel` is set.
    /// - throws: what `StoredKeyView.init` throws for the view.
    package init(store: Store, business: String, view: TableView = TableView(),
                 cancel: CancellationFlag = CancellationFlag()) throws {
        self.store = store.kv
        self.file = store
        self.business = business
        self.title = "kv: " + business
        let kv = store.kv
        shown = try StoredKeyView(store: store, table: KVStore.tableName, scope: "business = ?", scopeArguments: [.text(business)],
                                  view: view, name: title, columns: columns, cancel: cancel) { after in
            try kv.entries(business: business, after: after, limit: 1000).map { KVBusinessSource.row($0, store: kv) }
        }
    }

    package func viewing(_ view: TableView) throws -> GridSource { try viewing(view, cancel: CancellationFlag()) }

    package func viewing(_ view: TableView, cancel: CancellationFlag) throws -> GridSource {
        try KVBusinessSource(store: file, business: business, view: view, cancel: cancel)
    }

    func entryRows(after key: String?, limit: Int) throws -> [GridRow] {
        try store.entries(business: business, after: key, limit: limit).map(row)
    }

    func entryRows(before key: String?, limit: Int) throws -> [GridRow] {
        try store.entries(business: business, before: key, limit: limit).map(row)
    }

    func entryCount() throws -> Int { try store.count(business: business) }

    func rows(keys: [String]) throws -> [GridRow] {
        try keys.compactMap { try store.entry(forKey: $0, business: business) }.map(row)
    }

    private func row(_ entry: KVEntry) -> GridRow { KVBusinessSource.row(entry, store: store) }

    /// The row of `entry`, its value decoded (and decrypted) by `store`.
    private static func row(_ entry: KVEntry, store: KVStore) -> GridRow {
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
