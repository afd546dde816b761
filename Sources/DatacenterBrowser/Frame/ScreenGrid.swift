import DatacenterKit
import DatacenterText

/// What a cell means on screen; a theme maps each role to colours and attributes.
package enum StyleRole: String, CaseIterable, Sendable {
    case header, status, tree, treeSelected = "tree-selected", grid, gridHeader = "grid-header",
         gridSelected = "grid-selected", decrypted, locked, null, blob, marker, staged, error, dialog,
         changed
}

/// One terminal cell and its role. Its text is what curses keeps in one `cchar_t`: one
/// spacing scalar and the zero-width scalars that follow it (combining marks, joiners,
/// variation selectors), not a whole grapheme; so the family 👨‍👩‍👧 is drawn as 👨+ZWJ,
/// 👩+ZWJ and 👧, each two columns wide (six in all), as ncursesw counts it. The second cell
/// of a wide character holds `""`. See `TerminalText.forEachCell(in:_:)`.
package struct Cell: Equatable, Sendable {
    /// The cell's scalars; `""` for the second cell of a wide character.
    package var text: String
    /// How the cell is drawn.
    package var role: StyleRole

    /// A cell of `text`: a blank by default.
    package init(_ text: String = " ", role: StyleRole = .grid) {
        self.text = text
        self.role = role
    }
}

/// The screen as the browser draws it: a width × height grid of cells, drawn by the curses
/// edge and compared as text by tests.
package struct ScreenGrid: Equatable, Sendable {
    /// Columns.
    package let width: Int
    /// Lines.
    package let height: Int
    /// The cells line by line, `width` per line.
    package private(set) var cells: [Cell]

    /// A blank screen; a negative size counts as 0.
    package init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: Cell(), count: self.width * self.height)
    }

    /// The text of a cell holding ASCII byte `b`, made once: a frame writes thousands.
    private static let asciiCellTexts: [String] = (0..<128).map { String(Unicode.Scalar(UInt8($0))) }

    /// The cell at column `x`, line `y`.
    package subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set { cells[y * width + x] = newValue }
    }

    /// Calls `body` with each cell a terminal that shows `previous` must be given to show
    /// this grid instead: every cell that differs from `previous`'s, all of them when there
    /// is no previous frame or it is of another size, never the second half of a wide
    /// character (`""`: its first half draws it). The curses edge hands only these to
    /// curses, whose own comparison then has less to do.
    package func forEachCellToDraw(after previous: ScreenGrid?, _ body: (_ x: Int, _ y: Int, _ cell: Cell) -> Void) {
        let previous = previous.flatMap { $0.width == width && $0.height == height ? $0.cells : nil }
        for index in cells.indices {
            let cell = cells[index]
            if cell.text.isEmpty { continue }
            if let previous, previous[index] == cell { continue }
            body(index % width, index / width, cell)
        }
    }

    /// Paints `count` cells of line `y` from column `x` with spaces of `role`.
    package mutating func fill(x: Int, y: Int, count: Int, role: StyleRole) {
        guard y >= 0, y < height else { return }
        for column in max(0, x)..<min(width, x + count) { self[column, y] = Cell(" ", role: role) }
    }

    /// Writes `text` at (`x`, `y`), at most `maxWidth` columns, and returns the columns used.
    /// Laid out cell by cell as `TerminalText.forEachCell(in:_:)` says: control and
    /// unprintable scalars shown escaped (never sent to the terminal), zero-width scalars kept
    /// in the cell before them. The text stops between cells, so nothing is dropped from
    /// what is shown; a wide character that would not fit whole is replaced by a space.
    /// Callers that cut text mark the cut themselves (`…`).
    @discardableResult
    package mutating func write(_ text: String, x: Int, y: Int, maxWidth: Int, role: StyleRole) -> Int {
        guard y >= 0, y < height, x < width, x >= 0 else { return 0 }
        let limit = min(maxWidth, width - x)
        // Printable ASCII, the common case: one cell a byte, no width lookups.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            var column = 0
            for byte in text.utf8 where column < limit {
                self[x + column, y] = Cell(ScreenGrid.asciiCellTexts[Int(byte)], role: role)
                column += 1
            }
            return column
        }
        var column = 0
        TerminalText.forEachCell(in: text) { cell, w in
            if column + w > limit {
                if column < limit { self[x + column, y] = Cell(" ", role: role); column += 1 }
                return false
            }
            self[x + column, y] = Cell(cell, role: role)
            if w == 2 { self[x + column + 1, y] = Cell("", role: role) }
            column += w
            return true
        }
        return column
    }

    /// Writes `text` at (`x`, `y`) in at most `width` columns, ending in a `…` marker (drawn
    /// as `markerRole`, else `role`) when it does not fit whole; returns the columns used.
    /// The cut falls between terminal cells, so the marker follows the last character shown
    /// (no gap when a wide character did not fit) and the zero-width scalars shown stay.
    @discardableResult
    package mutating func writeCut(_ text: String, x: Int, y: Int, width: Int, role: StyleRole, markerRole: StyleRole? = nil) -> Int {
        guard width > 0 else { return 0 }
        // Printable ASCII (most cells, every frame): a byte a column, so what `writeCutByCells`
        // does comes down to the text, or its first `width - 1` bytes and the marker.
        if TerminalText.isPrintableASCII(text) {
            if text.utf8.count <= width { return write(text, x: x, y: y, maxWidth: width, role: role) }
            let used = write(String(decoding: text.utf8.prefix(width - 1), as: UTF8.self), x: x, y: y, maxWidth: width - 1, role: role)
            return used + write("…", x: x + used, y: y, maxWidth: 1, role: markerRole ?? role)
        }
        return writeCutByCells(text, x: x, y: y, width: width, role: role, markerRole: markerRole)
    }

    /// `writeCut` for any text, cell by cell (a test holds the ASCII path above to it).
    @discardableResult
    mutating func writeCutByCells(_ text: String, x: Int, y: Int, width: Int, role: StyleRole, markerRole: StyleRole?) -> Int {
        guard width > 0 else { return 0 }
        // Only what can show is escaped and measured (the text may be long).
        let visible = TerminalText.visible(text, limit: width + 1)
        if TerminalText.width(of: visible) <= width {
            return write(visible, x: x, y: y, maxWidth: width, role: role)
        }
        // Cut to leave the marker its column: what fits in width - 1, then "…".
        let cut = String(TerminalText.visible(text, limit: width - 1).unicodeScalars.dropLast())
        let used = write(cut, x: x, y: y, maxWidth: width - 1, role: role)
        return used + write("…", x: x + used, y: y, maxWidth: 1, role: markerRole ?? role)
    }

    /// The screen as lines of text (each cell's scalars once, so a wide character appears
    /// once and a ZWJ sequence whole; trailing spaces kept so columns line up): what
    /// snapshot tests compare.
    package func lines() -> [String] {
        (0..<height).map { y in (0..<width).map { self[$0, y].text }.joined() }
    }

    /// The lines joined with newlines, trailing spaces removed per line.
    package var text: String {
        lines().map { line in String(line.reversed().drop(while: { $0 == " " }).reversed()) }.joined(separator: "\n")
    }
}
