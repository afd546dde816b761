import CSQLite
import DatacenterKit

/// Names and values written into the statements `diff --sql` prints, as `sqldiff` writes
/// them, so the two print the same text for the same change.
enum SQLDiffLiteral {
    /// An identifier: bare when it is letters, `_` and digits (not first) and no keyword,
    /// in double quotes otherwise.
    static func identifier(_ name: String) -> String {
        guard !name.isEmpty else { return "\"\"" }
        var bare = true
        for (index, byte) in name.utf8.enumerated() {
            let isLetter = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
            let isDigit = byte >= 0x30 && byte <= 0x39
            if isLetter || (isDigit && index > 0) { continue }
            bare = false
            break
        }
        if bare, sqlite3_keyword_check(name, Int32(name.utf8.count)) == 0 { return name }
        return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A value as an SQL literal. Reals as SQLite prints them (15 significant digits), or
    /// with 17 when 15 do not give the same number back (`sqldiff` stops at 15, which loses
    /// the last bits of such a real); an infinity as `DatabaseValue.realLiteral` spells it
    /// (`sqldiff` writes `Inf`, which SQLite cannot read). Text with control characters
    /// splices them in as `X'..'` as `sqldiff` does.
    static func value(_ value: DatabaseValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let i): return String(i)
        case .real(let d):
            if !d.isFinite { return DatabaseValue.realLiteral(d) }
            let short = Database.realText(d)
            if Double(short) == d { return short }
            return Database.realText(d, significantDigits: 17)
        case .blob(let data):
            guard !data.isEmpty else { return "X''" }
            var text: [UInt8] = Array("x'".utf8)
            text.reserveCapacity(data.count * 2 + 3)
            for byte in data {
                text.append(hexDigits[Int(byte >> 4)])
                text.append(hexDigits[Int(byte & 0x0F)])
            }
            text.append(0x27)
            return String(decoding: text, as: UTF8.self)
        case .text(let string): return quoted(string)
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Text in single quotes (doubled inside); a run of control characters closes the quote
    /// and goes in as `'||X'0a0d'`, and the text after it starts again on a new line with
    /// `'\n||'`, as `sqldiff` writes them.
    private static func quoted(_ string: String) -> String {
        var out: [UInt8] = [0x27]
        var inControl = false
        for byte in string.utf8 {
            let isControl = byte < 0x20 || byte == 0x7F
            if isControl {
                if !inControl {
                    out += Array("'||X'".utf8)
                    inControl = true
                }
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
                continue
            }
            if inControl {
                out += Array("'\n||'".utf8)
                inControl = false
            }
            out.append(byte)
            if byte == 0x27 { out.append(byte) }
        }
        out.append(0x27)
        return String(decoding: out, as: UTF8.self)
    }
}
