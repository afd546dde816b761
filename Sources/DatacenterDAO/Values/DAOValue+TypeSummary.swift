import Foundation

extension DAOValue {
    /// The value's type and a short look at it, for a form that shows how typed text was
    /// understood: `bool true`, `int 2`, `string "bob"`, `data 12 bytes`,
    /// `array of 3`, `dictionary {a, b}`, `model MessageModel {content, time}`, `nil`.
    /// Strings longer than `limit` characters are cut with `…`.
    public func typeSummary(limit: Int = 40) -> String {
        switch self {
        case .nil: return "nil"
        case .bool(let b): return "bool \(b)"
        case .integer(let i): return "int \(i)"
        case .double(let d): return "double \(d)"
        case .string(let s):
            let shown = s.count > limit ? String(s.prefix(limit)) + "…" : s
            return "string " + DAOValue.string(shown).jsonText
        case .data(let d): return "data \(d.count) bytes"
        case .date(let d): return "date " + ISO8601DateFormatter().string(from: d)
        case .array(let a): return "array of \(a.count)"
        case .dictionary(let d): return "dictionary {" + d.keys.sorted().joined(separator: ", ") + "}"
        case .model(let type, let d): return "model \(type) {" + d.keys.sorted().joined(separator: ", ") + "}"
        }
    }
}
