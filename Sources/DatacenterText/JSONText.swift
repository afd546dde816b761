/// JSON text written by hand, where a serializer would reorder keys or change numbers.
public enum JSONText {
    /// `string` as a JSON string literal, escaped as `JSONSerialization` escapes it with
    /// `.withoutEscapingSlashes`, and as the sqlite3 shell's `.mode json` writes it: `"` and
    /// `\\` with a backslash, `\b \f \n \r \t` by name, other control characters as `\u00xx`;
    /// everything else as it is.
    public static func quoted(_ string: String) -> String {
        var out = "\""
        out.reserveCapacity(string.utf8.count + 2)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{00}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
