import DatacenterKit
import Foundation

/// What `/` and `?` look for in a grid's cells: text, in any case, or a regular expression
/// (`Ctrl-R` at the search prompt).
///
/// A regular expression has ICU's syntax (that of `NSRegularExpression`: `\d`, `\w`, `(?i)`,
/// lazy quantifiers, as Python's `re` has them) and matches anywhere in the text. Its case
/// is smart, as in vim and ripgrep: a pattern without an uppercase letter ignores case, one
/// with an uppercase letter respects it.
package struct SearchNeedle: Sendable {
    /// The text typed.
    package let text: String
    /// True for a regular expression.
    package let isRegex: Bool
    /// The text lowercased, for a substring search.
    let lowercased: String
    /// The pattern as the search matches it (case-insensitive when smart case says so).
    let pattern: String
    private let regex: NSRegularExpression?

    /// A needle for `text`, a regular expression when `regex`.
    /// - throws: `SearchNeedleError` when `regex` and `text` is not a regular expression.
    package init(_ text: String, regex: Bool = false) throws {
        self.text = text
        self.isRegex = regex
        self.lowercased = text.lowercased()
        if regex {
            let ignoresCase = !text.contains { $0.isUppercase }
            self.pattern = ignoresCase ? "(?i)" + text : text
            do {
                self.regex = try NSRegularExpression(pattern: pattern)
            } catch {
                throw SearchNeedleError(pattern: text)
            }
        } else {
            self.pattern = text
            self.regex = nil
        }
    }

    /// True when `value` holds the needle.
    package func matches(_ value: String) -> Bool {
        guard let regex else { return value.lowercased().contains(lowercased) }
        return regex.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
    }

    /// How the search is named to the user: the text, `/…/` around a regular expression.
    package var described: String { isRegex ? "/\(text)/" : text }
}

/// A search pattern that is not a regular expression.
package struct SearchNeedleError: Error, CustomStringConvertible {
    /// The pattern typed.
    package let pattern: String
    package var description: String { "not a regular expression (ICU syntax): \(pattern)" }
}

/// `regexp(pattern, value)`, which SQLite's `value REGEXP pattern` calls: 1 when the
/// regular expression (ICU syntax, case as written) matches anywhere in the value's text,
/// 0 when not, NULL when either is NULL. Registered on the browser's connections, so a
/// filter (`f`) and the console can use `REGEXP`, and the search runs in SQLite.
package enum SQLRegexp {
    /// Adds `regexp` to `db`.
    package static func register(on db: Database) throws {
        let cache = RegexCache()
        try db.createFunction("regexp", argumentCount: 2, deterministic: true) { values in
            guard let pattern = values[0].stringValue, let text = values[1].sqliteText else { return .null }
            return .integer(try cache.regex(pattern).firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil ? 1 : 0)
        }
    }

    /// The regular expressions a connection's statements use, compiled once: a search
    /// matches one pattern against every row.
    final class RegexCache {
        private var last: (pattern: String, regex: NSRegularExpression)?

        /// `pattern` compiled.
        /// - throws: `SearchNeedleError` when it is not a regular expression (the statement fails with it).
        func regex(_ pattern: String) throws -> NSRegularExpression {
            if let last, last.pattern == pattern { return last.regex }
            guard let regex = try? NSRegularExpression(pattern: pattern) else { throw SearchNeedleError(pattern: pattern) }
            last = (pattern, regex)
            return regex
        }
    }
}
