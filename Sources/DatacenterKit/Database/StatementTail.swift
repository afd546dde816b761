/// What may follow the one statement of SQL handed to `Database.cachedStatement` or
/// `makeStatement`: whitespace, comments and semicolons, nothing else.
///
/// SQLite's own tokenizer decides where the first statement ends (the tail `sqlite3_prepare`
/// returns), so strings, quoted identifiers, `[…]`, backticks and trigger bodies are lexed
/// exactly; this only has to read what comes after, where any token but a comment or `;`
/// is a further statement (or garbage SQLite would refuse anyway).
enum StatementTail {
    /// True when `tail` holds only whitespace, `--` and `/* */` comments, and semicolons.
    /// Whitespace is SQLite's: ASCII space, tab, newline, vertical tab, form feed, return.
    static func isBlank(_ tail: String) -> Bool {
        var tail = tail
        return tail.withUTF8 { bytes in
            var i = 0
            let n = bytes.count
            while i < n {
                let c = bytes[i]
                if c == 0x20 || (c >= 0x09 && c <= 0x0D) || c == UInt8(ascii: ";") {
                    i += 1
                } else if c == UInt8(ascii: "-"), i + 1 < n, bytes[i + 1] == UInt8(ascii: "-") {
                    while i < n, bytes[i] != UInt8(ascii: "\n") { i += 1 }
                } else if c == UInt8(ascii: "/"), i + 1 < n, bytes[i + 1] == UInt8(ascii: "*") {
                    i += 2
                    // An unclosed block comment runs to the end, as SQLite reads it.
                    while i < n, !(bytes[i] == UInt8(ascii: "*") && i + 1 < n && bytes[i + 1] == UInt8(ascii: "/")) { i += 1 }
                    i += 2
                } else {
                    return false
                }
            }
            return true
        }
    }
}
