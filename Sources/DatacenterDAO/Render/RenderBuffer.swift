import DatacenterKit

/// SQL under construction for one statement: template text, bound values and inlined
/// values, kept apart until `finish` so that `trim` can inspect the text, inlined values are
/// never re-read as template (their quotes cannot confuse anything), and the preview can
/// mark them.
///
/// One buffer serves the whole statement. Text is appended to one byte store and text pieces
/// name ranges of it, so rendering does not build a string per node. The nodes that rework
/// what their body rendered (`trim`, `foreach`) open a *region* over the pieces the body
/// adds, rework it in place, then close or drop it. Inside a region consecutive text is one
/// piece, exactly as if the region were a buffer of its own, and closing it joins its text
/// to the text around it.
struct RenderBuffer: Sendable {
    enum Piece: Sendable, Equatable {
        /// Template text from the config: a range of `bytes`.
        case text(Range<Int>)
        /// A `#{}` value, bound as `?`; `encrypted` when a crypt rule covers it.
        case bound(DAOValue, encrypted: Bool)
        /// A `@{}` value formatted into the SQL: a range of `bytes`.
        case inlined(Range<Int>)
    }

    /// An open region: where it starts, and what to restore when it closes or is dropped.
    struct Region {
        fileprivate let start: Int
        fileprivate let byteCount: Int
        fileprivate let floor: Int
    }

    /// The bytes of every text and inlined piece (and leftovers of reworked ones).
    private(set) var bytes: [UInt8] = []
    private(set) var pieces: [Piece] = []
    /// The first piece of the innermost open region: text never merges into a piece below.
    private var floor = 0
    /// Set at the edge of a dynamic element (`markElementEdge`): the next piece appended
    /// is checked against the last one for tokens that would fuse.
    private var atElementEdge = false

    /// An empty buffer with room reserved for a typical statement, so its pieces and bytes
    /// are not copied as they grow.
    init() {
        pieces.reserveCapacity(32)
        bytes.reserveCapacity(512)
    }

    // MARK: Appending

    /// Appends template text. (Where references may stand in it is checked when the config
    /// loads, `TemplateContextCheck`, so rendering need not track quotes.)
    mutating func append(text: String) {
        var text = text
        text.withUTF8 { append(textBytes: $0) }
    }

    /// Marks the edge of a dynamic element (`<if>`, `<foreach>`, `<where>`…), where the text
    /// of one element meets the text around it: the next piece appended gets one space before
    /// it when it would otherwise fuse two tokens with the last one (`1` then `and` reading
    /// `1and`; `?` then `1` reading `?1`). No other whitespace changes.
    mutating func markElementEdge() { atElementEdge = true }

