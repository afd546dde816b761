import DatacenterKit

/// The console's editor: SQL over several lines, as the sqlite3 shell continues a statement
/// and harlequin edits a query. One text (lines joined by `"\n"`) and one cursor, edited by
/// the `LineEditor` it holds, so typing, deleting and moving by character work as in every
/// prompt, across line ends too (Backspace at a line's start joins it to the one before).
///
/// What a line changes:
/// - `.home`/Ctrl-A, `.end`/Ctrl-E, Ctrl-U and Ctrl-K act on the cursor's line;
/// - `.up` and `.down` move to the line above or below (to the same column, or its end);
///   on the first line ↑, and on the last ↓, walk the history, whose entries may be of
///   several lines;
/// - `newLine()` splits the line at the cursor (the console calls it for Ctrl-J, and for
///   Enter inside an unfinished statement).
///
/// Pure state; `layout(width:height:)` says what a box of that size shows.
package struct QueryEditor: Equatable, Sendable {
    /// The text and cursor. Its own history is never set: ↑ and ↓ come here first.
    private var buffer = LineEditor()

    /// The statements run before, walked by ↑ on the first line and ↓ on the last.
    package var history: LineHistory?

    /// The first line shown, as last kept by `followCursor(width:height:)`.
    package private(set) var scrollLine = 0

    /// The column of the cursor's line shown first, as last kept by `followCursor`.
    private var scrollColumn = 0

    /// The column ↑ and ↓ aim for while they move through shorter lines: the one the cursor
    /// had when they started (as editors keep it); nil after any other key.
    private var goalColumn: Int?

    /// An empty editor that walks `history`.
    package init(history: LineHistory? = nil) {
        self.history = history
    }

    /// The whole text. Setting it puts the cursor at the end and ends any walk in the history.
    package var text: String {
        get { buffer.text }
        set {
            buffer.text = newValue
            history?.stopWalking()
        }
    }

    /// The text character by character, lines apart by `"\n"`.
    package var characters: [Character] { buffer.characters }

    /// Where the cursor is in `characters`.
    package var cursor: Int { buffer.cursor }

    /// True when there is no text.
    package var isEmpty: Bool { buffer.isEmpty }

    /// The lines of the text (one, empty, for no text).
    package var lines: [String] { text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    /// The cursor's line and its column (in characters) on it.
    package var cursorPosition: (line: Int, column: Int) {
        let before = buffer.characters[..<buffer.cursor]
        let line = before.reduce(0) { $0 + ($1 == "\n" ? 1 : 0) }
        let start = before.lastIndex(of: "\n").map { $0 + 1 } ?? 0
        return (line, buffer.cursor - start)
    }

    /// The character range of the cursor's line (without its `"\n"`).
    private var currentLine: Range<Int> {
        let characters = buffer.characters
        var start = buffer.cursor
        while start > 0, characters[start - 1] != "\n" { start -= 1 }
        var end = buffer.cursor
        while end < characters.count, characters[end] != "\n" { end += 1 }
        return start..<end
    }

    // MARK: - Keys

    /// Applies `key` and says what became of it (as `LineEditor.handle`): Enter submits the
    /// whole text, recording it in the history; Esc cancels.
    package mutating func handle(_ key: Key) -> LineEditor.Outcome {
        let line = currentLine
        let goal = goalColumn
        goalColumn = nil
        switch key {
        case .home, .control("a"): return move(to: line.lowerBound)
        case .end, .control("e"): return move(to: line.upperBound)
        case .control("u"): return delete(line.lowerBound..<buffer.cursor)
        case .control("k"): return delete(buffer.cursor..<line.upperBound)
        case .up:
            let (row, column) = cursorPosition
            if row > 0 { return moveToLine(row - 1, column: goal ?? column) }
            guard history != nil else { return .ignored }
            let current = text
            guard let entry = history?.older(current: current) else { return .consumed }
            return recall(entry)
        case .down:
            let (row, column) = cursorPosition
            if row < lines.count - 1 { return moveToLine(row + 1, column: goal ?? column) }
            guard history != nil else { return .ignored }
            guard let entry = history?.newer() else { return .consumed }
            return recall(entry)
        case .enter:
            let submitted = text
            history?.record(submitted)
            return .submitted(submitted)
        case .escape:
            history?.stopWalking()
            return .cancelled
        default:
            let outcome = buffer.handle(key)
            if outcome == .edited { history?.stopWalking() }
            return outcome
        }
    }

    /// Inserts `text` at the cursor (a paste: its line breaks split lines).
    package mutating func insert(_ text: String) {
        buffer.insert(text)
        history?.stopWalking()
    }

    /// Splits the line at the cursor, the cursor at the start of the new line.
    package mutating func newLine() {
        buffer.insert("\n")
        history?.stopWalking()
    }

    /// Replaces the characters from `start` to the cursor with `string` (a completion).
    package mutating func replaceBeforeCursor(from start: Int, with string: String) {
        buffer.replaceBeforeCursor(from: start, with: string)
    }

    private mutating func move(to index: Int) -> LineEditor.Outcome {
        buffer.moveCursor(to: index)
        return .consumed
    }

    private mutating func delete(_ range: Range<Int>) -> LineEditor.Outcome {
        guard !range.isEmpty else { return .consumed }
        buffer.moveCursor(to: range.upperBound)
        buffer.replaceBeforeCursor(from: range.lowerBound, with: "")
        return .edited
    }

    /// Puts the cursor on line `row` at `column`, or at the line's end when it is shorter
    /// (`column` stays the goal of the next ↑ or ↓).
    private mutating func moveToLine(_ row: Int, column: Int) -> LineEditor.Outcome {
        goalColumn = column
        var start = 0
        for (index, line) in lines.enumerated() {
            if index == row { return move(to: start + min(column, line.count)) }
            start += line.count + 1
        }
        return .consumed
    }

    /// Shows a history entry, the cursor at its end.
    private mutating func recall(_ entry: String) -> LineEditor.Outcome {
        let changed = entry != text
        buffer.text = entry
        return changed ? .edited : .consumed
    }

    // MARK: - Layout

    /// What a box `width` columns by `height` lines shows: the lines from the first that
    /// keeps the cursor's line in view (scrolled from `scrollLine` as little as needed), each
    /// laid out as a `LineEditor` field scrolled sideways with the cursor's line (so a long
    /// line's columns stay aligned with the lines around it).
    package func layout(width: Int, height: Int) -> (firstLine: Int, lines: [LineLayout], cursorLine: Int) {
        let all = lines
        let (row, column) = cursorPosition
        let height = max(1, height)
        var first = min(scrollLine, max(0, all.count - height))
        if row < first { first = row }
        if row >= first + height { first = row - height + 1 }
        var cursorEditor = LineEditor(all[row])
        cursorEditor.moveCursor(to: column)
        cursorEditor.scroll(to: scrollColumn)
        let cursorLayout = cursorEditor.layout(width: width)
        let laidOut = all[first..<min(all.count, first + height)].enumerated().map { offset, line -> LineLayout in
            if first + offset == row { return cursorLayout }
            var editor = LineEditor(line)
            editor.moveCursor(to: 0)
            editor.scroll(to: cursorLayout.firstColumn)
            return editor.layout(width: width, showingCursor: false)
        }
        return (first, laidOut, row - first)
    }

    /// `layout(width:height:)`, keeping its scroll for the next one (see `LineEditor.followCursor`).
    package mutating func followCursor(width: Int, height: Int) {
        let laidOut = layout(width: width, height: height)
        scrollLine = laidOut.firstLine
        scrollColumn = laidOut.lines[laidOut.cursorLine].firstColumn
    }
}
