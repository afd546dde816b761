import DatacenterKit
import DatacenterText

extension Key {
    /// Ctrl-`letter` as the terminal edge delivers it: `.character` holding the control
    /// character the terminal sends for it (the letter's code & 0x1F), so `.control("w")` is
    /// `.character("\u{17}")`. Names the keys `LineEditor` binds without magic numbers.
    /// Ctrl-H, Ctrl-I and Ctrl-M never arrive in this form: the edge turns them into
    /// `.backspace`, `.tab` and `.enter`. Ctrl-J (a line feed) does, and a line break in a
    /// paste arrives as it: the browser takes it for Enter except in the console's editor.
    package static func control(_ letter: Character) -> Key {
        precondition(letter.isASCII && letter.isLetter, "Ctrl- goes with a letter")
        return .character(Character(Unicode.Scalar(letter.asciiValue! & 0x1F)))
    }
}

/// The one line editor behind every prompt (edit, DAO fields, search, console): the text,
/// a cursor that moves in it, the usual editing keys, optionally a history, and a layout
/// that scrolls sideways so the cursor is always on screen.
///
/// Pure state, like the rest of the browser: `handle(_:)` takes a `Key` and says what
/// became of it, `layout(width:)` says what a field of that many columns shows, and
/// `draw(into:x:y:width:role:markRole:cursorRole:)` paints it into a `ScreenGrid`.
///
/// The unit of editing is the character (the grapheme cluster): the cursor sits between
/// characters, never inside one, so é written as e + U+0301, a flag, or a family joined by
/// zero-width joiners moves and deletes as one, and a wide character (CJK, most emoji)
/// is never split by the cursor or by the scrolling. Text inserted next to a combining mark
/// or a joiner merges with it as Unicode says, the cursor landing after the merged
/// character.
///
/// Keys (what each `Key` form does; the `.control` forms are what the curses edge delivers
/// for Ctrl and a letter):
/// - `.left`, `.right`: one character; `.home` or Ctrl-A, `.end` or Ctrl-E: the ends;
/// - `.backspace`: deletes the character before the cursor; Ctrl-D (`.control("d")`, also
///   what the Delete key must arrive as) the one under it;
/// - Ctrl-U deletes from the start to the cursor, Ctrl-K from the cursor to the end,
///   Ctrl-W the word before the cursor (and the blanks between it and the cursor);
/// - a printable character is inserted at the cursor;
/// - `.up`, `.down` walk the history when one is attached (`history`), else are ignored,
///   so a form can use them to go from field to field;
/// - `.enter` submits the line (recording it in the history), `.escape` cancels;
/// - anything else (Tab, Page Up/Down, other control characters) is left to the owner.
package struct LineEditor: Equatable, Sendable {
    /// What became of a key, so the owner knows what to do next. Every case but `ignored`
    /// means the key was the editor's and must not also act as a shortcut.
    package enum Outcome: Equatable, Sendable {
        /// The text changed: refresh anything derived from it (a preview, a validation).
        case edited
        /// The key was the editor's but the text is as it was: the cursor moved, or could
        /// not (Left at the start, Backspace on an empty line, ↑ past the oldest entry).
        case consumed
        /// Not an editing key: the owner may act on it (Tab to the next field, Ctrl-N…).
        case ignored
        /// Enter: the line, to be run or applied.
        case submitted(String)
        /// Esc: the owner closes the prompt or goes back.
        case cancelled
    }

    /// The text, character by character (grapheme clusters, kept merged as Unicode merges
    /// them: no element is a combining mark that belongs to the one before it).
    package private(set) var characters: [Character]

    /// Where the cursor is: the number of characters before it, `0...characters.count`.
    package private(set) var cursor: Int

    /// The column of the line shown first, as last kept by `followCursor(width:)`: the
    /// layout scrolls from there only as far as it must, so the text does not jump as the
    /// cursor moves within what is on screen.
    package private(set) var scrollColumn = 0

    /// The lines ↑ and ↓ walk through, and where Enter records the line; nil for a prompt
    /// without one (a DAO field, where ↑ and ↓ go from field to field).
    package var history: LineHistory?

    /// An editor holding `text` with the cursor at its end (where typing goes on), and
    /// `history` when ↑ and ↓ should recall earlier lines.
    package init(_ text: String = "", history: LineHistory? = nil) {
        characters = Array(text)
        cursor = characters.count
        self.history = history
    }

    /// The line. Setting it puts the cursor at the end and ends any walk in the history:
    /// the new text is what is being typed now.
    package var text: String {
        get { String(characters) }
        set {
            characters = Array(newValue)
            cursor = characters.count
            history?.stopWalking()
        }
    }

    /// True when there is no text.
    package var isEmpty: Bool { characters.isEmpty }

    // MARK: - Keys

    /// Applies `key` (see the type's notes for what each key does) and says what became of it.
    package mutating func handle(_ key: Key) -> Outcome {
        switch key {
        case .left: return move(to: cursor - 1)
        case .right: return move(to: cursor + 1)
        case .home, .control("a"): return move(to: 0)
        case .end, .control("e"): return move(to: characters.count)
        case .backspace: return delete(max(0, cursor - 1)..<cursor)
        case .control("d"): return delete(cursor..<min(characters.count, cursor + 1))
        case .control("u"): return delete(0..<cursor)
        case .control("k"): return delete(cursor..<characters.count)
        case .control("w"): return delete(wordStart()..<cursor)
        case .up:
            guard history != nil else { return .ignored }
            let current = text
            guard let line = history?.older(current: current) else { return .consumed }
            return recall(line)
        case .down:
            guard history != nil else { return .ignored }
            guard let line = history?.newer() else { return .consumed }
            return recall(line)
        case .enter:
            let line = text
            history?.record(line)
            return .submitted(line)
        case .escape:
            history?.stopWalking()
            return .cancelled
        case .character(let character) where Self.isTypable(character):
            insert(String(character))
            return .edited
        default:
            return .ignored
        }
    }

    /// Inserts `string` at the cursor and puts the cursor after it: what typing does, and
    /// what a paste or a completion can use. Nothing is filtered here: control characters
    /// in `string` are kept (and shown escaped by the layout).
    package mutating func insert(_ string: String) {
        replace(cursor..<cursor, with: string)
    }

    /// Replaces the characters from `start` (clamped) to the cursor with `string`, the
    /// cursor after it: what a completion does to the word being typed.
    package mutating func replaceBeforeCursor(from start: Int, with string: String) {
        replace(min(max(0, start), cursor)..<cursor, with: string)
    }

    /// Puts the cursor before character `index`, clamped to the text.
    package mutating func moveCursor(to index: Int) {
        cursor = min(max(0, index), characters.count)
    }

    /// True for a character typing may insert: no C0 or C1 control character and no DEL in
    /// it. Those arrive as Ctrl keys, and are left to the owner as shortcuts.
    static func isTypable(_ character: Character) -> Bool {
        !character.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    /// Moves the cursor to `index` (clamped): `.consumed`, as the text does not change.
    private mutating func move(to index: Int) -> Outcome {
        moveCursor(to: index)
        return .consumed
    }

    /// Deletes the characters in `range` (cursor left at its start): `.edited` when there
    /// were any, else `.consumed`.
    private mutating func delete(_ range: Range<Int>) -> Outcome {
        guard !range.isEmpty else { return .consumed }
        replace(range, with: "")
        return .edited
    }

    /// Shows a line from the history, cursor at its end: `.edited` unless it is the text
    /// already there.
    private mutating func recall(_ line: String) -> Outcome {
        let changed = line != text
        characters = Array(line)
        cursor = characters.count
        return changed ? .edited : .consumed
    }

    /// Where the word before the cursor starts, as Ctrl-W counts it in a shell: back over
    /// blanks, then back over what is not blank.
    private func wordStart() -> Int {
        var start = cursor
        while start > 0, characters[start - 1].isWhitespace { start -= 1 }
        while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
        return start
    }

    /// Replaces the characters in `range` with `inserted` and puts the cursor after it. The
    /// text is split into characters again, as the edit may merge characters across it (a
    /// combining mark typed after a letter, a deletion bringing a mark next to a letter);
    /// the cursor goes to the first character boundary at or after the end of what was
    /// inserted, so it never lands inside a merged character.
    private mutating func replace(_ range: Range<Int>, with inserted: String) {
        let head = String(characters[..<range.lowerBound])
        let tail = String(characters[range.upperBound...])
        let target = head.unicodeScalars.count + inserted.unicodeScalars.count
        characters = Array(head + inserted + tail)
        var scalars = 0
        var index = 0
        while index < characters.count, scalars < target {
            scalars += characters[index].unicodeScalars.count
            index += 1
        }
        cursor = index
    }

    // MARK: - Layout

    /// What a field `width` columns wide shows of the line, scrolled as little as needed
    /// from `scrollColumn` for the cursor to be on screen. Pure: the scroll it chose is in
    /// the layout (`firstColumn`); `followCursor(width:)` also keeps it for the next one.
    ///
    /// Each character is laid out on its own, in the cells `TerminalText.forEachCell(in:_:)`
    /// gives it: its columns never depend on its neighbours, so a zero-width character that
    /// elsewhere joins the one before it (U+200B) takes a column here, and the cursor can be
    /// seen to stop before and after it. Control characters are shown escaped (`\n`), one
    /// unit for the cursor.
    ///
    /// Where text is hidden, the field's first or last column shows `…` instead (fields of
    /// at least `LineLayout.minimumWidthForMarks` columns), never over the cursor. The cursor
    /// needs the whole character under it (both columns of a wide one, both cells of a flag,
    /// the two columns of an escaped `\t`), or its first cell when the field is too narrow
    /// for all of it, or one column at the end of the line; scrolling never leaves a blank
    /// column at the right beyond that one while text is hidden on the left.
    ///
    /// With `showingCursor` false the field is shown from `scrollColumn` as it is, wherever
    /// the cursor is: the other lines of a `QueryEditor`, aligned with the cursor's line.
    package func layout(width: Int, showingCursor: Bool = true) -> LineLayout {
        let width = max(0, width)
        // The cells of the whole line, and the column where the cursor's character starts.
        let marks = width >= LineLayout.minimumWidthForMarks
        var cells: [(text: String, width: Int)] = []
        var cursorStart = 0
        var cursorWidth = 1
        var total = 0
        for (index, character) in characters.enumerated() {
            let own = Self.cells(of: character)
            let columns = own.reduce(0) { $0 + $1.width }
            if index == cursor {
                cursorStart = total
                // The whole character (a flag's two cells, a family's three) when it fits
                // between the marks, else its first cell.
                cursorWidth = columns <= width - (marks ? 2 : 0) ? columns : own.first?.width ?? 1
            }
            cells += own
            total += columns
        }
        if cursor == characters.count { cursorStart = total }

        // The first column shown: the nearest to the kept one that shows the cursor's
        // character clear of the marks. Those that do form one range, so the nearest is
        // found by looking outwards from the kept one.
        func leftMark(_ left: Int) -> Int { marks && left > 0 ? 1 : 0 }
        func rightMark(_ left: Int) -> Int { marks && total > left + width ? 1 : 0 }
        func showsCursor(_ left: Int) -> Bool {
            left + leftMark(left) <= cursorStart && cursorStart + cursorWidth <= left + width - rightMark(left)
        }
        let lastLeft = max(0, total + 1 - width)          // the end of the line, and the cursor after it, at the right edge
        let upper = max(lastLeft, cursorStart)
        let preferred = min(max(0, scrollColumn), lastLeft)
        var left = showingCursor ? preferred : max(0, scrollColumn)
        if showingCursor, !showsCursor(preferred) {
            // Too narrow for the cursor's cell whatever the scroll: its start at the left.
            left = cursorStart
            for distance in 1...(upper + 1) {
                if preferred - distance >= 0, showsCursor(preferred - distance) { left = preferred - distance; break }
                if preferred + distance <= upper, showsCursor(preferred + distance) { left = preferred + distance; break }
            }
        }

        // The columns: cells wholly inside the part the marks leave, blanks elsewhere.
        let contentStart = leftMark(left)
        let contentEnd = width - rightMark(left)
        var columns = Array(repeating: " ", count: width)
        var column = 0
        for cell in cells {
            let at = column - left
            if at >= contentEnd { break }
            if at >= contentStart, at + cell.width <= contentEnd {
                columns[at] = cell.text
                if cell.width == 2 { columns[at + 1] = "" }
            }
            column += cell.width
        }
        if contentStart == 1 { columns[0] = LineLayout.clipMark }
        if contentEnd < width { columns[width - 1] = LineLayout.clipMark }
        return LineLayout(width: width, columns: columns, firstColumn: left, lineWidth: total,
                          cursorColumn: min(max(0, cursorStart - left), max(0, width - 1)),
                          cursorWidth: cursorWidth,
                          showsLeftMark: contentStart == 1, showsRightMark: contentEnd < width)
    }

    /// Makes column `column` of the line the first shown, as far as the cursor allows (the
    /// next `layout` starts from there).
    package mutating func scroll(to column: Int) {
        scrollColumn = max(0, column)
    }

    /// `layout(width:)`, keeping the scroll it chose so the next layout starts from there:
    /// call it when the field is drawn (or after each key) for the text to move only when
    /// the cursor would leave the field. Without it every layout scrolls from the start.
    @discardableResult
    package mutating func followCursor(width: Int) -> LineLayout {
        let laidOut = layout(width: width)
        scrollColumn = laidOut.firstColumn
        return laidOut
    }

    /// Draws the field at (`x`, `y`), `width` columns, as `layout(width:)` lays it out (see
    /// `LineLayout.draw`), and returns that layout (where the cursor is). Does not keep the
    /// scroll: a render stays pure; use `followCursor(width:)` for that.
    @discardableResult
    package func draw(into grid: inout ScreenGrid, x: Int, y: Int, width: Int, role: StyleRole,
                      markRole: StyleRole = .marker, cursorRole: StyleRole? = nil) -> LineLayout {
        let laidOut = layout(width: width)
        laidOut.draw(into: &grid, x: x, y: y, role: role, markRole: markRole, cursorRole: cursorRole)
        return laidOut
    }

    /// The cells a character takes on its own (see `layout(width:)`): one spacing scalar
    /// and its zero-width followers each, or one character of an escape, 1 or 2 columns.
    static func cells(of character: Character) -> [(text: String, width: Int)] {
        if let ascii = character.asciiValue, ascii >= 0x20, ascii < 0x7F { return [(String(character), 1)] }
        var cells: [(text: String, width: Int)] = []
        TerminalText.forEachCell(in: String(character)) { cell, width in
            cells.append((cell, width))
            return true
        }
        return cells
    }
}

/// One frame of a `LineEditor`'s field: what each of its columns shows, where the cursor
/// is, and what is hidden on either side. Made by `LineEditor.layout(width:)`.
package struct LineLayout: Equatable, Sendable {
    /// What marks a side where text is hidden: the ellipsis the browser cuts text with.
    package static let clipMark = "…"

    /// The narrowest field that shows clipping marks: a mark, a wide character under the
    /// cursor, a mark. Narrower fields show text to the very edge, unmarked.
    package static let minimumWidthForMarks = 4

    /// The field's columns.
    package let width: Int

    /// What each column shows, `width` of them, as `ScreenGrid` cells hold text: a cell's
    /// scalars, `""` for the second column of a wide character, `" "` where nothing is (past
    /// the end, or half of a wide character cut by the edge or a mark), `clipMark` for a mark.
    package let columns: [String]

    /// The column of the whole line shown in the field's first column: how far it is
    /// scrolled. 0 when the start of the line is shown.
    package let firstColumn: Int

    /// The columns the whole line takes.
    package let lineWidth: Int

    /// The field column of the cursor, `0..<width` (0 for an empty field): where the
    /// character under the cursor starts, or the column after the end of the line.
    package let cursorColumn: Int

    /// The columns the cursor covers from `cursorColumn`: those of the character under it
    /// that the layout keeps on screen (2 for a wide character, 6 for a family of three
    /// emoji when the field has room), 1 at the end of the line.
    package let cursorWidth: Int

    /// True when the first column shows `clipMark` for text hidden on the left.
    package let showsLeftMark: Bool

    /// True when the last column shows `clipMark` for text hidden on the right.
    package let showsRightMark: Bool

    /// True when some of the line is hidden on the left (marked when wide enough).
    package var leftClipped: Bool { firstColumn > 0 }

    /// True when some of the line is hidden on the right (marked when wide enough).
    package var rightClipped: Bool { lineWidth > firstColumn + width }

    /// The field as text: the columns joined (a wide character once), what tests compare.
    package var visible: String { columns.joined() }

    /// Paints the field into `grid` from (`x`, `y`): text in `role`, marks in `markRole`,
    /// and the cursor's character (`cursorWidth` columns) in `cursorRole` when given,
    /// as a visible caret for a terminal whose own cursor is hidden. Columns outside the
    /// grid are skipped; a wide character cut by the grid's edge is drawn as a space.
    package func draw(into grid: inout ScreenGrid, x: Int, y: Int, role: StyleRole,
                      markRole: StyleRole = .marker, cursorRole: StyleRole? = nil) {
        guard y >= 0, y < grid.height else { return }
        for index in 0..<width {
            let column = x + index
            guard column >= 0, column < grid.width else { continue }
            var text = columns[index]
            let wideStart = index + 1 < width && columns[index + 1].isEmpty && !text.isEmpty
            if wideStart, column + 1 >= grid.width { text = " " }            // its second half falls off the grid
            if text.isEmpty, column == 0 { text = " " }                       // its first half fell off the grid
            let isMark = (index == 0 && showsLeftMark) || (index == width - 1 && showsRightMark)
            let isCursor = index >= cursorColumn && index < cursorColumn + cursorWidth
            let cellRole = isMark ? markRole : (isCursor ? cursorRole ?? role : role)
            grid[column, y] = Cell(text, role: cellRole)
        }
    }
}
