import DatacenterKit

/// What `E` exports of a grid: the rows its source reads (a table or view, or a console
/// SELECT), with its filter and order, and which columns to decrypt.
struct GridExportSubject: Sendable, Equatable {
    /// The store file read.
    let storePath: String
    /// The name of what is exported: the table or view, or `result` for a console SELECT
    /// (the table an SQL export's `INSERT`s name).
    let table: String
    /// A SELECT in parentheses to read instead of `table` (a console query's rows), or nil.
    let relation: String?
    /// The grid's filter (`WHERE`), if any (with the selection's condition when only the
    /// selected rows are exported).
    private(set) var filter: String?
    /// The grid's order (`ORDER BY`), if any.
    let order: String?
    /// The columns stored encrypted, written decrypted.
    let encryptedColumns: [String]

    /// The subject of a grid reading `source`; nil for a source that is not exported (KV
    /// businesses and caches, whose values the engine decodes).
    init?(_ source: GridSource) {
        if let table = source as? TableSource {
            storePath = table.store.path
            self.table = table.table
            relation = nil
            filter = table.view.filter.flatMap { $0.isEmpty ? nil : $0 }
            order = table.gridOrder
            encryptedColumns = table.encryptedColumns.sorted()
        } else if let query = source as? QuerySource {
            storePath = query.store.path
            table = "result"
            relation = query.relation
            filter = query.view.filter.flatMap { $0.isEmpty ? nil : $0 }
            order = query.view.sort.map { Database.quoteIdentifier($0.column) + ($0.descending ? " DESC" : " ASC") }
            encryptedColumns = query.encryptedColumns.sorted()
        } else {
            return nil
        }
    }

    /// The same rows kept to those `condition` holds for (the selected rows: `E` with rows
    /// selected).
    func keeping(_ condition: String) -> GridExportSubject {
        var kept = self
        kept.filter = filter.map { "(\($0)) AND \(condition)" } ?? condition
        return kept
    }
}

