import DatacenterKit

/// How a diff names the rows of a table, as `sqldiff` does: by its true primary key — the
/// declared key of a `WITHOUT ROWID` table, the `INTEGER PRIMARY KEY` of a rowid table, the
/// rowid otherwise (as `rowid`, `_rowid_` or `oid`, whichever no column takes) — then the
/// other columns, in the table's order.
struct TableLayout: Equatable {
    /// The key columns, in key order (an implicit rowid: the name it is read by).
    let keyColumns: [String]
    /// The other columns, in the table's order.
    let dataColumns: [String]
    /// True when the rows are named by an implicit rowid (no column holds it).
    let usesImplicitRowid: Bool

    /// Every column: the key's first.
    var columns: [String] { keyColumns + dataColumns }

    /// The layout of `table` in `schema` (`main` or `aux`); nil when there is no such table,
    /// or when its rows have no key a query can name (a rowid table whose columns take all
    /// three rowid names).
    static func of(_ table: String, schema: String, in db: Database) throws -> TableLayout? {
        let quotedTable = Database.quoteLiteral(table)
        // The primary-key index, if any: a WITHOUT ROWID table's, or a rowid table's
        // non-integer key (which is not the rowid, so the rowid names the rows).
        var keyIndex: String?
        for row in try db.query("PRAGMA \(schema).index_list(\(quotedTable))") where row[3].stringValue?.lowercased() == "pk" {
            keyIndex = row[1].stringValue
            break
        }
        var keyCount = 1
        var usesDeclaredKey = true
        if let keyIndex {
            var columns = 0
            var keyed = 0
            usesDeclaredKey = false
            for row in try db.query("PRAGMA \(schema).index_xinfo(\(Database.quoteLiteral(keyIndex)))") {
                columns += 1
                if (row[5].int64Value ?? 0) != 0 { keyed += 1; continue }
                if (row[1].int64Value ?? -1) >= 0 { usesDeclaredKey = true }
            }
            if columns == keyed { usesDeclaredKey = true }
            keyCount = usesDeclaredKey ? keyed : 1
        }
        var key = [String?](repeating: nil, count: keyCount)
        var data: [String] = []
        let columns = try db.query("PRAGMA \(schema).table_info(\(quotedTable))")
        guard !columns.isEmpty else { return nil }     // no such table
        for row in columns {
            let name = row[1].stringValue ?? ""
            let position = Int(row[5].int64Value ?? 0)
            if usesDeclaredKey, position > 0, position <= keyCount {
                key[position - 1] = name
            } else {
                data.append(name)
            }
        }
        if key.allSatisfy({ $0 != nil }) { return TableLayout(keyColumns: key.compactMap { $0 }, dataColumns: data, usesImplicitRowid: false) }
        // The rowid names the rows: by a name no column takes.
        guard keyCount == 1, let rowid = ["rowid", "_rowid_", "oid"].first(where: { name in
            !data.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
        }) else { return nil }
        return TableLayout(keyColumns: [rowid], dataColumns: data, usesImplicitRowid: true)
    }
}
