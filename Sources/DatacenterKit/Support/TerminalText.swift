/// Text as a terminal shows it: how many columns it takes, and a form safe to print.
///
/// Used by the command line's tables and the browser's grid alike, so both align wide
/// characters and neutralize control characters the same way.
public enum TerminalText {
    /// Columns a character takes: 0 (combining marks, joiners, variation selectors),
    /// 2 (CJK, Hangul, full-width forms, emoji), else 1.
    public static func width(of character: Character) -> Int {
        if let ascii = character.asciiValue { return ascii >= 0x20 && ascii < 0x7F ? 1 : 0 }
        var columns = 0
        for scalar in character.unicodeScalars {
            // An emoji presentation selector widens the character it follows.
            if scalar.value == 0xFE0F { columns = max(columns, 2) }
            columns = max(columns, width(of: scalar))
        }
        return columns
    }

    /// Columns a single scalar takes (0, 1 or 2).
    public static func width(of scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x7F { return v >= 0x20 ? 1 : 0 }   // ASCII: no table lookups
        if scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .enclosingMark
            || v == 0x200B || v == 0x200C || v == 0x200D || (0xFE00...0xFE0F).contains(v) { return 0 }
        let wide = (0x1100...0x115F).contains(v) || (0x2E80...0x303E).contains(v) || (0x3041...0x33FF).contains(v)
            || (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0xA000...0xA4CF).contains(v)
            || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v)
            || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1F64F).contains(v)
            || (0x1F900...0x1F9FF).contains(v) || (0x1FA70...0x1FAFF).contains(v) || (0x20000...0x3FFFD).contains(v)
        return wide ? 2 : 1
    }

    /// Columns `text` takes.
    public static func width(of text: String) -> Int {
        // Printable ASCII (the common case) is one column a byte.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return text.reduce(0) { $0 + width(of: $1) }
    }

    /// `text` made safe for one terminal line: newlines, tabs and other control characters
    /// (escape sequences included) are shown as `\n`, `\t`, `\u{1b}`…, never sent to the
    /// terminal. Cut to `limit` columns with a trailing `…` when longer.
    public static func visible(_ text: String, limit: Int = .max) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return text.utf8.count <= limit ? text : String(text.prefix(limit)) + "…"
        }
        var out = ""
        var columns = 0
        for character in text {
            let piece = escaped(character)
            let w = piece == nil ? width(of: character) : piece!.count
            if columns + w > limit { return out + "…" }
            if let piece { out += piece } else { out.append(character) }
            columns += w
        }
        return out
    }

    /// The escaped form of a control character, or nil for a printable one.
    public static func escaped(_ character: Character) -> String? {
        if let ascii = character.asciiValue, ascii >= 0x20, ascii < 0x7F { return nil }
        guard character.unicodeScalars.contains(where: isControl) else { return nil }
        var out = ""
        for scalar in character.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where isControl(scalar): out += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// True for C0 and C1 control characters and DEL, and the bidirectional overrides that
    /// could reorder what follows them on screen.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x20 || (0x7F...0x9F).contains(v) || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }
}
