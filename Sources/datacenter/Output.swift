import DatacenterKit
import Foundation

/// Writing to standard output and standard error.
enum Output {
    static func line(_ text: String = "") { print(text) }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Prints a JSON-compatible object with sorted keys, one line.
    static func json(_ object: Any, pretty: Bool = false) throws {
        var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]
        if pretty { options.insert(.prettyPrinted) }
        let data = try JSONSerialization.data(withJSONObject: object, options: options)
        print(String(decoding: data, as: UTF8.self))
    }

    /// A database value as JSON: blobs as `{"$blob": base64}`.
    static func jsonValue(_ value: DatabaseValue) -> Any {
        switch value {
        case .null: return NSNull()
        case .integer(let v): return v
        case .real(let d): return d
        case .text(let s): return s
        case .blob(let d): return ["$blob": d.base64EncodedString()]
        }
    }

    /// Prints rows as an aligned table with a header.
    static func table(_ header: [String], _ rows: [[String]]) {
        var widths = header.map(\.displayWidth)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.displayWidth) } }
        func format(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                i == cells.count - 1 ? cell : cell + String(repeating: " ", count: max(0, widths[i] - cell.displayWidth))
            }.joined(separator: "  ")
        }
        print(format(header))
        print(format(widths.map { String(repeating: "-", count: $0) }))
        for row in rows { print(format(row)) }
    }

    /// Makes text safe for one terminal line: control characters shown as `\n`, `\t`, `\u{1b}`…,
    /// cut to `limit` characters with `…`.
    static func safe(_ text: String, limit: Int = 80) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            let piece: String
            switch scalar {
            case "\n": piece = "\\n"
            case "\r": piece = "\\r"
            case "\t": piece = "\\t"
            case _ where scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0):
                piece = "\\u{" + String(scalar.value, radix: 16) + "}"
            default: piece = String(scalar)
            }
            if count + piece.count > limit { return out + "…" }
            out += piece
            count += piece.count
        }
        return out
    }
}

extension String {
    /// Columns the text takes in a terminal: wide (CJK, emoji) characters take two.
    var displayWidth: Int {
        unicodeScalars.reduce(0) { width, scalar in
            let v = scalar.value
            if scalar.properties.generalCategory == .nonspacingMark || v == 0x200D || (0xFE00...0xFE0F).contains(v) { return width }
            let wide = (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
                || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
                || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1FAFF).contains(v) || (0x20000...0x3FFFD).contains(v)
            return width + (wide ? 2 : 1)
        }
    }
}
