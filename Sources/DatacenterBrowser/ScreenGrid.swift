import DatacenterKit

/// What a cell means on screen; a theme maps each role to colours and attributes.
public enum StyleRole: String, CaseIterable, Sendable {
    case header, status, tree, treeSelected = "tree-selected", grid, gridHeader = "grid-header",
         gridSelected = "grid-selected", decrypted, locked, null, blob, marker, staged, error, dialog
}

/// One terminal cell: a character (one grapheme) and its role. The second cell of a wide
/// character holds `""`.
public struct Cell: Equatable, Sendable {
    public var text: String
    public var role: StyleRole

    public init(_ text: String = " ", role: StyleRole = .grid) {
        self.text = text
        self.role = role
    }
}

/// The screen as the browser draws it: a width × height grid of cells, drawn by the curses
/// edge and compared as text by tests.
public struct ScreenGrid: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: Cell(), count: self.width * self.height)
    }

    /// The cell at column `x`, line `y`.
    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set { cells[y * width + x] = newValue }
    }

    /// Paints `count` cells of line `y` from column `x` with spaces of `role`.
    public mutating func fill(x: Int, y: Int, count: Int, role: StyleRole) {
        guard y >= 0, y < height else { return }
        for column in max(0, x)..<min(width, x + count) { self[column, y] = Cell(" ", role: role) }
    }

    /// Writes `text` at (`x`, `y`), at most `maxWidth` columns, and returns the columns used.
    /// Control characters are shown escaped (never sent to the terminal); a wide character
    /// that would not fit whole is replaced by a space.
    @discardableResult
    public mutating func write(_ text: String, x: Int, y: Int, maxWidth: Int, role: StyleRole) -> Int {
        guard y >= 0, y < height, x < width, x >= 0 else { return 0 }
        let limit = min(maxWidth, width - x)
        // Printable ASCII, the common case: one cell a byte, no grapheme work.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            var column = 0
            for byte in text.utf8 where column < limit {
                self[x + column, y] = Cell(String(Unicode.Scalar(byte)), role: role)
                column += 1
            }
            return column
        }
        var column = 0
        for character in text {
            let pieces: [Character] = TerminalText.escaped(character).map { Array($0) } ?? [character]
            for piece in pieces {
                let w = TerminalText.width(of: piece)
                if w == 0 { continue }
                if column + w > limit {
                    if column < limit { self[x + column, y] = Cell(" ", role: role); column += 1 }
                    return column
                }
                self[x + column, y] = Cell(String(piece), role: role)
                if w == 2 { self[x + column + 1, y] = Cell("", role: role) }
                column += w
            }
        }
        return column
    }

    /// The screen as lines of text (wide characters once, trailing spaces kept so columns
    /// line up): what snapshot tests compare.
    public func lines() -> [String] {
        (0..<height).map { y in (0..<width).map { self[$0, y].text }.joined() }
    }

    /// The lines joined with newlines, trailing spaces removed per line.
    public var text: String {
        lines().map { line in String(line.reversed().drop(while: { $0 == " " }).reversed()) }.joined(separator: "\n")
    }
}
