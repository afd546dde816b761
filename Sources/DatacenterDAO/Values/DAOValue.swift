import Foundation
import DatacenterKit

/// A value handed to a DAO method, or read back from one: the engine's stand-in for the
/// Objective-C `id` arguments of the original product.
///
/// Models reach the engine as `.model(typeName, fields)` (see `DAOValue(encoding:)`), so a
/// `<crypt class="…">` rule can recognise them; everywhere else a model reads like a dictionary.
///
/// For example:
/// ```swift
/// let args: [DAOValue] = [42, "ann", ["tags": ["a", "b"]]]
/// ```
public enum DAOValue: Sendable, Hashable {
    case `nil`
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    /// Bytes; bound as a blob.
    case data(Data)
    /// A date; bound as REAL seconds since 1970.
    case date(Date)
    case array([DAOValue])
    case dictionary([String: DAOValue])
    /// An encoded model: its Swift type name and its properties. Reads like a dictionary.
    case model(String, [String: DAOValue])

    /// True for `.nil`.
    public var isNil: Bool { if case .nil = self { return true } else { return false } }

    /// The properties of a dictionary or a model, or nil for anything else.
    public var fields: [String: DAOValue]? {
        switch self {
        case .dictionary(let d), .model(_, let d): return d
        default: return nil
        }
    }

    /// The elements of an array, or nil for anything else.
    public var elements: [DAOValue]? { if case .array(let a) = self { return a } else { return nil } }

    /// The type name of a model, or nil for anything else (used by `<crypt class>`).
    public var modelTypeName: String? { if case .model(let n, _) = self { return n } else { return nil } }

    /// The text of a string, or nil for anything else.
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }

    /// The value as an integer, when it is an integer, a whole double or a bool.
    public var int64Value: Int64? {
        switch self {
        case .integer(let i): return i
        case .double(let d) where d.rounded() == d && abs(d) < 9.2e18: return Int64(d)
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    /// The value as a double, when it is a number or a bool.
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .double(let d): return d
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    /// One step of chained access (`model.content`, `adict.key`, `list.count`).
    ///
    /// A dictionary or model answers its key; `count` on an array, a dictionary or model
    /// without a `count` key, or a string gives the number of elements (characters).
    /// Anything else, or a missing key, is nil (as `valueForKey:` on nil is nil).
    public func member(_ name: String) -> DAOValue {
        switch self {
        case .dictionary(let d), .model(_, let d):
            if let v = d[name] { return v }
            return name == "count" ? .integer(Int64(d.count)) : .nil
        case .array(let a):
            if name == "count" { return .integer(Int64(a.count)) }
            if let i = Int(name), a.indices.contains(i) { return a[i] }
            return .nil
        case .string(let s):
            return name == "count" ? .integer(Int64(s.count)) : .nil
        case .data(let d):
            return name == "count" ? .integer(Int64(d.count)) : .nil
        default:
            return .nil
        }
    }

    /// Follows a dotted path of members: `value(at: ["a", "b"])` is `a.b`.
    public func value(at path: some Sequence<String>) -> DAOValue {
        path.reduce(self) { $0.member($1) }
    }

    /// A short name of the value's kind, for error messages (never the value itself).
    public var kindName: String {
        switch self {
        case .nil: return "nil"
        case .bool: return "bool"
        case .integer: return "integer"
        case .double: return "double"
        case .string: return "string"
        case .data: return "data"
        case .date: return "date"
        case .array: return "array"
        case .dictionary: return "dictionary"
        case .model(let n, _): return "model \(n)"
        }
    }

    /// `kindName` with its article, as messages say it: "an integer", "a string", "nil".
    public var kindPhrase: String {
        switch self {
        case .nil: return "nil"
        case .integer, .array: return "an \(kindName)"
        default: return "a \(kindName)"
        }
    }
}

extension DAOValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `nil` is `.nil`.
    public init(nilLiteral: ()) { self = .nil }
    /// A Boolean literal is `.bool`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal is `.integer`.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A floating-point literal is `.double`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string literal is `.string`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal is `.array`.
    public init(arrayLiteral elements: DAOValue...) { self = .array(elements) }
    /// A dictionary literal is `.dictionary` (a repeated key keeps its last value).
    public init(dictionaryLiteral elements: (String, DAOValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

// MARK: SQLite values

extension DAOValue {
    /// The value as SQLite binds it.
    ///
    /// **Decision**: bools bind as 0/1, dates as REAL seconds since 1970 (FMDB's choice),
    /// arrays, dictionaries and models as JSON text.
    public var databaseValue: DatabaseValue {
        switch self {
        case .nil: return .null
        case .bool(let b): return .integer(b ? 1 : 0)
        case .integer(let i): return .integer(i)
        case .double(let d): return .real(d)
        case .string(let s): return .text(s)
        case .data(let d): return .blob(d)
        case .date(let d): return .real(d.timeIntervalSince1970)
        case .array, .dictionary, .model: return .text(jsonText)
        }
    }

    /// A value read from SQLite.
    public init(_ value: DatabaseValue) {
        switch value {
        case .null: self = .nil
        case .integer(let i): self = .integer(i)
        case .real(let d): self = .double(d)
        case .text(let s): self = .string(s)
        case .blob(let d): self = .data(d)
        }
    }

    /// A JSON-compatible Foundation object (data as base64, dates as seconds since 1970).
    public var jsonObject: Any {
        switch self {
        case .nil: return NSNull()
        case .bool(let b): return b
        case .integer(let i): return i
        case .double(let d): return d
        case .string(let s): return s
        case .data(let d): return d.base64EncodedString()
        case .date(let d): return d.timeIntervalSince1970
        case .array(let a): return a.map(\.jsonObject)
        case .dictionary(let d), .model(_, let d): return d.mapValues(\.jsonObject)
        }
    }

    /// The value as compact JSON with sorted keys (stable, so SQL that inlines it is stable).
    public var jsonText: String {
        let object = jsonObject
        guard JSONSerialization.isValidJSONObject(object),
              let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        else {
            if let d = try? JSONSerialization.data(withJSONObject: [object], options: [.sortedKeys]),
               let s = String(data: d, encoding: .utf8) {
                return String(s.dropFirst().dropLast())
            }
            return "null"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
