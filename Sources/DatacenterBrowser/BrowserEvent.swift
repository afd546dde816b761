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
}

/// Work the browser asks its runner to do off the input loop; the result comes back as an
/// event, so `handle` itself stays quick and testable.
public enum BrowserCommand: Sendable {
    case countRows(gridID: Int, source: GridSource)

    /// Does the work now, on the calling thread, and returns the event carrying its result.
    public func perform() -> BrowserEvent {
        switch self {
        case let .countRows(id, source): return .rowCount(gridID: id, count: try? source.count())
        }
    }
}
