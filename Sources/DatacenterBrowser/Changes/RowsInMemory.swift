import DatacenterKit

/// Rows held whole, paged by their place (the row key is its index from 0): for the grids
/// of changes, which are worked out whole by a diff before they are shown.
package struct RowsInMemory: Sendable {
    /// The rows, in order; each one's key is `[.integer(index)]`.
    let rows: [GridRow]

    /// Rows made of `cells`, keyed by place.
    init(_ cells: [[GridCell]]) {
        rows = cells.enumerated().map { GridRow(key: [.integer(Int64($0.offset))], cells: $0.element) }
    }

    /// The place of `row`.
    private func index(of row: GridRow) -> Int { Int(row.key.first?.int64Value ?? 0) }

    func first(limit: Int) -> [GridRow] { Array(rows.prefix(max(0, limit))) }
    func after(_ row: GridRow, limit: Int) -> [GridRow] { Array(rows.dropFirst(index(of: row) + 1).prefix(max(0, limit))) }
    func before(_ row: GridRow, limit: Int) -> [GridRow] {
        let end = min(max(0, index(of: row)), rows.count)
        return Array(rows[max(0, end - limit)..<end])
    }
    func last(limit: Int) -> [GridRow] { Array(rows.suffix(max(0, limit))) }
}

/// A grid source whose rows are held whole (`RowsInMemory`): paged from them.
package protocol HeldRowsSource: GridSource {
    /// The rows.
    var heldRows: RowsInMemory { get }
}

extension HeldRowsSource {
    package func firstPage(limit: Int) throws -> [GridRow] { heldRows.first(limit: limit) }
    package func page(after row: GridRow, limit: Int) throws -> [GridRow] { heldRows.after(row, limit: limit) }
    package func page(before row: GridRow, limit: Int) throws -> [GridRow] { heldRows.before(row, limit: limit) }
    package func lastPage(limit: Int) throws -> [GridRow] { heldRows.last(limit: limit) }
    package func count() throws -> Int { heldRows.rows.count }
}
