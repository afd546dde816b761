import Foundation

/// `<trim prefix prefixOverrides suffixOverrides onVoid>`, and its presets `<where>` and
/// `<set>`: renders the body, strips one leading and one trailing override, and writes
/// `prefix` before it; renders nothing when the body is empty.
package final class TrimNode: SQLNode {
    /// What to do when the body renders empty.
    package enum OnVoid: String, Sendable, Equatable {
        /// Run nothing; the call succeeds.
        case quit
        /// Stop rendering here and run the SQL built so far.
        case ignoreAfter
    }

    /// Written before a non-empty body (`WHERE`, `SET`).
    package let prefix: String
    /// Stripped from the start of the body, first match only (`AND `, `OR `).
    package let prefixOverrides: [String]
    /// Stripped from the end of the body, first match only (`,`).
    package let suffixOverrides: [String]
    /// What an empty body does; nil renders nothing and goes on.
    package let onVoid: OnVoid?
    /// The body.
    package let body: any SQLNode
    package let location: SourceLocation
    /// The overrides, compiled once.
    private let prefixMatchers: [TrimOverride]
    private let suffixMatchers: [TrimOverride]
    /// What is written before a non-empty body: ` WHERE `.
    private let prefixText: String

    /// A `<trim>`; `makeWhere` and `makeSet` build the `<where>` and `<set>` presets.
    package init(prefix: String, prefixOverrides: [String], suffixOverrides: [String], onVoid: OnVoid?,
                body: any SQLNode, location: SourceLocation) {
        self.prefix = prefix
        self.prefixOverrides = prefixOverrides
        self.suffixOverrides = suffixOverrides
        self.onVoid = onVoid
        self.body = body
        self.location = location
        self.prefixMatchers = prefixOverrides.map(TrimOverride.init)
        self.suffixMatchers = suffixOverrides.map(TrimOverride.init)
        self.prefixText = " " + prefix + (prefix.isEmpty ? "" : " ")
    }

    /// `<where>`: prefix `WHERE`, strip a leading `AND`/`OR` (any case, then whitespace).
    package static func makeWhere(onVoid: OnVoid?, body: any SQLNode, location: SourceLocation) -> TrimNode {
        TrimNode(prefix: "WHERE", prefixOverrides: ["AND ", "OR "], suffixOverrides: [], onVoid: onVoid, body: body, location: location)
    }

    /// `<set>`: prefix `SET`, strip a trailing comma.
    package static func makeSet(onVoid: OnVoid?, body: any SQLNode, location: SourceLocation) -> TrimNode {
        TrimNode(prefix: "SET", prefixOverrides: [], suffixOverrides: [","], onVoid: onVoid, body: body, location: location)
    }

    /// Splits an override list written `AND |OR ` (`|`-separated): each piece loses its leading
    /// spaces and tabs and keeps its trailing ones; blank pieces are dropped.
    package static func parseOverrides(_ text: String?) -> [String] {
        guard let text, !text.isEmpty else { return [] }
        return text.split(separator: "|", omittingEmptySubsequences: true).map { piece in
            String(piece.drop(while: { $0 == " " || $0 == "\t" }))
        }.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    package func render(into context: inout RenderContext) throws {
        let region = context.buffer.openRegion()
        try body.render(into: &context)
        context.buffer.stripPrefix(prefixMatchers, in: region)
        context.buffer.stripSuffix(suffixMatchers, in: region)
        if context.buffer.isBlank(region) {
            context.buffer.drop(region)
            if let onVoid { context.halt = onVoid == .quit ? .quit : .ignoreAfter }
            return
        }
        context.buffer.close(region, prefix: prefixText)
        context.buffer.append(text: " ")
    }
}

/// One prefix or suffix override of a `trim`, compiled once.
///
/// An override written with trailing (leading) whitespace matches its word followed
/// (preceded) by whitespace or `(` (`)`); the word matches case-insensitively. The rules are
/// those of `String` and `Character`; when the word and the text around the match are ASCII
/// (always, in practice) they are applied to the bytes, which gives the same answer.
struct TrimOverride: Sendable {
    /// What a match does to the text piece it is found in.
    enum Strip: Equatable {
        /// No match: try the next override.
        case noMatch
        /// The match is the whole piece.
        case removePiece
        /// Drop this many bytes from the piece's start (prefix) or end (suffix).
        case dropBytes(Int)
        /// Replace the piece with this text (decided by the `String` rules).
        case replace(String)
    }

    /// The override without its surrounding whitespace.
    let word: String
    /// The word in ASCII lower case, when it is ASCII without a carriage return (so each
    /// byte is one `Character`); nil otherwise.
    private let asciiWord: [UInt8]?
    private let hasLeadingWhitespace: Bool
    private let hasTrailingWhitespace: Bool

    init(_ override: String) {
        word = override.trimmingCharacters(in: .whitespacesAndNewlines)
        let bytes = Array(word.utf8)
        asciiWord = bytes.allSatisfy({ $0 < 0x80 && $0 != 0x0D }) ? bytes.map(TrimOverride.lower) : nil
        hasLeadingWhitespace = override.first?.isWhitespace == true
        hasTrailingWhitespace = override.last?.isWhitespace == true
    }

    private static func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }

    /// True when the bytes of `range` in `text` are all ASCII.
    private static func isASCII(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        range.allSatisfy { text[$0] < 0x80 }
    }

    /// Matches the start of `text` (the first text piece of a trimmed body). A word that ends
    /// the piece with a value after it (`AND#{x}`) is not stripped, unless the piece is the
    /// whole body.
    func matchPrefix(_ text: UnsafeBufferPointer<UInt8>, isOnlyPiece: Bool) -> Strip {
        let n = text.count
        guard let w = asciiWord, TrimOverride.isASCII(text, 0..<min(n, w.count + 2)) else {
            return matchPrefix(String(decoding: text, as: UTF8.self), isOnlyPiece: isOnlyPiece)
        }
        let k = w.count
        guard k > 0, n >= k else { return .noMatch }
        for i in 0..<k where TrimOverride.lower(text[i]) != w[i] { return .noMatch }
        if hasTrailingWhitespace {
            guard n > k else { return isOnlyPiece ? .removePiece : .noMatch }
            guard TextScan.isASCIIWhitespace(text[k]) || text[k] == UInt8(ascii: "(") else { return .noMatch }
        }
        return n == k ? .removePiece : .dropBytes(k)
    }

    /// `matchPrefix` by the `String` rules.
    private func matchPrefix(_ t: String, isOnlyPiece: Bool) -> Strip {
        guard !word.isEmpty, t.count >= word.count else { return .noMatch }
        guard t.prefix(word.count).lowercased() == word.lowercased() else { return .noMatch }
        let rest = t.dropFirst(word.count)
        if hasTrailingWhitespace {
            guard let next = rest.first else { return isOnlyPiece ? .removePiece : .noMatch }
            guard next.isWhitespace || next == "(" else { return .noMatch }
        }
        return rest.isEmpty ? .removePiece : .replace(String(rest))
    }

    /// Matches the end of `text` (the last text piece of a trimmed body).
    func matchSuffix(_ text: UnsafeBufferPointer<UInt8>) -> Strip {
        let n = text.count
        guard let w = asciiWord, TrimOverride.isASCII(text, max(0, n - w.count - 2)..<n) else {
            return matchSuffix(String(decoding: text, as: UTF8.self))
        }
        let k = w.count
        guard k > 0, n >= k else { return .noMatch }
        for i in 0..<k where TrimOverride.lower(text[n - k + i]) != w[i] { return .noMatch }
        if hasLeadingWhitespace, n > k {
            let before = text[n - k - 1]
            if !TextScan.isASCIIWhitespace(before) && before != UInt8(ascii: ")") { return .noMatch }
        }
        return n == k ? .removePiece : .dropBytes(k)
    }

    /// `matchSuffix` by the `String` rules.
    private func matchSuffix(_ t: String) -> Strip {
        guard !word.isEmpty, t.count >= word.count else { return .noMatch }
        guard t.suffix(word.count).lowercased() == word.lowercased() else { return .noMatch }
        let rest = t.dropLast(word.count)
        if hasLeadingWhitespace, let before = rest.last, !before.isWhitespace, before != ")" { return .noMatch }
        return rest.isEmpty ? .removePiece : .replace(String(rest))
    }
}