    /// True for a byte a word, a number or a `?` parameter is made of (any non-ASCII byte
    /// included: SQLite takes those as identifier characters).
    @inline(__always) private static func isTokenByte(_ b: UInt8) -> Bool {
        b >= 0x80 || b == UInt8(ascii: "_") || b == UInt8(ascii: "?") || b == UInt8(ascii: "$")
            || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || ((b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z"))
    }

    /// The last byte of what the buffer holds (`?` for a bound value), or nil when empty.
    private var lastByte: UInt8? {
        guard let last = pieces.last else { return nil }
        switch last {
        case .text(let range), .inlined(let range): return range.isEmpty ? nil : bytes[range.upperBound - 1]
        case .bound: return UInt8(ascii: "?")
        }
    }

    /// At an element's edge, a space before a piece starting with `first` when it and the
    /// last byte would fuse into one token.
    private mutating func separateAtElementEdge(before first: UInt8?) {
        guard atElementEdge, let first else { return }
        atElementEdge = false
        guard Self.isTokenByte(first), let last = lastByte, Self.isTokenByte(last) else { return }
        var space = " "
        space.withUTF8 { append(textBytes: $0, checked: true) }
    }

    private mutating func append(textBytes text: UnsafeBufferPointer<UInt8>, checked: Bool = false) {
        guard !text.isEmpty else { return }
        if !checked { separateAtElementEdge(before: text.first) }
        if pieces.count > floor, case .text(var range) = pieces[pieces.count - 1] {
            if range.upperBound != bytes.count { range = copyToEnd(range) }
            bytes.append(contentsOf: text)
            pieces[pieces.count - 1] = .text(range.lowerBound..<bytes.count)
        } else {
            let start = bytes.count
            bytes.append(contentsOf: text)
            pieces.append(.text(start..<bytes.count))
        }
    }

    mutating func append(bound value: DAOValue, encrypted: Bool) {
        separateAtElementEdge(before: UInt8(ascii: "?"))
        pieces.append(.bound(value, encrypted: encrypted))
    }

    mutating func append(inlined text: String) {
        separateAtElementEdge(before: text.utf8.first)
        let start = bytes.count
        bytes.append(contentsOf: text.utf8)
        pieces.append(.inlined(start..<bytes.count))
    }

    /// Copies the bytes of `range` to the end of the store (so text can be appended to them)
    /// and returns their new range.
    private mutating func copyToEnd(_ range: Range<Int>) -> Range<Int> {
        let start = bytes.count
        guard !range.isEmpty else { return start..<start }
        // Grow by the run's size, then copy it in one go (the source lies before `start`).
        bytes.append(contentsOf: repeatElement(0, count: range.count))
        bytes.withUnsafeMutableBufferPointer { store in
            let base = store.baseAddress!
            (base + start).update(from: base + range.lowerBound, count: range.count)
        }
        return start..<bytes.count
    }

    /// Replaces the text piece at `index` with `text` (removing it when `text` is empty).
    private mutating func replaceText(at index: Int, with text: String) {
        if text.isEmpty { pieces.remove(at: index); return }
        let start = bytes.count
        bytes.append(contentsOf: text.utf8)
        pieces[index] = .text(start..<bytes.count)
    }

    // MARK: Regions

    /// Opens a region over the pieces appended from now on.
    mutating func openRegion() -> Region {
        let region = Region(start: pieces.count, byteCount: bytes.count, floor: floor)
        floor = pieces.count
        return region
    }

    /// Drops everything `region` holds and restores the state from before it.
    mutating func drop(_ region: Region) {
        pieces.removeSubrange(region.start...)
        bytes.removeSubrange(region.byteCount...)
        floor = region.floor
    }

    /// Closes `region`, writing `prefix` before what it holds, and joins its text to the text
    /// before it.
    mutating func close(_ region: Region, prefix: String = "") {
        if !prefix.isEmpty {
            let start = bytes.count
            bytes.append(contentsOf: prefix.utf8)
            pieces.insert(.text(start..<bytes.count), at: region.start)
        }
        floor = region.floor
        if !prefix.isEmpty { joinText(at: region.start + 1) }
        joinText(at: region.start)
    }

    /// Merges the piece at `index` into the one before it when both are text (and the one
    /// before is inside the current region).
    private mutating func joinText(at index: Int) {
        guard index > floor, index < pieces.count,
              case .text(var first) = pieces[index - 1], case .text(let second) = pieces[index] else { return }
        if first.upperBound != second.lowerBound {
            first = copyToEnd(first)
            _ = copyToEnd(second)
        }
        pieces[index - 1] = .text(first.lowerBound..<(first.lowerBound + first.count + second.count))
        pieces.remove(at: index)
    }

    // MARK: Reworking a region

    /// True when `region` holds nothing but whitespace text.
    func isBlank(_ region: Region) -> Bool {
        bytes.withUnsafeBufferPointer { store in
            pieces[region.start...].allSatisfy { piece in
                guard case .text(let range) = piece else { return false }
                return TextScan.isBlank(UnsafeBufferPointer(rebasing: store[range]))
            }
        }
    }

    /// Removes the whitespace around what `region` holds (used for each `foreach` iteration).
    mutating func trimWhitespace(_ region: Region) {
        if region.start < pieces.count, case .text(let range) = pieces[region.start] {
            switch bytes.withUnsafeBufferPointer({ TextScan.leadingWhitespace(UnsafeBufferPointer(rebasing: $0[range])) }) {
            case .bytes(0): break
            case .bytes(let n): if n == range.count { pieces.remove(at: region.start) } else { pieces[region.start] = .text(range.dropFirst(n)) }
            case .characters:
                if let trimmed = TextScan.droppingLeadingWhitespace(text(range)) { replaceText(at: region.start, with: trimmed) }
            }
        }
        if region.start < pieces.count, case .text(let range) = pieces[pieces.count - 1] {
            let last = pieces.count - 1
            switch bytes.withUnsafeBufferPointer({ TextScan.trailingWhitespace(UnsafeBufferPointer(rebasing: $0[range])) }) {
            case .bytes(0): break
            case .bytes(let n): if n == range.count { pieces.remove(at: last) } else { pieces[last] = .text(range.dropLast(n)) }
            case .characters:
                if let trimmed = TextScan.droppingTrailingWhitespace(text(range)) { replaceText(at: last, with: trimmed) }
            }
        }
    }

    /// Strips the first matching override from the start of what `region` holds, after
    /// trimming its whitespace (`AND `, `OR `; see `TrimOverride.matchPrefix`).
    mutating func stripPrefix(_ overrides: [TrimOverride], in region: Region) {
        trimWhitespace(region)
        guard !overrides.isEmpty, region.start < pieces.count, case .text(let range) = pieces[region.start] else { return }
        let isOnly = pieces.count - region.start == 1
        for override in overrides {
            let strip = bytes.withUnsafeBufferPointer { store in
                override.matchPrefix(UnsafeBufferPointer(rebasing: store[range]), isOnlyPiece: isOnly)
            }
            switch strip {
            case .noMatch: continue
            case .removePiece: pieces.remove(at: region.start)
            case .dropBytes(let n): pieces[region.start] = .text(range.dropFirst(n))
            case .replace(let rest): replaceText(at: region.start, with: rest)
            }
            return
        }
    }

    /// Strips the first matching override from the end of what `region` holds, after
    /// trimming its whitespace (`,` for `set`; see `TrimOverride.matchSuffix`).
    mutating func stripSuffix(_ overrides: [TrimOverride], in region: Region) {
        trimWhitespace(region)
        guard !overrides.isEmpty, region.start < pieces.count, case .text(let range) = pieces[pieces.count - 1] else { return }
        let last = pieces.count - 1
        for override in overrides {
            let strip = bytes.withUnsafeBufferPointer { store in
                override.matchSuffix(UnsafeBufferPointer(rebasing: store[range]))
            }
            switch strip {
            case .noMatch: continue
            case .removePiece: pieces.remove(at: last)
            case .dropBytes(let n): pieces[last] = .text(range.dropLast(n))
            case .replace(let rest): replaceText(at: last, with: rest)
            }
            return
        }
    }

    private func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    // MARK: Finishing

    /// The bound values in order, and the positions of those a crypt rule covers.
    private func boundValues(expected: Int) -> BoundValues {
        var bound = BoundValues(capacity: expected)
        for piece in pieces {
            guard case .bound(let value, let isEncrypted) = piece else { continue }
            bound.append(value, encrypted: isEncrypted)
        }
        return bound
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
        var writer = SQLWriter(capacity: bytes.count, pieces: pieces.count)
        let bound = boundValues(expected: pieces.count)
        bytes.withUnsafeBufferPointer { store in
            for piece in pieces {
                switch piece {
                case .text(let range):
                    writer.template(UnsafeBufferPointer(rebasing: store[range]))
                case .bound:
                    writer.placeholder()
                case .inlined(let range):
                    writer.inlined(UnsafeBufferPointer(rebasing: store[range]))
                }
            }
        }
        return RenderedSQL(sql: String(decoding: writer.sql, as: UTF8.self), bindings: bound.values, marks: writer.marks,
                           encryptedBindings: bound.encrypted, location: location)
    }
}

/// Writes the SQL of a rendered statement byte by byte (see `RenderBuffer.finish`).
///
/// It reads template text as SQLite's tokenizer does (the same states as `SQLLexer`), so
/// whitespace is collapsed only in plain SQL: never inside a string, any quoted identifier
/// (`"…"`, `` `…` ``, `[…]`) or a comment.
struct SQLWriter {
    var sql: [UInt8] = []
    var marks = PreviewMarks()
    /// The byte that closes the quoted token the text is in (`'`, `"`, `` ` ``, `]`), 0 when none.
    private var quote: UInt8 = 0
    private var pendingSpace = false
    private var inComment = false
    private var inBlockComment = false
    private var previous: UInt8 = 0x20

    /// A writer with room for `capacity` bytes and the marks of up to `pieces` values.
    init(capacity: Int = 128, pieces: Int = 0) {
        sql.reserveCapacity(capacity)
        marks.placeholders.reserveCapacity(pieces)
    }

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
            if inBlockComment {
                sql.append(c)
                if c == UInt8(ascii: "/") && previous == UInt8(ascii: "*") {
                    inBlockComment = false
                    previous = 0 // `*/*` is not a new comment
                } else {
                    previous = c
                }
                i += 1
                continue
            }
            if c == UInt8(ascii: "*") && previous == UInt8(ascii: "/") && !pendingSpace {
                inBlockComment = true
                sql.append(c)
                previous = 0 // `/*/` does not close it
                i += 1
                continue
            }
            if c < 0x80 {
                if TextScan.isASCIIWhitespace(c) {
                    // A run of ASCII whitespace collapses to one pending space.
                    i += 1
                    i = TextScan.endOfSpaces(bytes, from: i)
                    while i < n, TextScan.isASCIIWhitespace(bytes[i]) { i += 1 }
                    pendingSpace = true
                    previous = bytes[i - 1]
                    continue
                }
                // A run of plain ASCII (no whitespace, quote or `-`) is copied in one go:
                // byte by byte it would do the same, one separator before its first byte.
                var end = i
                while end < n, SQLWriter.isPlain(bytes[end]) { end += 1 }
                if end - i > 1 {
                    separate()
                    sql.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<end]))
                    previous = bytes[end - 1]
                    i = end
                    continue
                }
                if c == UInt8(ascii: "'") || c == UInt8(ascii: "\"") || c == UInt8(ascii: "`") { quote = c }
                if c == UInt8(ascii: "[") { quote = UInt8(ascii: "]") }
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

