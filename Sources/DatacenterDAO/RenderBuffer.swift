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
        for byte in text.utf8 where byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
            let c = Character(Unicode.Scalar(byte))
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
        pieces.allSatisfy { if case .text(let t) = $0 { return TextScan.isBlank(t) } else { return false } }
    }

    /// Removes surrounding whitespace (used for each `foreach` iteration).
    mutating func trimWhitespace() {
        if case .text(let t)? = pieces.first, let trimmed = TextScan.droppingLeadingWhitespace(t) {
            if trimmed.isEmpty { pieces.removeFirst() } else { pieces[0] = .text(trimmed) }
        }
        if case .text(let t)? = pieces.last, let trimmed = TextScan.droppingTrailingWhitespace(t) {
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
    ///
    /// Works on UTF-8 bytes (every character the rules look at is ASCII); a non-ASCII
    /// whitespace character counts as whitespace, as `Character.isWhitespace` says.
    func finish(location: SourceLocation?) -> RenderedSQL {
        var writer = SQLWriter()
        var bindings: [DatabaseValue] = []
        var encrypted: [Int] = []
        for piece in pieces {
            switch piece {
            case .text(let text):
                var text = text
                text.withUTF8 { writer.template($0) }
            case .bound(let value, let isEncrypted):
                if isEncrypted { encrypted.append(bindings.count) }
                bindings.append(value.databaseValue)
                writer.placeholder()
            case .inlined(let text):
                var text = text
                text.withUTF8 { writer.inlined($0) }
            }
        }
        return RenderedSQL(sql: String(decoding: writer.sql, as: UTF8.self), bindings: bindings, marks: writer.marks,
                           encryptedBindings: encrypted, location: location)
    }
}

/// Writes the SQL of a rendered statement byte by byte (see `RenderBuffer.finish`).
struct SQLWriter {
    var sql: [UInt8] = []
    var marks = PreviewMarks()
    private var quote: UInt8 = 0
    private var pendingSpace = false
    private var inComment = false
    private var previous: UInt8 = 0x20

    init() { sql.reserveCapacity(128) }

    private mutating func separate() {
        if pendingSpace && !sql.isEmpty && sql.last != UInt8(ascii: "\n") { sql.append(UInt8(ascii: " ")) }
        pendingSpace = false
    }

    /// Template text: whitespace outside quotes and comments collapses.
    mutating func template(_ bytes: UnsafeBufferPointer<UInt8>) {
        var i = 0
        let n = bytes.count
        while i < n {
            let c = bytes[i]
            if inComment {
                sql.append(c)
                if c == UInt8(ascii: "\n") { inComment = false; pendingSpace = false }
                previous = c
                i += 1
                continue
            }
            if quote != 0 {
                sql.append(c)
                if c == quote { quote = 0 }
                previous = c
                i += 1
                continue
            }
            if c < 0x80 {
                if TextScan.isASCIIWhitespace(c) { pendingSpace = true; previous = c; i += 1; continue }
                if c == UInt8(ascii: "'") || c == UInt8(ascii: "\"") { quote = c }
                if c == UInt8(ascii: "-") && previous == UInt8(ascii: "-") && !pendingSpace { inComment = true }
                separate()
                sql.append(c)
                previous = c
                i += 1
                continue
            }
            let end = min(i + TextScan.sequenceLength(c), n)
            if TextScan.isWhitespaceScalar(bytes[i..<end]) { pendingSpace = true; previous = 0x20; i = end; continue }
            separate()
            sql.append(contentsOf: bytes[i..<end])
            previous = bytes[end - 1]
            i = end
        }
    }

    /// A `?` for a bound value.
    mutating func placeholder() {
        separate()
        marks.placeholders.append(sql.count)
        sql.append(UInt8(ascii: "?"))
        previous = UInt8(ascii: "?")
    }

    /// An `@{}` value, copied verbatim.
    mutating func inlined(_ bytes: UnsafeBufferPointer<UInt8>) {
        separate()
        let start = sql.count
        sql.append(contentsOf: bytes)
        marks.inlined.append(start..<sql.count)
        if let last = bytes.last { previous = last }
    }
}

/// Byte-level helpers for template text: fast on ASCII, exact for other whitespace.
enum TextScan {
    /// Space, tab, newline, vertical tab, form feed, carriage return.
    @inline(__always) static func isASCIIWhitespace(_ b: UInt8) -> Bool {
        b == 0x20 || (b >= 0x09 && b <= 0x0D)
    }

    /// The length of the UTF-8 sequence a lead byte starts.
    @inline(__always) static func sequenceLength(_ lead: UInt8) -> Int {
        lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
    }

    /// True when `bytes` (one UTF-8 sequence) encode a whitespace scalar.
    static func isWhitespaceScalar(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard let scalar = String(decoding: UnsafeBufferPointer(rebasing: bytes), as: UTF8.self).unicodeScalars.first else { return false }
        return Character(scalar).isWhitespace
    }

    /// True when `text` is empty or whitespace only.
    static func isBlank(_ text: String) -> Bool {
        for b in text.utf8 {
            if b >= 0x80 { return text.allSatisfy(\.isWhitespace) }
            if !isASCIIWhitespace(b) { return false }
        }
        return true
    }

    /// `text` without leading whitespace, or nil when it has none.
    static func droppingLeadingWhitespace(_ text: String) -> String? {
        var count = 0
        for b in text.utf8 {
            if b >= 0x80 { return count == 0 && !(text.first?.isWhitespace ?? false) ? nil : String(text.drop(while: \.isWhitespace)) }
            if !isASCIIWhitespace(b) { break }
            count += 1
        }
        guard count > 0 else { return nil }
        return String(text.utf8.dropFirst(count)) ?? String(text.drop(while: \.isWhitespace))
    }

    /// `text` without trailing whitespace, or nil when it has none.
    static func droppingTrailingWhitespace(_ text: String) -> String? {
        var count = 0
        for b in text.utf8.reversed() {
            if b >= 0x80 {
                guard count > 0 || text.last?.isWhitespace == true else { return nil }
                var trimmed = text
                while trimmed.last?.isWhitespace == true { trimmed.removeLast() }
                return trimmed
            }
            if !isASCIIWhitespace(b) { break }
            count += 1
        }
        guard count > 0 else { return nil }
        return String(text.utf8.dropLast(count)) ?? String(text.dropLast(count))
    }
}
