import DatacenterKit

/// Tab in the console: the word before the cursor completed from the store's table, view
/// and column names, the SQL keywords a query is made of, and the dot-commands.
///
/// One candidate replaces the word (a name that is not a plain identifier in quotes);
/// several complete it as far as they agree, and are listed for the status line. A
/// keyword takes the case of what was typed, so `sel` gives `select` and `SEL` `SELECT`.
///
/// After `q.`, where `q` is a table or an alias the text gives one (`FROM messages m`,
/// `JOIN users AS u`), only that table's columns are offered; the aliases are offered
/// with the names.
struct SQLCompletion: Equatable {
    /// The store's tables and views, each with its columns, as SQLite spells them.
    let tables: [String: [String]]
    /// The store's names (tables, views, columns), as SQLite spells them.
    let names: [String]

    /// Completion over `tables` (name → columns).
    init(tables: [String: [String]]) {
        self.tables = tables
        var seen = Set<String>()
        names = (tables.keys.sorted() + tables.keys.sorted().flatMap { tables[$0] ?? [] }).filter { seen.insert($0).inserted }
    }

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
        let aliases = Self.aliases(in: String(text))
        if isDotCommand {
            offered = ConsoleDotCommand.helpLines.compactMap { $0.split(separator: " ").first.map(String.init) }
        } else if let qualifier = Self.qualifier(before: start, in: text) {
            // `q.col`: the columns of the table `q` is, or names.
            let table = aliases[qualifier.lowercased()] ?? qualifier
            guard let columns = tables.first(where: { $0.key.lowercased() == table.lowercased() })?.value else { return nil }
            offered = columns
        } else {
            let allLower = typed == lowered
            offered = names + aliases.keys.sorted() + Self.keywords.map { allLower ? $0.lowercased() : $0 }
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

    /// The word before the `.` that ends right before `start`, if any (`m` in `m.con`).
    static func qualifier(before start: Int, in text: [Character]) -> String? {
        guard start >= 2, text[start - 1] == "." else { return nil }
        var first = start - 1
        while first > 0, isWordCharacter(text[first - 1]) { first -= 1 }
        guard first < start - 1 else { return nil }
        return String(text[first..<(start - 1)])
    }

    /// The aliases the text gives tables (`FROM messages m`, `JOIN users AS u`, `FROM a x,
    /// b y`), lowercased alias → table as written.
    static func aliases(in text: String) -> [String: String] {
        // Words (quoted names unquoted) and the commas between them.
        var tokens: [String] = []
        var current = ""
        var quote: Character?
        for c in text {
            if let q = quote {
                if c == q { quote = nil; tokens.append(current); current = "" } else { current.append(c) }
            } else if c == "\"" || c == "`" || c == "[" {
                if !current.isEmpty { tokens.append(current); current = "" }
                quote = c == "[" ? "]" : c
            } else if isWordCharacter(c) {
                current.append(c)
            } else {
                if !current.isEmpty { tokens.append(current); current = "" }
                if c == "," || c == "(" || c == ")" { tokens.append(String(c)) }
            }
        }
        if !current.isEmpty { tokens.append(current) }
        var aliases: [String: String] = [:]
        var index = 0
        while index < tokens.count {
            let word = tokens[index].uppercased()
            index += 1
            guard word == "FROM" || word == "JOIN" else { continue }
            while index < tokens.count {
                let table = tokens[index]
                index += 1
                guard table != "(" else { break }
                if index < tokens.count, tokens[index].uppercased() == "AS" { index += 1 }
                if index < tokens.count, tokens[index] != ",", !keywords.contains(tokens[index].uppercased()),
                   !["LEFT", "RIGHT", "FULL", "NATURAL", "INNER", "OUTER", "CROSS", "JOIN", "ON", "USING", "WHERE"].contains(tokens[index].uppercased()) {
                    aliases[tokens[index].lowercased()] = table
                    index += 1
                }
                guard index < tokens.count, tokens[index] == "," else { break }
                index += 1
            }
        }
        return aliases
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
