import DatacenterKit

/// One search of a grid's source, off the input loop (`BrowserCommand.search`): forward
/// (`/`, `n`) or backward (`?`, `N`), wrapping round the end as an editor's search does.
///
/// A table is searched by one query in SQLite (`GridSource.match`); other sources are
/// scanned here a page at a time, with progress posted as they go. The first pass looks
/// past the row the search starts from up to the end (or the start, going backward); when
/// it finds nothing, the second pass goes on from the other end up to that row (the cursor
/// may be on it, and it may be the only match), so no other row is read twice.
struct GridSearch {
    /// The search's id, for its events.
    let id: Int
    /// What the grid shows.
    let source: GridSource
    /// What is looked for.
    let needle: SearchNeedle
    /// True to look against the grid's order (towards its first row).
    let backward: Bool
    /// Set by Esc: the search stops at its next page (a query is interrupted).
    let cancel: CancellationFlag

    /// Rows read per page when the source is scanned.
    static let pageSize = 500
    /// Rows the match comes with (it first), for the grid's window.
    static let windowSize = 200

    /// Looks past `start` (from an end when nil), then, when nothing is found, round the end
    /// up to `start`; returns the event that ends the search.
    func run(from start: GridRow?, post: (BrowserEvent) -> Void) -> BrowserEvent {
        do {
            if let match = try pass(from: start, to: nil, post: post) {
                return .searchFinished(searchID: id, match: match, error: nil)
            }
            if cancel.isCancelled { return .searchFinished(searchID: id, match: nil, error: "cancelled") }
            if let start, let match = try pass(from: nil, to: start, post: post) {
                return .searchFinished(searchID: id, match: match, error: nil, wrapped: true)
            }
            return .searchFinished(searchID: id, match: nil, error: cancel.isCancelled ? "cancelled" : nil)
        } catch let error as DatabaseError where error.isInterrupted {
            return .searchFinished(searchID: id, match: nil, error: "cancelled")
        } catch {
            return .searchFinished(searchID: id, match: nil, error: "\(error)")
        }
    }

    /// The rows from the nearest match past `start` and up to `stop` (the match first),
    /// or nil when there is none (or the search was cancelled).
    private func pass(from start: GridRow?, to stop: GridRow?, post: (BrowserEvent) -> Void) throws -> [GridRow]? {
        if let match = try source.match(of: needle, from: start, to: stop, backward: backward, limit: GridSearch.windowSize, cancel: cancel) {
            return match.isEmpty ? nil : match
        }
        var page = try firstPage(from: start)
        while !page.isEmpty {
            if cancel.isCancelled { return nil }
            let order = backward ? Array(page.indices.reversed()) : Array(page.indices)
            for index in order {
                if page[index].cells.contains(where: { GridSearch.holds($0, needle) }) {
                    return Array(page[index...].prefix(GridSearch.windowSize))
                }
                if let stop, page[index].key == stop.key { return nil }
            }
            post(.searchProgress(searchID: id, scanned: page.count))
            page = backward ? try source.page(before: page[0], limit: GridSearch.pageSize)
                : try source.page(after: page[page.count - 1], limit: GridSearch.pageSize)
        }
        return nil
    }

    /// True when `cell`'s text holds `needle`. A locked value's text is a placeholder the
    /// browser wrote (`[locked: no key]`), not the value: it matches nothing, as the search
    /// in SQLite finds nothing in a value no key opens.
    static func holds(_ cell: GridCell, _ needle: SearchNeedle) -> Bool {
        if case .locked = cell.encryption { return false }
        return needle.matches(cell.text)
    }

    /// The first page the scan reads: the rows past `start`, or the rows at the end it starts from.
    private func firstPage(from start: GridRow?) throws -> [GridRow] {
        switch (start, backward) {
        case let (row?, false): return try source.page(after: row, limit: GridSearch.pageSize)
        case let (row?, true): return try source.page(before: row, limit: GridSearch.pageSize)
        case (nil, false): return try source.firstPage(limit: GridSearch.pageSize)
        case (nil, true): return try source.lastPage(limit: GridSearch.pageSize)
        }
    }
}
