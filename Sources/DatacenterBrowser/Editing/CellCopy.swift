import DatacenterKit
import Foundation

/// What `y` and `Y` copy to the terminal's clipboard: a cell's whole value as text, or a
/// row as one JSON object. Values come from the cells' contents (decrypted where a key
/// opened them), never from their cut display text, and never from a locked value's
/// ciphertext, which the grid does not even hold.
package enum CellCopy {
    /// Why a value cannot be copied.
    struct Refusal: Error, CustomStringConvertible, Equatable {
        /// The reason, for the status line.
        let description: String
    }

    /// The whole value of `cell` (in column `column`) as text: what the inspector's text view
    /// shows — text as it is, numbers as SQLite writes them, `NULL`, a blob's bytes as
    /// UTF-8 when they are text, else as hex; a KV or cache value as its text or compact JSON.
    /// - throws: `Refusal` for a value no key opened.
    static func text(of cell: GridCell, column: String) throws(Refusal) -> String {
        if case .locked(let why) = cell.encryption {
            throw Refusal(description: "\(column) is locked (\(why)): nothing copied, its ciphertext never is")
        }
        switch cell.content {
        case .database(let value):
            switch value {
            case .null: return "NULL"
            case .integer(let i): return String(i)
            case .real(let d): return String(d)
            case .text(let s): return s
            case .blob(let d): return String(data: d, encoding: .utf8) ?? d.map { String(format: "%02x", $0) }.joined()
            }
        case .kv(let value): return value.displayString
        case .propertyList(let value): return KVValue.plist(value).displayString
        case .none: return cell.text
        }
    }

    /// `row` as one JSON object, its members in the grid's column order: numbers, strings,
    /// `null`, a blob as `{"$blob": BASE64}`, a KV or cache value as its JSON, a column the
    /// source derives (a size, flags) as its text, and a locked value as
    /// `{"$locked": REASON}`. Also returns how many values were locked.
    static func json(of row: GridRow, columns: [String]) -> (text: String, locked: Int) {
        var members: [String] = []
        var locked = 0
        for (index, cell) in row.cells.enumerated() {
            let name = columns.indices.contains(index) ? columns[index] : "column \(index + 1)"
            let object: Any
            if case .locked(let why) = cell.encryption {
                object = ["$locked": why]
                locked += 1
            } else {
                object = jsonObject(of: cell)
            }
            members.append(encode(name) + ":" + encode(object))
        }
        return ("{" + members.joined(separator: ",") + "}", locked)
    }

    /// The JSON object of an open cell's value.
    private static func jsonObject(of cell: GridCell) -> Any {
        switch cell.content {
        case .database(let value):
            switch value {
            case .null: return NSNull()
            case .integer(let i): return i
            case .real(let d): return d.isFinite ? d : String(d) as Any
            case .text(let s): return s
            case .blob(let d): return ["$blob": d.base64EncodedString()]
            }
        case .kv(let value): return value.jsonObject
        case .propertyList(let value): return value.jsonObject
        case .none: return cell.text
        }
    }

    /// One JSON value, compact, keys sorted; a value JSON cannot hold is written as its
    /// description, as a string.
    private static func encode(_ object: Any) -> String {
        let options: JSONSerialization.WritingOptions = [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes]
        if (JSONSerialization.isValidJSONObject(object) || object is String || object is NSNumber || object is NSNull
            || object is Int64 || object is Double || object is Bool),
           let data = try? JSONSerialization.data(withJSONObject: object, options: options) {
            return String(decoding: data, as: UTF8.self)
        }
        let fallback = (try? JSONSerialization.data(withJSONObject: "\(object)", options: options)) ?? Data("null".utf8)
        return String(decoding: fallback, as: UTF8.self)
    }

    /// The escape sequence that puts `text` on the terminal's clipboard (OSC 52:
    /// `ESC ] 52 ; c ; BASE64 BEL`): the one escape sequence the browser writes on purpose.
    /// Terminals that do not take it ignore it; tmux passes it on with `set-clipboard on`.
    package static func osc52(_ text: String) -> String {
        "\u{1b}]52;c;" + Data(text.utf8).base64EncodedString() + "\u{7}"
    }
}
