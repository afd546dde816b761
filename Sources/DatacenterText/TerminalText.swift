import CWidth
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Text as a terminal shows it: how many columns it takes, and a form safe to print.
///
/// Used by the command line's tables and the browser's grid alike, so both align wide
/// characters and neutralize control characters the same way. Widths are the ones ncursesw
/// uses to place what it draws: the C library's `wcwidth`, one Unicode scalar at a time,
/// evaluated under a UTF-8 locale whatever the process's own locale is. A hand-written
/// table drifts from it (emoji such as 🚀 ✅ ⌚ ⚡ 🀄 are two columns there), and every such
/// drift shifts the rest of a row on screen.
///
/// How text is laid out in cells (see `forEachCell(in:_:)`):
/// - a scalar of width 1 or 2 starts a cell of that many columns;
/// - a zero-width scalar (combining mark, zero-width joiner U+200D, variation selector) joins
///   the cell before it, the way curses keeps it in the same `cchar_t`: the family 👨‍👩‍👧 is
///   three cells of 2 columns, 👨+ZWJ, 👩+ZWJ, 👧, so 6 columns, and no scalar is lost; one
///   with no cell before it in the text (at the start, or after an escape) is drawn on a
///   space, one column, rather than on whatever the terminal shows to its left;
/// - control characters (`isControl`) are shown escaped (`\n`, `\t`, `\u{1b}`…), one column
///   per character of the escape, never sent to the terminal;
/// - a scalar `wcwidth` calls unprintable (-1) that is no control character (an unassigned
///   code point such as an emoji newer than the C library's tables, a noncharacter, U+2028)
///   is shown escaped too (`\u{1fae8}`): the terminal's idea of its width is unknown (a
///   newer terminal draws a new emoji two columns wide where curses counts one), so only an
///   escape keeps the row's columns where the layout put them.
///
/// Without any UTF-8 locale on the system, every non-ASCII scalar counts as unprintable and
/// is shown escaped: wrong-looking, but the columns still line up.
package enum TerminalText {
    /// Columns `text` takes as the grid draws it and as `visible` prints it: the sum of its
    /// cells (see the type's notes), control and unprintable scalars counted as their escapes.
    ///
    /// For example, `width(of: "a👨‍👩‍👧")` is 7 and `width(of: "e\u{301}")` is 1.
    package static func width(of text: String) -> Int {
        // Printable ASCII (the common case) is one column a byte: no locale, no cells.
        if isPrintableASCII(text) { return text.utf8.count }
        var columns = 0
        forEachCell(in: text) { _, width in
            columns += width
            return true
        }
        return columns
    }

    /// `min(limit, width(of: text))`, reading no more of `text` than it takes to tell: what
    /// a column is fitted to, where a long value's cells past `limit` change nothing. (A cell
    /// only adds columns, so the count can stop once it reaches `limit`.)
    package static func width(of text: String, upTo limit: Int) -> Int {
        guard limit > 0 else { return 0 }
        // Printable ASCII, the common case: one column a byte.
        var columns = 0
        for byte in text.utf8 {
            guard byte >= 0x20 && byte < 0x7F else { columns = -1; break }
            columns += 1
            if columns >= limit { return limit }
        }
        if columns >= 0 { return columns }
        columns = 0
        forEachCell(in: text) { _, width in
            columns += width
            return columns < limit
        }
        return min(limit, columns)
    }

    /// Columns a character takes on its own: `width(of: String(character))`. A character
    /// (grapheme) may be several cells: the family 👨‍👩‍👧 is one character of 6 columns.
    package static func width(of character: Character) -> Int {
        if let ascii = character.asciiValue, ascii >= 0x20, ascii < 0x7F { return 1 }
        return width(of: String(character))
    }

    /// Columns a scalar adds after a spacing one: its `wcwidth` under a UTF-8 locale (0 for
    /// combining marks, joiners and variation selectors, 2 for wide ones), or the length of
    /// its escape for a control or unprintable scalar.
    package static func width(of scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v >= 0x20 && v < 0x7F { return 1 }   // printable ASCII: no library call
        if isControl(scalar) { return escape(scalar).count }
        let columns = wcwidthUTF8(scalar)
        return columns < 0 ? escape(scalar).count : columns
    }

    /// Walks `text` cell by cell as a terminal draws it: `body` gets each cell's text (one
    /// spacing scalar and the zero-width scalars that follow it, or one character of an
    /// escape) and its width, 1 or 2, and returns false to stop. A cell is handed over whole,
    /// so stopping never drops a zero-width scalar of a cell already given, and never splits
    /// a wide one. This is the one layout behind `width`, `visible`, the browser's grid and
    /// its inspector.
    package static func forEachCell(in text: String, _ body: (_ cell: String, _ width: Int) -> Bool) {
        var cell = ""
        var cellWidth = 0          // 0: no cell open that a zero-width scalar may join
        var stopped = false
        /// Hands the open cell to `body`; false once `body` said stop.
        func flush() -> Bool {
            guard cellWidth > 0 else { return true }
            let go = body(cell, cellWidth)
            cell = ""
            cellWidth = 0
            return go
        }
        /// Hands each character of an escape to `body`, one column each.
        func emit(escape: String) -> Bool {
            for character in escape where !body(String(character), 1) { return false }
            return true
        }
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v >= 0x20 && v < 0x7F {
                guard flush() else { stopped = true; break }
                cell.unicodeScalars.append(scalar)
                cellWidth = 1
                continue
            }
            let columns = isControl(scalar) ? -1 : wcwidthUTF8(scalar)
            if columns < 0 {
                guard flush(), emit(escape: escape(scalar)) else { stopped = true; break }
            } else if columns == 0 {
                if cellWidth == 0 {
                    cell = " "     // nothing in this text to join: draw it on a space
                    cellWidth = 1
                }
                cell.unicodeScalars.append(scalar)
            } else {
                guard flush() else { stopped = true; break }
                cell.unicodeScalars.append(scalar)
                cellWidth = columns
            }
        }
        if !stopped { _ = flush() }
    }

    /// `text` made safe for one terminal line: newlines, tabs and other control characters
    /// (escape sequences included) and unprintable scalars are shown as `\n`, `\t`,
    /// `\u{1b}`…, never sent to the terminal. Cut to `limit` columns with a trailing `…` when
    /// longer (so the result may take `limit + 1` columns). A cut falls between cells: a wide
    /// character is never split, and the zero-width scalars of a cell shown stay with it.
    package static func visible(_ text: String, limit: Int = .max) -> String {
        if isPrintableASCII(text) {
            // One character a byte: cut the bytes (a `Character` prefix walks graphemes).
            return text.utf8.count <= limit ? text : String(decoding: text.utf8.prefix(max(0, limit)), as: UTF8.self) + "…"
        }
        var out = ""
        var columns = 0
        forEachCell(in: text) { cell, width in
            if columns + width > limit {
                out += "…"
                return false
            }
            out += cell
            columns += width
            return true
        }
        return out
    }

    /// The escaped form of a character holding a control or unprintable scalar (its other
    /// scalars kept as they are), or nil for a printable one.
    package static func escaped(_ character: Character) -> String? {
        if let ascii = character.asciiValue, ascii >= 0x20, ascii < 0x7F { return nil }
        guard character.unicodeScalars.contains(where: needsEscape) else { return nil }
        var out = ""
        for scalar in character.unicodeScalars {
            if needsEscape(scalar) { out += escape(scalar) } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// True for C0 and C1 control characters and DEL, the bidirectional marks, embeddings,
    /// overrides and isolates that could reorder what follows them on screen (U+061C,
    /// U+200E–F, U+202A–E, U+2066–9), and the invisible characters that would hide in a value
    /// (U+200B zero width space, U+2060 word joiner, U+FEFF byte-order mark). Joiners inside
    /// emoji (U+200D) and combining marks are drawn as they are.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x20 || (0x7F...0x9F).contains(v) || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
            || invisible.contains(v)
    }

    /// The invisible and bidirectional marks escaped besides the ranges in `isControl`.
    private static let invisible: Set<UInt32> = [0x061C, 0x200B, 0x200E, 0x200F, 0x2060, 0xFEFF]

    // MARK: - Private

    /// True when every byte of `text` is printable ASCII (one column, shown as it is).
    package static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// True for a scalar shown as an escape: a control character, or one `wcwidth` calls
    /// unprintable.
    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v >= 0x20 && v < 0x7F { return false }
        return isControl(scalar) || wcwidthUTF8(scalar) < 0
    }

    /// `\n`, `\r`, `\t`, else `\u{hex}`.
    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        default: return "\\u{" + String(scalar.value, radix: 16) + "}"
        }
    }

    /// A UTF-8 character-type locale, made once: `wcwidth` answers for the locale of the
    /// calling thread, and the process's may be "C" (every non-ASCII scalar unprintable).
    private struct UTF8Locale: @unchecked Sendable {   // an immutable C handle, never freed
        let handle: locale_t?
    }

    private static let utf8Locale = UTF8Locale(handle:
        newlocale(LC_CTYPE_MASK, "C.UTF-8", nil) ?? newlocale(LC_CTYPE_MASK, "en_US.UTF-8", nil))

    /// `wcwidth(scalar)` under the UTF-8 locale, switched for this thread around the call
    /// only (two thread-local stores): -1, 0, 1 or 2. -1 when there is no UTF-8 locale.
    private static func wcwidthUTF8(_ scalar: Unicode.Scalar) -> Int {
        guard let locale = utf8Locale.handle else { return -1 }
        return Int(dc_wcwidth_in(locale, scalar.value))
    }
}
