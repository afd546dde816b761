/// Short, terminal-safe excerpts of text that came from a file or a database, for error
/// messages: a dump's statement, the SQL that failed, a token SQLite quotes. Whatever the
/// source holds (binary bytes, escape sequences, megabytes on one line), an error line shows
/// at most `limit` columns of it, control characters escaped (`TerminalText.visible`).
public enum TextExcerpt {
    /// The most columns of source text an error message shows.
    public static let defaultLimit = 60

    /// `text`, trimmed of surrounding white space, escaped and cut to `limit` columns (with
    /// a trailing `…` when cut).
    public static func of(_ text: String, limit: Int = defaultLimit) -> String {
        var trimmed = Substring(text)
        while let first = trimmed.first, first.isWhitespace { trimmed = trimmed.dropFirst() }
        while let last = trimmed.last, last.isWhitespace { trimmed = trimmed.dropLast() }
        // Only a bounded prefix is looked at: a huge text costs no more than a short one.
        return TerminalText.visible(String(trimmed.prefix(limit * 2 + 8)), limit: limit)
    }

    /// A message (such as SQLite's `unrecognized token: "…"`) made safe: each part between
    /// double quotes cut to an excerpt of `quotedLimit` columns, the whole escaped and cut to
    /// `quotedLimit` plus room for the message's own words.
    public static func message(_ text: String, quotedLimit: Int = defaultLimit) -> String {
        var out = ""
        var quoted = ""
        var inQuotes = false
        for character in text.prefix(4 * quotedLimit + 200) {
            if character == "\"" {
                if inQuotes {
                    out += "\"" + of(quoted, limit: quotedLimit) + "\""
                    quoted = ""
                }
                inQuotes.toggle()
            } else if inQuotes {
                quoted.append(character)
            } else {
                out.append(character)
            }
        }
        if inQuotes { out += "\"" + of(quoted, limit: quotedLimit) }
        return TerminalText.visible(out, limit: quotedLimit + 120)
    }
}
