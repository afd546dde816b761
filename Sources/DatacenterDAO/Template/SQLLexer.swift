/// Where SQL text leaves SQLite's tokenizer: in plain SQL, or inside a string literal, a
/// quoted identifier or a comment. Fed template text piece by piece (`scan`), it says what a
/// reference placed next would stand in, so the config loader can refuse a `@{}`, `#{}` or
/// `${T}` that would land inside quotes or a comment (`TemplateContextCheck`).
///
/// It follows SQLite's tokenizer: `'…'` strings, `"…"`, `` `…` `` and `[…]` identifiers (a
/// doubled quote inside is read as closing and reopening, which ends in the same state),
/// `--` comments to the end of the line and `/* */` comments. A two-byte token split
/// across pieces (`-` then `-`) is tracked through `pending`.
struct SQLLexer: Equatable, Sendable {
    /// What the text so far leaves open.
    enum State: Equatable, Sendable {
        case normal
        case singleQuoted
        case doubleQuoted
        case backtickQuoted
        case bracketQuoted
        case lineComment
        case blockComment

        /// True inside a string literal or a quoted identifier.
        var isQuoted: Bool {
            switch self {
            case .singleQuoted, .doubleQuoted, .backtickQuoted, .bracketQuoted: return true
            case .normal, .lineComment, .blockComment: return false
            }
        }

        /// `text` as it may stand inside these quotes: the quote that would end them doubled,
        /// so nothing in it can end the quoting; nil inside `[…]` when `text` holds `]`
        /// (SQLite has no escape there). Outside quotes, `text` unchanged.
        func doublingClosingQuote(in text: String) -> String? {
            switch self {
            case .singleQuoted: return text.replacingOccurrences(of: "'", with: "''")
            case .doubleQuoted: return text.replacingOccurrences(of: "\"", with: "\"\"")
            case .backtickQuoted: return text.replacingOccurrences(of: "`", with: "``")
            case .bracketQuoted: return text.contains("]") ? nil : text
            case .normal, .lineComment, .blockComment: return text
            }
        }

        /// How an error names it: "a string literal", "a -- comment", ….
        var phrase: String {
            switch self {
            case .normal: return "plain SQL"
            case .singleQuoted: return "a string literal ('…')"
            case .doubleQuoted: return "a quoted identifier (\"…\")"
            case .backtickQuoted: return "a quoted identifier (`…`)"
            case .bracketQuoted: return "a quoted identifier ([…])"
            case .lineComment: return "a -- comment"
            case .blockComment: return "a /* */ comment"
            }
        }
    }

    private(set) var state: State = .normal
    /// The last byte when it may begin a two-byte token (`-` or `/` in plain SQL) or end one
    /// (`*` in a block comment); 0 otherwise.
    private(set) var pending: UInt8 = 0
    /// How many `--` comments have started so far (not part of the state: two lexers that
    /// differ only here read what follows the same way).
    private(set) var lineComments = 0

    static func == (a: SQLLexer, b: SQLLexer) -> Bool { a.state == b.state && a.pending == b.pending }

    /// Reads `text` from the current state.
    mutating func scan(_ text: String) {
        for c in text.utf8 { scan(byte: c) }
    }

    /// A value (a reference's output) was written: it ends any two-byte token in progress.
    mutating func wroteValue() { pending = 0 }

    private mutating func scan(byte c: UInt8) {
        switch state {
        case .normal:
            let previous = pending
            pending = 0
            switch c {
            case UInt8(ascii: "'"): state = .singleQuoted
            case UInt8(ascii: "\""): state = .doubleQuoted
            case UInt8(ascii: "`"): state = .backtickQuoted
            case UInt8(ascii: "["): state = .bracketQuoted
            case UInt8(ascii: "-"):
                if previous == UInt8(ascii: "-") {
                    state = .lineComment
                    lineComments += 1
                } else {
                    pending = c
                }
            case UInt8(ascii: "*"):
                if previous == UInt8(ascii: "/") { state = .blockComment }
            case UInt8(ascii: "/"): pending = c
            default: break
            }
        case .singleQuoted: if c == UInt8(ascii: "'") { state = .normal }
        case .doubleQuoted: if c == UInt8(ascii: "\"") { state = .normal }
        case .backtickQuoted: if c == UInt8(ascii: "`") { state = .normal }
        case .bracketQuoted: if c == UInt8(ascii: "]") { state = .normal }
        case .lineComment: if c == UInt8(ascii: "\n") { state = .normal }
        case .blockComment:
            if c == UInt8(ascii: "/"), pending == UInt8(ascii: "*") {
                state = .normal
                pending = 0
            } else {
                pending = c == UInt8(ascii: "*") ? c : 0
            }
        }
    }
}
