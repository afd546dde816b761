extension KVStore {
    /// Up to `limit` stored entries of `business` with keys after `afterKey` (or from the
    /// first, with nil), in key order: keyset paging for tools that never load a whole store.
    public func entries(business: String, after afterKey: String?, limit: Int) throws -> [KVEntry] {
        try page(business: business, key: afterKey, ascending: true, limit: limit)
    }

    /// Up to `limit` entries of `business` with keys before `beforeKey` (or the last ones,
    /// with nil), returned in key order.
    public func entries(business: String, before beforeKey: String?, limit: Int) throws -> [KVEntry] {
        try page(business: business, key: beforeKey, ascending: false, limit: limit).reversed()
    }

    /// How many entries `business` has.
    public func count(business: String) throws -> Int {
        guard try hasKVTable() else { return 0 }
        return try queue.read { db in
            Int(try db.scalar("SELECT count(*) FROM datacenter_kv WHERE business = ?", [.text(business)])?.int64Value ?? 0)
        }
    }

    private func page(business: String, key: String?, ascending: Bool, limit: Int) throws -> [KVEntry] {
        guard try hasKVTable() else { return [] }
        let comparison = key == nil ? "" : (ascending ? " AND key > ?" : " AND key < ?")
        let sql = "SELECT business, key, value, encoding, options, modified FROM datacenter_kv WHERE business = ?"
            + comparison + " ORDER BY key " + (ascending ? "ASC" : "DESC") + " LIMIT ?"
        var arguments: [DatabaseValue] = [.text(business)]
        if let key { arguments.append(.text(key)) }
        arguments.append(.integer(Int64(max(0, limit))))
        return try queue.read { db in
            try db.query(sql, StatementArguments(arguments)).map { row in
                try KVStore.entry(business: row[0].stringValue ?? "", key: row[1].stringValue ?? "",
                                  value: row[2], encoding: row[3], options: row[4], modified: row[5])
            }
        }
    }

    private func hasKVTable() throws -> Bool {
        try queue.read { db in try Store.tableExists(KVStore.tableName, in: db) }
    }
}