    /// True for an ASCII byte template text copies as is: not whitespace, not a byte that
    /// opens a quoted token (`'`, `"`, `` ` ``, `[`), not `-`, `/` or `*` (which may start a
    /// comment), and not a UTF-8 lead or continuation byte.
    @inline(__always) private static func isPlain(_ c: UInt8) -> Bool {
        c > 0x20 && c < 0x80 && c != UInt8(ascii: "'") && c != UInt8(ascii: "\"") && c != UInt8(ascii: "-")
            && c != UInt8(ascii: "`") && c != UInt8(ascii: "[") && c != UInt8(ascii: "/") && c != UInt8(ascii: "*")
    }

    /// A `?` for a bound value.
    mutating func placeholder() {
        separate()
        marks.placeholders.append(sql.count)
        sql.append(UInt8(ascii: "?"))
        previous = UInt8(ascii: "?")
    }

    /// An `@{}` value, copied verbatim. A value starting with `-` (a negative number) right
    /// after a `-` gets a space first: `1 -` then `-5` must not become a `--` comment.
    mutating func inlined(_ bytes: UnsafeBufferPointer<UInt8>) {
        if previous == UInt8(ascii: "-"), bytes.first == UInt8(ascii: "-") { pendingSpace = true }
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

    /// The end of the run of spaces starting at `start`, skipped eight bytes at a time (the
    /// indentation of a config is mostly spaces); the rest of the run is left to the caller.
    @inline(__always) static func endOfSpaces(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        var i = start
        while i + 8 <= bytes.count, UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) == 0x2020_2020_2020_2020 { i += 8 }
        return i
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

    /// How much whitespace starts or ends some text: a number of bytes when it was decided
    /// on ASCII alone, `characters` when a non-ASCII character makes the `String` rules decide.
    enum WhitespaceRun: Equatable {
        case bytes(Int)
        case characters
    }

    /// The whitespace `text` starts with (see `droppingLeadingWhitespace`).
    static func leadingWhitespace(_ text: UnsafeBufferPointer<UInt8>) -> WhitespaceRun {
        var count = 0
        for b in text {
            if b >= 0x80 { return .characters }
            if !isASCIIWhitespace(b) { break }
            count += 1
        }
        return .bytes(count)
    }

    /// The whitespace `text` ends with (see `droppingTrailingWhitespace`).
    static func trailingWhitespace(_ text: UnsafeBufferPointer<UInt8>) -> WhitespaceRun {
        var count = 0
        for b in text.reversed() {
            if b >= 0x80 { return .characters }
            if !isASCIIWhitespace(b) { break }
            count += 1
        }
        return .bytes(count)
    }

    /// True when the UTF-8 `text` is empty or whitespace only.
    static func isBlank(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in text {
            if b >= 0x80 { return String(decoding: text, as: UTF8.self).allSatisfy(\.isWhitespace) }
            if !isASCIIWhitespace(b) { return false }
        }
        return true
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
