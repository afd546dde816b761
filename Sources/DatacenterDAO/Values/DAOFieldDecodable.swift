import Foundation

/// A Swift type a `DAORow` field reads as: the standard scalars, `Data`, `Date`, `DAOValue`,
/// `Decodable` values held as JSON text (see `DAOFieldDecodable.decodeJSON`), and optionals
/// of these.
///
/// Each reads with the conversion `DAOValue.decode` uses for it, so a field reads the same
/// through a `DAORowDecodable` type as through a `Decodable` one.
public protocol DAOFieldDecodable {
    /// The value of field `field` (present, possibly `.nil`) read as this type.
    /// - throws: `DecodingError.typeMismatch` naming the field.
    static func decode(fieldValue value: DAOValue, field: String) throws -> Self
    /// What a row without the field reads as: an error, except for optionals (nil).
    /// - throws: `DecodingError.keyNotFound` naming the field.
    static func decodeMissingField(_ field: String) throws -> Self
    /// The field read straight from `column` when it holds what this type reads without
    /// conversion (an INTEGER for an integer type, TEXT for a `String`); nil reads it through
    /// its value with `decode(fieldValue:field:)`, which must give the same result.
    static func decode(column: DAOColumn) -> Self?
}

extension DAOFieldDecodable {
    /// Always nil: the field is read through its value.
    @inlinable
    public static func decode(column: DAOColumn) -> Self? { nil }

    /// A missing field is an error (`keyNotFound` naming it), as for a `Decodable` type.
    public static func decodeMissingField(_ field: String) throws -> Self {
        throw DecodingError.keyNotFound(DAOFieldKey(field), .init(codingPath: [], debugDescription: "no column or key \"\(field)\""))
    }
}

/// The coding key of a `DAORow` field, in the errors reading it throws.
public struct DAOFieldKey: CodingKey, Sendable {
    /// The field's name.
    public let stringValue: String
    /// Always nil: fields are named, never numbered.
    public var intValue: Int? { nil }
    /// The key of field `name`.
    public init(_ name: String) { stringValue = name }
    /// The key of field `stringValue`.
    public init?(stringValue: String) { self.stringValue = stringValue }
    /// None: fields are named, never numbered.
    public init?(intValue: Int) { nil }
}

/// An optional reads nil for a `nil` value or a missing field, else what `Wrapped` reads.
extension Optional: DAOFieldDecodable where Wrapped: DAOFieldDecodable {
    @inlinable
    public static func decode(fieldValue value: DAOValue, field: String) throws -> Wrapped? {
        value.isNil ? nil : try Wrapped.decode(fieldValue: value, field: field)
    }
    @inlinable
    public static func decodeMissingField(_ field: String) throws -> Wrapped? { nil }
    @inlinable
    public static func decode(column: DAOColumn) -> Wrapped?? {
        if column.isNull { return .some(nil) }
        return Wrapped.decode(column: column).map { .some($0) }
    }
}

extension Bool: DAOFieldDecodable {
    @inlinable
    public static func decode(column: DAOColumn) -> Bool? { column.integer.map { $0 != 0 } }
    public static func decode(fieldValue value: DAOValue, field: String) throws -> Bool {
        try DAOValueDecoding.bool(value, [DAOFieldKey(field)])
    }
}

extension String: DAOFieldDecodable {
    @inlinable
    public static func decode(column: DAOColumn) -> String? { column.text }
    public static func decode(fieldValue value: DAOValue, field: String) throws -> String {
        try DAOValueDecoding.string(value, [DAOFieldKey(field)])
    }
}

extension Double: DAOFieldDecodable {
    @inlinable
    public static func decode(column: DAOColumn) -> Double? { column.real }
    public static func decode(fieldValue value: DAOValue, field: String) throws -> Double {
        try DAOValueDecoding.double(value, [DAOFieldKey(field)])
    }
}

extension Float: DAOFieldDecodable {
    @inlinable
    public static func decode(column: DAOColumn) -> Float? { column.real.map(Float.init) }
    public static func decode(fieldValue value: DAOValue, field: String) throws -> Float {
        Float(try DAOValueDecoding.double(value, [DAOFieldKey(field)]))
    }
}

/// The integer types read as `Decodable` reads them: exactly, from an integer, a whole
/// double or numeric text.
extension DAOFieldDecodable where Self: FixedWidthInteger {
    @inlinable
    public static func decode(column: DAOColumn) -> Self? { column.integer.flatMap(Self.init(exactly:)) }
    public static func decode(fieldValue value: DAOValue, field: String) throws -> Self {
        try DAOValueDecoding.integer(Self.self, value, [DAOFieldKey(field)])
    }
}

extension Int: DAOFieldDecodable {}
extension Int8: DAOFieldDecodable {}
extension Int16: DAOFieldDecodable {}
extension Int32: DAOFieldDecodable {}
extension Int64: DAOFieldDecodable {}
extension UInt: DAOFieldDecodable {}
extension UInt8: DAOFieldDecodable {}
extension UInt16: DAOFieldDecodable {}
extension UInt32: DAOFieldDecodable {}
extension UInt64: DAOFieldDecodable {}

/// `Data`, `Date`, `URL` and `DAOValue` read as `DAOValue.decode` reads them.
private func decodeAsDecodable<T: Decodable>(_ value: DAOValue, _ field: String) throws -> T {
    try DAOValueDecoding.decode(T.self, from: value, codingPath: [DAOFieldKey(field)])
}

extension Data: DAOFieldDecodable {
    public static func decode(fieldValue value: DAOValue, field: String) throws -> Data { try decodeAsDecodable(value, field) }
}

extension Date: DAOFieldDecodable {
    public static func decode(fieldValue value: DAOValue, field: String) throws -> Date { try decodeAsDecodable(value, field) }
}

extension URL: DAOFieldDecodable {
    public static func decode(fieldValue value: DAOValue, field: String) throws -> URL { try decodeAsDecodable(value, field) }
}

extension DAOValue: DAOFieldDecodable {
    public static func decode(fieldValue value: DAOValue, field: String) throws -> DAOValue { value }
}

extension DAORow {
    /// A `Decodable` value of field `name`: a nested model or array held as JSON text, read
    /// as a `Decodable` type reads such a field (a `nil` value is nil for an optional `T`).
    /// - throws: `DecodingError` naming the field, `keyNotFound` when there is no such field.
    public func decodeJSON<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
        guard let value = try value(name) else {
            throw DecodingError.keyNotFound(DAOFieldKey(name), .init(codingPath: [], debugDescription: "no column or key \"\(name)\""))
        }
        return try DAOValueDecoding.decode(T.self, from: value, codingPath: [DAOFieldKey(name)])
    }
}
