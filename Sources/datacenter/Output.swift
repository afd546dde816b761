import DatacenterKit
import Foundation
import DatacenterText

/// Writing to standard output and standard error.
enum Output {
    static func line(_ text: String = "") { print(text) }

    /// Writes `text` and a newline to standard error, each of its lines made safe for a
    /// terminal (`TerminalText.visible`: control characters shown escaped, the line breaks
    /// kept): the names errors and notes quote (a table's, a column's, a store's from a
    /// snapshot's manifest) may hold escape sequences, as values may.
    static func error(_ text: String) {
        let safe = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { TerminalText.visible(String($0)) }.joined(separator: "\n")
        FileHandle.standardError.write(Data((safe + "\n").utf8))
    }

    /// Prints a JSON-compatible object with sorted keys, one line.
    static func json(_ object: Any, pretty: Bool = false) throws {
        var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]
        if pretty { options.insert(.prettyPrinted) }
        let data = try JSONSerialization.data(withJSONObject: object, options: options)
        print(String(decoding: data, as: UTF8.self))
    }

    /// Any JSON-compatible value as compact JSON text, keys sorted, as `json` writes it.
    static func jsonFragment(_ object: Any) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        return String(decoding: data, as: UTF8.self)
    }

    /// A JSON-compatible value as compact JSON text, keys sorted, as `jsonFragment` writes
    /// it but without Foundation's serializer (which costs tens of microseconds a call: a
    /// diff writes an object per row). Strings, numbers, booleans, null, arrays and
    /// dictionaries; a real that JSON cannot hold (an infinity) as its text; anything else
    /// through `jsonFragment`.
    static func jsonText(_ object: Any) -> String {
        var text = ""
        appendJSON(object, to: &text)
        return text
    }

    private static func appendJSON(_ object: Any, to text: inout String) {
        // Native numbers by their exact type: an NSNumber (what Foundation's JSON parser
        // gives) also casts to Bool, Int and Double, so it says what it holds itself.
        let kind = type(of: object)
        if kind == Bool.self, let bool = object as? Bool { text += bool ? "true" : "false"; return }
        if kind == Int.self, let int = object as? Int { text += String(int); return }
        if kind == Int64.self, let int = object as? Int64 { text += String(int); return }
        if kind == Double.self, let real = object as? Double { appendReal(real, to: &text); return }
        switch object {
        case is NSNull: text += "null"
        case let string as String: text += JSONText.quoted(string)
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c", "B": text += number.boolValue ? "true" : "false"
            case "d", "f": appendReal(number.doubleValue, to: &text)
            default: text += String(number.int64Value)
            }
        case let array as [Any]:
            text += "["
            for (index, element) in array.enumerated() {
                if index > 0 { text += "," }
                appendJSON(element, to: &text)
            }
            text += "]"
        case let dictionary as [String: Any]:
            text += "{"
            for (index, key) in dictionary.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                text += JSONText.quoted(key) + ":"
                appendJSON(dictionary[key] as Any, to: &text)
            }
            text += "}"
        default: text += (try? jsonFragment(object)) ?? "null"
        }
    }

    private static func appendReal(_ real: Double, to text: inout String) {
        text += real.isFinite ? "\(real)" : JSONText.quoted(String(real))
    }

    /// A string as a JSON string literal (`JSONText.quoted`).
    static func jsonString(_ string: String) -> String { JSONText.quoted(string) }

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
        // Column names come from the database, as values do: escaped alike.
        let header = header.map { TerminalText.visible($0) }
        let rows = rows.map { $0.map { TerminalText.visible($0) } }
        var widths = header.map(\.displayWidth)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.displayWidth) } }
        func format(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                i == cells.count - 1 || i >= widths.count ? cell : cell + String(repeating: " ", count: max(0, widths[i] - cell.displayWidth))
            }.joined(separator: "  ")
        }
        print(format(header))
        print(format(widths.map { String(repeating: "-", count: $0) }))
        for row in rows { print(format(row)) }
    }

    /// A table printed row by row as rows come, for listings too large to hold: the column
    /// widths are given up front (worked out by a cheaper first pass), so each row is
    /// printed as soon as it is made. Rows line up exactly as `table` would line them up;
    /// the last column is never padded, so its rule is as wide as its heading.
    struct StreamedTable {
        private let widths: [Int]

        /// Prints the header and the rule; `widths` holds the columns' widths but the last.
        init(header: [String], widths: [Int]) {
            self.widths = widths
            let header = header.map { TerminalText.visible($0) }
            print(format(header))
            print(format(header.enumerated().map { i, title in
                String(repeating: "-", count: i == header.count - 1 ? title.displayWidth : widths[i])
            }))
        }

        /// Prints one row.
        func row(_ cells: [String]) { print(format(cells)) }

        private func format(_ cells: [String]) -> String {
            var line = ""
            for (i, cell) in cells.enumerated() {
                if i > 0 { line += "  " }
                line += cell
                if i < cells.count - 1, i < widths.count {
                    line += String(repeating: " ", count: max(0, widths[i] - cell.displayWidth))
                }
            }
            return line
        }
    }

    /// A JSON array written element by element, each as `json` would write it (see
    /// `jsonFragment`, `jsonString`), so the whole document is byte for byte what `json`
    /// prints for the array, without holding it.
    final class JSONArrayStream {
        private var count = 0

        init() { print("[", terminator: "") }

        /// Writes one element given as JSON text.
        func appendEncoded(_ text: String) {
            print(count == 0 ? "" : ",", text, separator: "", terminator: "")
            count += 1
        }

        /// Closes the array and ends the line.
        func finish() { print("]") }
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
