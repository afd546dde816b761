import Foundation

/// A key the browser understands, as the terminal edge decodes it.
public enum Key: Equatable, Sendable {
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, tab, backTab, backspace
    /// A printable character, or a control character such as `"\u{3}"` (Ctrl-C).
    case character(Character)
}

/// Everything that happens to the browser: the messages of its update function.
public enum BrowserEvent: Sendable {
    case key(Key)
    case resize(width: Int, height: Int)
    /// A click at a cell (0-based column and line).
    case click(x: Int, y: Int)
    /// The wheel, one notch: negative up, positive down.
    case wheel(x: Int, y: Int, delta: Int)
    /// A background row count finished for the grid with that id.
    case rowCount(gridID: Int, count: Int?)
    /// A search scanned `scanned` more rows without a match yet.
    case searchProgress(searchID: Int, scanned: Int)
    /// A search ended: the rows around the match (the match first), or nil when none.
    case searchFinished(searchID: Int, match: [GridRow]?, error: String?)
}

/// A flag a background task checks to stop early.
public final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    public init() {}
    public func cancel() { lock.withLock { cancelled = true } }
    public var isCancelled: Bool { lock.withLock { cancelled } }
}

/// Work the browser asks its runner to do off the input loop; the result comes back as an
/// event, so `handle` itself stays quick and testable.
public enum BrowserCommand: Sendable {
    case countRows(gridID: Int, source: GridSource)
    /// Scans `source` after `start` (from the first row when nil) for a row with a cell
    /// whose text contains `query`, case-insensitively, a page at a time.
    case search(searchID: Int, source: GridSource, start: GridRow?, query: String, cancel: CancellationFlag)

    /// Does the work now, on the calling thread, handing each event to `post` (a search posts
    /// progress as it goes), and returns the final event.
    @discardableResult
    public func perform(post: (BrowserEvent) -> Void = { _ in }) -> BrowserEvent {
        switch self {
        case let .countRows(id, source): return .rowCount(gridID: id, count: try? source.count())
        case let .search(id, source, start, query, cancel):
            let needle = query.lowercased()
            let pageSize = 500
            do {
                var page = try start.map { try source.page(after: $0, limit: pageSize) } ?? source.firstPage(limit: pageSize)
                while !page.isEmpty {
                    if cancel.isCancelled { return .searchFinished(searchID: id, match: nil, error: "cancelled") }
                    if let index = page.firstIndex(where: { row in row.cells.contains { $0.text.lowercased().contains(needle) } }) {
                        let match = Array(page[index...].prefix(200))
                        return .searchFinished(searchID: id, match: match, error: nil)
                    }
                    post(.searchProgress(searchID: id, scanned: page.count))
                    page = try source.page(after: page[page.count - 1], limit: pageSize)
                }
                return .searchFinished(searchID: id, match: nil, error: nil)
            } catch {
                return .searchFinished(searchID: id, match: nil, error: "\(error)")
            }
        }
    }
}
