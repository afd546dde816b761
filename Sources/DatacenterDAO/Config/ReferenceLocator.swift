import DatacenterKit

/// Locations of the references (`#{}`, `@{}`, `${T}`) of one text node, asked for in the
/// order they stand: each answer costs only the characters walked since the previous one, so
/// a statement of n references, or a minified config of n methods on one line, is located in
/// time linear in its size rather than n searches of the whole text or line.
///
/// Lines are counted exactly. On the text's first line, whose start column libxml2 does not
/// give, the column is found by searching the source line for the reference, onward from
/// where the previous reference on that line was found (`SourceLineCursors`).
struct ReferenceLocator {
    private let text: String
    private let start: SourceLocation
    private let cursors: SourceLineCursors
    private var index: String.Index
    private var line: Int
    /// The column of `index` once the walk has passed a newline; nil while on the first line.
    private var column: Int?

    init(text: String, start: SourceLocation, cursors: SourceLineCursors) {
        self.text = text
        self.start = start
        self.cursors = cursors
        self.index = text.startIndex
        self.line = start.line
        self.column = nil
    }

    /// The location of `snippet`, which starts at `position` of the text; `position` is at
    /// or after the previous one asked for.
    mutating func location(of snippet: String, at position: String.Index) -> SourceLocation {
        WorkMeter.count(.searchedBytes, text.utf8.distance(from: index, to: max(index, position)))
        while index < position {
            if text[index] == "\n" {
                line += 1
                column = 1
            } else if let current = column {
                column = current + 1
            }
            index = text.index(after: index)
        }
        if let column { return SourceLocation(file: start.file, line: line, column: column) }
        return SourceLocation(file: start.file, line: line, column: cursors.column(of: snippet, line: line))
    }
}

/// Per source line, where the last reference found on it ended, so references met in
/// document order are each found by searching on from the previous one.
final class SourceLineCursors {
    private let source: SourceText
    private var cursors: [Int: SourceText.LineCursor] = [:]
    /// Lines up to this long are searched again from their start when a reference is not
    /// found after the cursor (it came out of order, or was spliced in from a const); longer
    /// lines then give column 1, so no line is searched over and over.
    static let rescanLimit = 4096

    init(source: SourceText) { self.source = source }

    /// The column of `snippet` on `line` (1 when it cannot be found cheaply).
    func column(of snippet: String, line: Int) -> Int {
        guard var cursor = cursors[line] ?? source.cursor(atLine: line) else { return 1 }
        if let found = source.column(of: snippet, from: &cursor) {
            cursors[line] = cursor
            return found
        }
        guard source.lines[line - 1].utf8.count <= Self.rescanLimit else { return 1 }
        return source.column(of: snippet, line: line)
    }
}
