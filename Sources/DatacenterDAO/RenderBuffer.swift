import DatacenterKit

/// SQL under construction: template text, bound values and inlined values, kept apart until
/// `finish` so that `trim` can inspect the text, inlined values are never re-read as
/// template (their quotes cannot confuse anything), and the preview can mark them.
struct RenderBuffer: Sendable {
    enum Piece: Sendable, Equatable {
        /// Template text from the config.
        case text(String)
        /// A `#{}` value, bound as `?`; `encrypted` when a crypt rule covers it.
        case bound(DAOValue, encrypted: Bool)
        /// A `@{}` value formatted into the SQL.
        case inlined(String)
    }

    private(set) var pieces: [Piece] = []
    /// The quote the template text is inside of (`'` or `"`), if any: a `@{}` inside a quoted
    /// template literal is not quoted again.
    private(set) var openQuote: Character?

    init(openQuote: Character? = nil) { self.openQuote = openQuote }

    mutating func append(text: String) {
        guard !text.isEmpty else { return }
        for c in text where c == "'" || c == "\"" {
            if openQuote == nil { openQuote = c } else if openQuote == c { openQuote = nil }
        }
        if case .text(let previous)? = pieces.last {
            pieces[pieces.count - 1] = .text(previous + text)
        } else {
            pieces.append(.text(text))
        }
    }

    mutating func append(bound value: DAOValue, encrypted: Bool) { pieces.append(.bound(value, encrypted: encrypted)) }
    mutating func append(inlined text: String) { pieces.append(.inlined(text)) }

    mutating func append(_ other: RenderBuffer) {
        for piece in other.pieces {
            switch piece {
            case .text(let t): append(text: t)
            default: pieces.append(piece)
            }
        }
    }

    /// True when nothing but whitespace was rendered.
    var isBlank: Bool {
        pieces.allSatisfy { if case .text(let t) = $0 { return t.allSatisfy(\.isWhitespace) } else { return false } }
    }

    /// Removes surrounding whitespace (used for each `foreach` iteration).
    mutating func trimWhitespace() {
        if case .text(let t)? = pieces.first {
            let trimmed = String(t.drop(while: \.isWhitespace))
            if trimmed.isEmpty { pieces.removeFirst() } else { pieces[0] = .text(trimmed) }
        }
        if case .text(let t)? = pieces.last {
            var trimmed = t
            while trimmed.last?.isWhitespace == true { trimmed.removeLast() }
            if trimmed.isEmpty { pieces.removeLast() } else { pieces[pieces.count - 1] = .text(trimmed) }
        }
    }

    /// Strips the first matching override from the start of the text (`AND `, `OR `, …).
    ///
    /// An override written with trailing whitespace matches its word followed by any
    /// whitespace or `(`, case-insensitively; one without matches its characters exactly
    /// (case-insensitively).
    mutating func stripPrefix(_ overrides: [String]) {
        trimWhitespace()
        guard case .text(let t)? = pieces.first else { return }
        for override in overrides {
            let word = override.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !word.isEmpty, t.count >= word.count else { continue }
            let head = t.prefix(word.count)
            guard head.lowercased() == word.lowercased() else { continue }
            let rest = t.dropFirst(word.count)
            if override.last?.isWhitespace == true {
                guard let next = rest.first else {
                    // The word ends this piece: a value follows it directly, as in `AND#{x}`.
                    if pieces.count == 1 { pieces.removeFirst(); return }
                    continue
                }
                guard next.isWhitespace || next == "(" else { continue }
            }
            if rest.isEmpty { pieces.removeFirst() } else { pieces[0] = .text(String(rest)) }
            return
        }
    }

    /// Strips the first matching override from the end of the text (`,` for `set`).
    mutating func stripSuffix(_ overrides: [String]) {
        trimWhitespace()
        guard case .text(let t)? = pieces.last else { return }
        for override in overrides {
            let word = override.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !word.isEmpty, t.count >= word.count else { continue }
            guard t.suffix(word.count).lowercased() == word.lowercased() else { continue }
            let rest = t.dropLast(word.count)
            if override.first?.isWhitespace == true, let before = rest.last, !before.isWhitespace, before != ")" { continue }
            if rest.isEmpty { pieces.removeLast() } else { pieces[pieces.count - 1] = .text(String(rest)) }
            return
        }
    }

    /// The SQL text, bindings and preview.
    ///
    /// Whitespace in template text outside quotes collapses to one space and the ends are
    /// trimmed, so config indentation never reaches SQLite and the text is stable; a `--`
    /// comment keeps its ending newline. Inlined values are copied verbatim.
    func finish(location: SourceLocation?) -> RenderedSQL {
        var sql = ""
        var preview = ""
        var bindings: [DatabaseValue] = []
        var encrypted: [Int] = []
        var quote: Character?
        var pendingSpace = false
        var inComment = false
        var previous: Character = " "

        func emit(_ s: String, _ p: String) {
            if pendingSpace && !sql.isEmpty && sql.last != "\n" { sql.append(" "); preview.append(" ") }
            pendingSpace = false
            sql += s
            preview += p
        }

        for piece in pieces {
            switch piece {
            case .text(let text):
                for c in text {
                    if inComment {
                        if c == "\n" { inComment = false; sql.append("\n"); preview.append("\n"); pendingSpace = false; previous = c; continue }
                        sql.append(c); preview.append(c); previous = c
                        continue
                    }
                    if let q = quote {
                        sql.append(c); preview.append(c)
                        if c == q { quote = nil }
                        previous = c
                        continue
                    }
                    if c.isWhitespace { pendingSpace = true; previous = c; continue }
                    if c == "'" || c == "\"" { quote = c }
                    if c == "-" && previous == "-" && !pendingSpace { inComment = true }
                    emit(String(c), String(c))
                    previous = c
                }
            case .bound(let value, let isEncrypted):
                if isEncrypted { encrypted.append(bindings.count) }
                bindings.append(value.databaseValue)
                emit("?", value.databaseValue.description + (isEncrypted ? "/*encrypted*/" : ""))
                previous = "?"
            case .inlined(let text):
                emit(text, "⟦" + text + "⟧")
                previous = text.last ?? previous
            }
        }
        return RenderedSQL(sql: sql, bindings: bindings, preview: preview, encryptedBindings: encrypted,
                           skipped: false, location: location)
    }
}
