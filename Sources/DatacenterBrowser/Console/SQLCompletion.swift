import DatacenterKit

/// Tab in the console: the word before the cursor completed from the store's table, view
/// and column names, the SQL keywords a query is made of, and the dot-commands.
///
/// One candidate replaces the word (a name that is not a plain identifier in quotes);
/// several complete it as far as they agree, and are listed for the status line. A
/// keyword takes the case of what was typed, so `sel` gives `select` and `SEL` `SELECT`.
struct SQLCompletion: Equatable {
    /// The store's names (tables, views, columns), as SQLite spells them.
    let names: [String]

    /// The keywords offered besides the names.
    static let keywords = [
        "SELECT", "FROM", "WHERE", "GROUP", "BY", "ORDER", "HAVING", "LIMIT", "OFFSET", "JOIN", "LEFT", "INNER", "CROSS", "ON",
        "USING", "AS", "AND", "OR", "NOT", "NULL", "IS", "IN", "LIKE", "GLOB", "BETWEEN", "DISTINCT", "UNION", "ALL",
        "INTERSECT", "EXCEPT", "CASE", "WHEN", "THEN", "ELSE", "END", "EXISTS", "WITH", "RECURSIVE", "VALUES", "EXPLAIN",
        "QUERY", "PLAN", "PRAGMA", "CAST", "ASC", "DESC", "COLLATE", "NOCASE", "COUNT", "SUM", "MIN", "MAX", "AVG",
        "LENGTH", "LOWER", "UPPER", "SUBSTR", "TYPEOF", "HEX", "COALESCE", "IFNULL",
    ]

    /// What Tab does to the text.
    struct Result: Equatable {
        /// Where the completed word starts (a character index); it ends at the cursor.
        let start: Int
        /// The text that replaces the word.
        let replacement: String
        /// Every word that fits, when more than one does (for the status line).
        let candidates: [String]
    }

    /// The completion of the word ending at `cursor` in `text`; nil when no word is being
    /// typed there or nothing fits it.
    func complete(_ text: [Character], cursor: Int) -> Result? {
        var start = cursor
        while start > 0, Self.isWordCharacter(text[start - 1]) { start -= 1 }
        let isDotCommand = start == 1 && text[0] == "."
        if isDotCommand { start = 0 }
        let typed = String(text[start..<cursor])
        guard !typed.isEmpty, typed != "." else { return nil }
        let lowered = typed.lowercased()
        let offered: [String]
        if isDotCommand {
            offered = ConsoleDotCommand.helpLines.compactMap { $0.split(separator: " ").first.map(String.init) }
        } else {
            let allLower = typed == lowered
            offered = names + Self.keywords.map { allLower ? $0.lowercased() : $0 }
        }
        var seen = Set<String>()
        let candidates = offered.filter { $0.lowercased().hasPrefix(lowered) && seen.insert($0).inserted }
        guard let first = candidates.first else { return nil }
        if candidates.count == 1 {
            let word = isDotCommand || !names.contains(first) || Self.isPlainIdentifier(first) ? first : Database.quoteIdentifier(first)
            return Result(start: start, replacement: word, candidates: [])
        }
        // As far as they all agree, ignoring case; what was typed is kept where they do not.
        var common = Array(first)
        for candidate in candidates.dropFirst() {
            let other = Array(candidate)
            var length = 0
            while length < min(common.count, other.count), common[length].lowercased() == other[length].lowercased() { length += 1 }
            common = Array(common.prefix(length))
        }
        let replacement = common.count > typed.count ? String(common) : typed
        return Result(start: start, replacement: replacement, candidates: candidates)
    }

    /// True for a character of an unquoted SQL identifier.
    static func isWordCharacter(_ character: Character) -> Bool {
        character == "_" || character == "$" || character.isLetter || character.isNumber
    }

    /// True for a name SQL reads without quotes: a letter or `_` first, then word characters.
    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.first, first == "_" || first.isLetter else { return false }
        return name.allSatisfy(isWordCharacter) && !keywords.contains(name.uppercased())
    }
}
