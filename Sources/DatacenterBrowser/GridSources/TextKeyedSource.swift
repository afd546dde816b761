import DatacenterKit

/// A grid source whose rows are entries with a text key (a KV business, an LRU cache): in
/// key order by default, and otherwise as their `StoredKeyView` says — sorted in memory
/// (`InMemoryOrder`), or filtered and still paged by key. The paging decision is made here
/// once; a source says only how it reads its entries.
protocol TextKeyedSource: GridSource {
    /// The sort and filter the entries are shown with.
    var shown: StoredKeyView { get }
    /// Up to `limit` rows in key order after `key` (from the first when nil).
    func entryRows(after key: String?, limit: Int) throws -> [GridRow]
    /// Up to `limit` rows in key order before `key` (the last ones when nil), in order.
    func entryRows(before key: String?, limit: Int) throws -> [GridRow]
    /// The rows of `keys` that still exist, in their order.
    func rows(keys: [String]) throws -> [GridRow]
    /// How many entries there are, unfiltered.
    func entryCount() throws -> Int
}

extension TextKeyedSource {
    package var view: TableView { shown.view }

    package func firstPage(limit: Int) throws -> [GridRow] {
        if let order = shown.order { return try order.firstPage(limit: limit, fetch: rows(keyed:)) }
        if !shown.isDefault { return try rows(keys: shown.keys(after: nil, limit: limit)) }
        return try entryRows(after: nil, limit: limit)
    }

    package func page(after row: GridRow, limit: Int) throws -> [GridRow] {
        if let order = shown.order { return try order.page(after: row, limit: limit, fetch: rows(keyed:)) }
        let key = row.key.first?.stringValue
        if !shown.isDefault { return try rows(keys: shown.keys(after: key, limit: limit)) }
        return try entryRows(after: key, limit: limit)
    }

    package func page(before row: GridRow, limit: Int) throws -> [GridRow] {
        if let order = shown.order { return try order.page(before: row, limit: limit, fetch: rows(keyed:)) }
        guard let key = row.key.first?.stringValue else { return [] }
        if !shown.isDefault { return try rows(keys: shown.keys(before: key, limit: limit)) }
        return try entryRows(before: key, limit: limit)
    }

    package func lastPage(limit: Int) throws -> [GridRow] {
        if let order = shown.order { return try order.lastPage(limit: limit, fetch: rows(keyed:)) }
        if !shown.isDefault { return try rows(keys: shown.keys(before: nil, limit: limit)) }
        return try entryRows(before: nil, limit: limit)
    }

    package func count() throws -> Int { shown.isDefault ? try entryCount() : try shown.count() }

    /// The rows of `keys` (each one text key) that still exist.
    func rows(keyed keys: [[DatabaseValue]]) throws -> [GridRow] { try rows(keys: keys.compactMap { $0.first?.stringValue }) }
}
