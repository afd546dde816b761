import Foundation

/// A value as SQLite stores it: one of its five storage classes.
///
/// Booleans are stored as integers 0 and 1, as SQLite itself does.
public enum DatabaseValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// A boolean as SQLite stores it: the integer 0 or 1.
    public static func bool(_ value: Bool) -> DatabaseValue { .integer(value ? 1 : 0) }

    /// True for `.null`.
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// The integer, or a real with no fractional part, or nil.
    public var int64Value: Int64? {
        switch self {
        case .integer(let v): return v
        case .real(let d) where d.rounded() == d && abs(d) < 9.2e18: return Int64(d)
        default: return nil
        }
    }

    /// The number as a double, or nil when this is not a number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let v): return Double(v)
        case .real(let d): return d
        default: return nil
        }
    }

    /// The text, or nil when this is not text.
    public var stringValue: String? { if case .text(let s) = self { return s } else { return nil } }

    /// The bytes of a blob, or nil when this is not a blob.
    public var dataValue: Data? { if case .blob(let d) = self { return d } else { return nil } }

    /// The name of the storage class, as `typeof()` would say it.
    public var storageClassName: String {
        switch self {
        case .null: return "null"
        case .integer: return "integer"
        case .real: return "real"
        case .text: return "text"
        case .blob: return "blob"
        }
    }
}

extension DatabaseValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    /// `nil` is SQL NULL.
    public init(nilLiteral: ()) { self = .null }
    /// An integer literal is an SQL INTEGER.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A floating-point literal is an SQL REAL.
    public init(floatLiteral value: Double) { self = .real(value) }
    /// A string literal is SQL TEXT.
    public init(stringLiteral value: String) { self = .text(value) }
    /// A Boolean is stored as SQLite stores one: the INTEGER 1 or 0.
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

extension DatabaseValue: CustomStringConvertible {
    /// A SQL-literal-like rendering, for previews and diagnostics.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let d): return String(d)
        case .text(let s): return Database.quoteLiteral(s)
        case .blob(let d): return "X'" + d.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}
