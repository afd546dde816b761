import CSQLite

/// Questions about SQL text that SQLite's own tokenizer answers, for tools that read SQL as
/// it is typed.
public enum SQLText {
    /// True when `sql` ends with a complete statement, as the sqlite3 shell decides whether
    /// to run what was typed or read another line (`sqlite3_complete`): a `;` that is not
    /// inside a string, identifier, comment or trigger body ends it.
    public static func isComplete(_ sql: String) -> Bool {
        sqlite3_complete(sql) != 0
    }

    /// The statements of `sql`, each with the offsets (in characters) it spans: split at
    /// each `;` that completes a statement as `isComplete` decides (not one inside a string,
    /// comment or trigger body). A last statement without its `;` is one too; text of
    /// nothing but blanks, comments and `;` is none.
    public static func statements(in sql: String) -> [(text: String, range: Range<Int>)] {
        var out: [(text: String, range: Range<Int>)] = []
        var current = "", start = 0
        for (offset, character) in sql.enumerated() {
            current.append(character)
            guard character == ";", isComplete(current) else { continue }
            if holdsCode(current) { out.append((current, start..<(offset + 1))) }
            current = ""
            start = offset + 1
        }
        if holdsCode(current) { out.append((current, start..<(start + current.count))) }
        return out
    }

    /// True when `sql` holds more than blanks, comments (`--` to the line's end, `/* */`)
    /// and `;`.
    static func holdsCode(_ sql: String) -> Bool {
        var characters = sql[...]
        while let first = characters.first {
            if first.isWhitespace || first == ";" {
                characters = characters.dropFirst()
            } else if characters.hasPrefix("--") {
                characters = characters.drop { $0 != "\n" }
            } else if characters.hasPrefix("/*") {
                guard let end = characters.range(of: "*/") else { return false }
                characters = characters[end.upperBound...]
            } else {
                return true
            }
        }
        return false
    }
}
