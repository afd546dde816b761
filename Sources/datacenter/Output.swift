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

    /// Makes text safe for one terminal line (see `TerminalText.visible`).
    static func safe(_ text: String, limit: Int = 80) -> String {
        TerminalText.visible(text, limit: limit)
    }
}

extension String {
    /// Columns the text takes in a terminal, as the browser's grid counts them
    /// (`TerminalText.width(of:)`, the C library's `wcwidth` per scalar): wide characters
    /// (CJK, most emoji) take two, joiners and combining marks none.
    var displayWidth: Int { TerminalText.width(of: self) }
}
