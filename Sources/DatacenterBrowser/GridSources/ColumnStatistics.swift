import DatacenterKit

/// Statistics of a grid's columns (VisiData's `I`): per column its storage types, how many
/// NULLs, how many distinct values, the least and greatest, and the mean of its numbers,
/// computed by SQLite over the grid's rows as filtered (one aggregate per column), and shown
/// as a query grid. A crypt column is described by its decrypted values. NULLs are counted
/// as the rows less the values (`sum(x IS NULL)` of no rows is NULL, not 0).
enum ColumnStatistics {
    /// The SELECT describing `columns` of `relation` (a quoted table or view name, or a
    /// SELECT in parentheses) as `view` filters it; `encrypted` columns are decrypted first.
    ///
    /// SQLite takes at most 500 terms in a compound SELECT: the columns are described in
    /// batches of `batch`, each a compound of its own in a subquery, joined by `UNION ALL`.
    static func select(relation: String, columns: [String], encrypted: Set<String>, view: TableView, batch: Int = 250) -> String {
        let terms = columns.map { column in
            let value = FrequencyTable.valueExpression(column: column, isEncrypted: encrypted.contains(column))
            return """
                SELECT \(Database.quoteLiteral(column)) AS "column", group_concat(DISTINCT typeof(\(value))) AS types,
                  count(*) - count(\(value)) AS nulls, count(DISTINCT \(value)) AS "distinct", min(\(value)) AS min,
                  max(\(value)) AS max,
                  avg(CASE WHEN typeof(\(value)) IN ('integer', 'real') THEN \(value) END) AS mean
                FROM \(relation)\(view.whereClause())
                """
        }
        guard terms.count > batch else { return terms.joined(separator: "\nUNION ALL\n") }
        return stride(from: 0, to: terms.count, by: batch).map { start in
            "SELECT * FROM (" + terms[start..<min(terms.count, start + batch)].joined(separator: "\nUNION ALL\n") + ")"
        }.joined(separator: "\nUNION ALL\n")
    }
}

extension GridSource {
    /// The statistics of this source's columns, as a SELECT; nil for a source that is not a
    /// table, view or query.
    func statisticsSelect() -> String? {
        if let table = self as? TableSource {
            return ColumnStatistics.select(relation: Database.quoteIdentifier(table.table), columns: columns,
                                           encrypted: table.encryptedColumns, view: table.view)
        }
        if let query = self as? QuerySource {
            return ColumnStatistics.select(relation: query.relation, columns: columns, encrypted: query.encryptedColumns,
                                           view: query.view)
        }
        return nil
    }
}
