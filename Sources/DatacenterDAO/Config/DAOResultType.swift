/// What a select returns, from its `result` attribute.
///
/// `int`, `long long`, `bool`, `double`, `string`, `binary`: the first column of the first
/// row; `{}`: the row as a dictionary; `AType`: the row as a registered model (or a
/// dictionary when `AType` is not registered); `:AMap`: the row through a `<map>`. In square
/// brackets, every row as an array.
public struct DAOResultType: Sendable, Equatable, CustomStringConvertible {
    /// The shape of one row's result.
    public enum Element: Sendable, Equatable {
        case int, longLong, bool, double, string, binary
        /// `{}`: column → value.
        case dictionary
        /// A model type by name.
        case model(String)
        /// A `<map>` by id.
        case map(String)

        /// True for a row's fields (`{}`, a model, a map); false for a scalar of the first column.
        var isRow: Bool {
            switch self {
            case .dictionary, .model, .map: return true
            case .int, .longLong, .bool, .double, .string, .binary: return false
            }
        }
    }
    /// One row's shape.
    public let element: Element
    /// True for `[…]`: every row.
    public let isArray: Bool
    /// The attribute as written.
    public let text: String

    /// Parses a `result` attribute; nil when it is not one of the forms.
    public init?(_ text: String) {
        var t = text.trimmingCharacters(in: .whitespaces)
        self.text = t
        if t.hasPrefix("[") {
            guard t.hasSuffix("]") else { return nil }
            t = String(t.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
            isArray = true
        } else {
            isArray = false
        }
        let collapsed = t.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        switch collapsed {
        case "int": element = .int
        case "long long", "long", "longlong", "integer": element = .longLong
        case "bool": element = .bool
        case "double", "float": element = .double
        case "string": element = .string
        case "binary": element = .binary
        case "{}": element = .dictionary
        default:
            if t.hasPrefix(":") {
                let name = String(t.dropFirst()).trimmingCharacters(in: .whitespaces)
                guard DAOResultType.isIdentifier(name) else { return nil }
                element = .map(name)
            } else {
                guard DAOResultType.isIdentifier(t) else { return nil }
                element = .model(t)
            }
        }
    }

    static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.first, first.isLetter || first == "_" else { return false }
        return s.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
    }

    public var description: String { text }
}
