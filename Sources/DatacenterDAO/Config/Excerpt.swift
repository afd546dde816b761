/// A short, printable excerpt of input quoted in an error message.
///
/// Error lines quote names, attribute values and expressions taken from a config or a call;
/// such input can be megabytes long or hold control characters that would garble a terminal.
/// Every DAO error that quotes input goes through this one helper, so a message stays one
/// short line: at most `limit` characters of input (an ellipsis marks what was cut) with
/// control characters escaped (`\n`, `\t`, `\r`, `\0`, other ones as `\u{1B}`).
///
/// For example, `Excerpt.of(String(repeating: "x", count: 1_000_000))` is 59 `x` and `…`.
enum Excerpt {
    /// The most characters of input an error quotes.
    static let limit = 60

    /// `text` with control characters escaped, shortened to at most `limit` characters (the
    /// last one an ellipsis when cut). Reads no further into `text` than it prints.
    static func of(_ text: some StringProtocol, limit: Int = Excerpt.limit) -> String {
        var result = ""
        var width = 0
        var index = text.startIndex
        while index < text.endIndex {
            let piece = escaped(text[index])
            let next = text.index(after: index)
            // Room for an ellipsis stays unless this is the last character.
            guard width + piece.count <= (next == text.endIndex ? limit : limit - 1) else { return result + "…" }
            result += piece
            width += piece.count
            index = next
        }
        return result
    }

    /// About `limit` characters of `text` around the 1-based character `position`, with an
    /// ellipsis on each side that was cut; used for expressions, whose errors give a position.
    static func around(_ text: String, position: Int, limit: Int = Excerpt.limit) -> String {
        let count = text.count
        guard count > limit else { return of(text, limit: limit) }
        let start = max(0, min(position - 1 - limit / 2, count - limit))
        guard start > 0 else { return of(text, limit: limit) }
        return "…" + of(text[text.index(text.startIndex, offsetBy: start)...], limit: limit)
    }

    /// One character, escaped when it is a control character.
    static func escaped(_ character: Character) -> String {
        switch character {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        case "\0": return "\\0"
        case "\r\n": return "\\r\\n"
        default:
            guard character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                return String(character)
            }
            return character.unicodeScalars.map { scalar in
                scalar.properties.generalCategory == .control
                    ? "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}" : String(scalar)
            }.joined()
        }
    }
}
