import DatacenterKit

/// A row of a table that differs between A and B, by its key.
struct RawRowChange {
    /// What became of the row.
    enum Kind: Int64 {
        /// In both, some value changed.
        case updated = 1
        /// In A only.
        case deleted = 2
        /// In B only.
        case inserted = 3
    }

    /// What became of the row.
    let kind: Kind
    /// The key's values (`TableLayout.keyColumns`).
    let key: [DatabaseValue]
    /// For each data column, true when its value differs (every column of a row deleted or
    /// inserted).
    let changed: [Bool]
    /// The data columns' values in A (NULL for an inserted row).
    let old: [DatabaseValue]
    /// The data columns' values in B (NULL for a deleted row).
    let new: [DatabaseValue]
}

/// The rows of one table that differ between `main` (A) and `aux` (B) of a connection, in
/// key order, found with one query (the rows `sqldiff` finds): rows joined by key whose
/// values differ, rows of A with no row of that key in B, and the other way round. Values compare
/// byte for byte (`COLLATE BINARY`: a column's own collation could call `A` and `a` equal);
/// as in `sqldiff`, an integer and a real of the same value are equal.
struct TableRowDiff {
    /// The table, in both schemas.
    let table: String
    /// Its rows' key and columns, the same in both.
    let layout: TableLayout

    /// The query: key values, the kind, then per data column whether it changed, its value
    /// in A and in B.
    ///
    /// One pass over A joined to B by key finds both the rows changed and the rows deleted
    /// (no row of B: its key is NULL, as a key column never is), and one pass over B the
    /// rows inserted: two passes where `sqldiff` makes three, for the same rows in the same
    /// order (the random-table test holds the statements to `sqldiff`'s).
    var sql: String {
        let t = Database.quoteIdentifier(table)
        let keys = layout.keyColumns.map(Database.quoteIdentifier)
        let columns = layout.dataColumns.map(Database.quoteIdentifier)
        let joined = keys.map { "A.\($0) = B.\($0)" }.joined(separator: " AND ")
        let missing = "B.\(keys[0]) IS NULL"
        let differs = columns.map { "A.\($0) IS NOT B.\($0) COLLATE BINARY" }
        let changedOrDeleted = keys.map { "A.\($0)" } + ["CASE WHEN \(missing) THEN 2 ELSE 1 END"]
            + zip(columns, differs).flatMap { column, differ in ["\(missing) OR \(differ)", "A.\(column)", "B.\(column)"] }
        let inserted = keys.map { "B.\($0)" } + ["3"] + columns.flatMap { ["1", "NULL", "B.\($0)"] }
        return "SELECT \(changedOrDeleted.joined(separator: ", ")) FROM main.\(t) A LEFT JOIN aux.\(t) B ON \(joined) WHERE "
            + ([missing] + differs).joined(separator: " OR ")
            + " UNION ALL SELECT \(inserted.joined(separator: ", ")) FROM aux.\(t) B WHERE NOT EXISTS (SELECT 1 FROM main.\(t) A WHERE \(joined))"
            + " ORDER BY " + (1...keys.count).map(String.init).joined(separator: ", ")
    }

    /// Calls `body` with each row that differs, in key order, until it returns false.
    func forEachChange(in db: Database, _ body: (RawRowChange) throws -> Bool) throws {
        let keyCount = layout.keyColumns.count
        let columnCount = layout.dataColumns.count
        let statement = try db.makeStatement(sql)
        try statement.forEachRow { row in
            let key = (0..<keyCount).map { row.value(at: $0) }
            let kind = RawRowChange.Kind(rawValue: row.value(at: keyCount).int64Value ?? 0) ?? .updated
            var changed: [Bool] = []
            var old: [DatabaseValue] = []
            var new: [DatabaseValue] = []
            changed.reserveCapacity(columnCount)
            old.reserveCapacity(columnCount)
            new.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                let base = keyCount + 1 + column * 3
                changed.append((row.value(at: base).int64Value ?? 0) != 0)
                old.append(row.value(at: base + 1))
                new.append(row.value(at: base + 2))
            }
            return try body(RawRowChange(kind: kind, key: key, changed: changed, old: old, new: new))
        }
    }
}
