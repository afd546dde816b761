import DatacenterKit

/// A page of a grid's source to read off the input loop: what opening a grid
/// (`BrowserCommand.openGrid`), reading it again after a write, moving past the rows on
/// hand and filling a taller screen (`BrowserCommand.fetchPage`) need. The rows come back
/// as `BrowserEvent.gridOpened` or `BrowserEvent.pageLoaded`.
package enum PageRequest: Sendable {
    /// The first `limit` rows.
    case first(limit: Int)
    /// The last `limit` rows.
    case last(limit: Int)
    /// Up to `limit` rows after `row`.
    case after(GridRow, limit: Int)
    /// Up to `limit` rows before `row`.
    case before(GridRow, limit: Int)
    /// Up to `before` rows before `row` (at least one is asked for), then `row` itself if it
    /// is still there and the rows after it: `limit` rows in all at most. Reading a grid
    /// again after a write asks for this, so the window stays around the cursor's row; when
    /// that row is gone, the row after it takes its place.
    case around(GridRow, before: Int, limit: Int)

    /// The row `target` names (`Ctrl-G`), and the rows after it: `limit` rows in all at most.
    /// - throws: `GoToError` when there is no such row.
    case at(GoToTarget, limit: Int)

    /// The row of a table whose `columns` hold `values` (its primary key when `columns` is
    /// empty), and the rows after it: where a foreign key leads (`J`).
    /// - throws: `GoToError` when there is no such row.
    case matching(columns: [String], values: [DatabaseValue], limit: Int)

    /// The most rows the page holds: fewer came back when the source has no more.
    var limit: Int {
        switch self {
        case .first(let limit), .last(let limit), .after(_, let limit), .before(_, let limit), .around(_, _, let limit), .at(_, let limit), .matching(_, _, let limit):
            return limit
        }
    }

    /// Reads the page from `source`, on the calling thread.
    func read(from source: GridSource) throws -> [GridRow] {
        switch self {
        case .first(let limit): return try source.firstPage(limit: limit)
        case .last(let limit): return try source.lastPage(limit: limit)
        case let .after(row, limit): return try source.page(after: row, limit: limit)
        case let .before(row, limit): return try source.page(before: row, limit: limit)
        case let .at(target, limit):
            let found: GridRow?
            switch target {
            case .number(let n): found = try source.row(number: n)
            case .key(let text): found = try source.row(keyText: text)
            }
            guard let row = found else {
                switch target {
                case .number(let n):
                    let count = try source.count()
                    throw GoToError(description: "row \(Browser.grouped(n)) is past the last row (\(Browser.grouped(count)) \(count == 1 ? "row" : "rows")\(source.view.isDefault ? "" : " shown"))")
                case .key(let text):
                    throw GoToError(description: "no row with key \(text)" + ((source.view.filter ?? "").isEmpty ? "" : " where \(source.view.filter ?? "")"))
                }
            }
            return [row] + (try source.page(after: row, limit: max(0, limit - 1)))
        case let .matching(columns, values, limit):
            let wanted = zip(columns.isEmpty ? ["key"] : columns, values).map { "\($0) = \(TypedValue.literal($1))" }.joined(separator: ", ")
            guard let table = source as? TableSource, let row = try table.row(whereColumns: columns, equal: values) else {
                throw GoToError(description: "no row of \(source.title) where \(wanted)")
            }
            return [row] + (try source.page(after: row, limit: max(0, limit - 1)))
        case let .around(row, before, limit):
            // Two keyset reads: the rows before `row`, then from the last of them on (which
            // starts at `row` when it is still there). None before: `row` was the first.
            let earlier = try source.page(before: row, limit: min(max(1, before), max(1, limit - 1)))
            let rest = limit - earlier.count
            guard let previous = earlier.last else { return try source.firstPage(limit: limit) }
            return earlier + (try source.page(after: previous, limit: rest))
        }
    }
}
