import DatacenterKit

/// A page of a grid's source to read off the input loop (`BrowserCommand.fetchPage`): what
/// moving past the rows on hand needs. The rows come back as `BrowserEvent.pageLoaded`.
package enum PageRequest: Sendable {
    /// The first `limit` rows.
    case first(limit: Int)
    /// The last `limit` rows.
    case last(limit: Int)
    /// Up to `limit` rows after `row`.
    case after(GridRow, limit: Int)
    /// Up to `limit` rows before `row`.
    case before(GridRow, limit: Int)

    /// Reads the page from `source`, on the calling thread.
    func read(from source: GridSource) throws -> [GridRow] {
        switch self {
        case .first(let limit): return try source.firstPage(limit: limit)
        case .last(let limit): return try source.lastPage(limit: limit)
        case let .after(row, limit): return try source.page(after: row, limit: limit)
        case let .before(row, limit): return try source.page(before: row, limit: limit)
        }
    }
}
