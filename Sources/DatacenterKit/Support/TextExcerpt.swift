import DatacenterText

/// Short, terminal-safe excerpts of text that came from a file or a database, for error
/// messages: a dump's statement, the SQL that failed, a token SQLite quotes. Whatever the
/// source holds (binary bytes, escape sequences, megabytes on one line), an error line shows
/// at most `limit` columns of it, control characters escaped (`TerminalText.visible`).
package enum TextExcerpt {
    /// The most columns of source text an error message shows.
    package static let defaultLimit = 60

    /// `text`, trimmed of surrounding white space, escaped and cut to `limit` columns (with
    /// a trailing `…` when cut).
    package static func of(_ text: String, limit: Int = defaultLimit) -> String {
        var trimmed = Substring(text)
        while let first = trimmed.first, first.isWhitespace { trimmed = trimmed.dropFirst() }
        while let last = trimmed.last, last.isWhitespace { trimmed = trimmed.dropLast() }
        // Only a bounded prefix is looked at: a huge text costs no more than a short one.
        return TerminalText.visible(String(trimmed.prefix(limit * 2 + 8)), limit: limit)
    }

    /// A message (such as SQLite's `unrecognized token: "…"` or `near "…": syntax error`)
    /// made safe: the part between its first and last double quote — the source text SQLite
    /// quotes, which may itself hold quotes — cut to an excerpt of `quotedLimit` columns, as is
    /// any other word longer than that (`no such table: <name>`), and the whole escaped and
    /// cut to `quotedLimit` plus room for the message's own words.
    package static func message(_ text: String, quotedLimit: Int = defaultLimit) -> String {
        let bounded = String(text.prefix(8 * quotedLimit + 400))
        var out = bounded
        if let open = bounded.firstIndex(of: "\""), let close = bounded.lastIndex(of: "\""), open < close {
            let inner = bounded[bounded.index(after: open)..<close]
            let head = bounded[..<open].split(separator: " ", omittingEmptySubsequences: false)
                .map { TerminalText.visible(String($0), limit: quotedLimit) }.joined(separator: " ")
            let tail = bounded[bounded.index(after: close)...].split(separator: " ", omittingEmptySubsequences: false)
                .map { TerminalText.visible(String($0), limit: quotedLimit) }.joined(separator: " ")
            out = head + "\"" + of(String(inner), limit: quotedLimit) + "\"" + tail
        } else {
            out = bounded.split(separator: " ", omittingEmptySubsequences: false)
                .map { TerminalText.visible(String($0), limit: quotedLimit) }.joined(separator: " ")
        }
        return TerminalText.visible(out, limit: quotedLimit + 100)
    }
}
