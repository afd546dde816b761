import Foundation

extension DAOValue {
    /// Decodes a `Decodable` model from this value (a row's column → value dictionary,
    /// usually).
    ///
    /// Decoding is lenient the way SQLite's types are: a bool reads from 0/1, an integer
    /// from a whole double or numeric text, a string from any scalar, `Data` from a blob or
    /// UTF-8 text, `Date` from seconds since 1970 or ISO 8601 text, and nested models or
    /// arrays from JSON text. A missing key reads as nil for optionals.
    /// - throws: `DecodingError` naming the coding path when a value does not fit.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try DAOValueDecoding.decode(type, from: self, codingPath: [])
    }
}

/// The Decoder behind `DAOValue.decode(_:)`.
enum DAOValueDecoding {
    static func decode<T: Decodable>(_ type: T.Type, from value: DAOValue, codingPath: [any CodingKey]) throws -> T {
        if T.self == DAOValue.self, let v = value as? T { return v }
        if T.self == Date.self {
            guard let d = date(value) as? T else { throw mismatch(type, value, codingPath) }
            return d
        }
        if T.self == Data.self {
            let bytes: Data?
            switch value {
            case .data(let d): bytes = d
            case .string(let s): bytes = Data(s.utf8)
            default: bytes = nil
            }
            guard let result = bytes as? T else { throw mismatch(type, value, codingPath) }
            return result
        }
        if T.self == URL.self {
            guard case .string(let s) = value, let u = URL(string: s) as? T else { throw mismatch(type, value, codingPath) }
            return u
        }
        return try T(from: Decoder(value: structured(value), codingPath: codingPath))
    }

    /// Text holding JSON reads as the structure it encodes (models stored as JSON columns).
    static func structured(_ value: DAOValue) -> DAOValue {
        guard case .string(let s) = value, let first = s.first, first == "{" || first == "[",
              let object = try? JSONSerialization.jsonObject(with: Data(s.utf8)) else { return value }
        return fromJSON(object)
    }

    static func fromJSON(_ object: Any) -> DAOValue {
        switch object {
        case is NSNull: return .nil
        case let s as String: return .string(s)
        case let n as NSNumber:
            if String(cString: n.objCType) == "c" { return .bool(n.boolValue) }
            if let i = Int64(exactly: n.doubleValue), !n.stringValue.contains(".") { return .integer(i) }
            return .double(n.doubleValue)
        case let a as [Any]: return .array(a.map(fromJSON))
        case let d as [String: Any]: return .dictionary(d.mapValues(fromJSON))
        default: return .nil
        }
    }

    static func date(_ value: DAOValue) -> Date? {
        switch value {
        case .date(let d): return d
        case .integer, .double: return value.doubleValue.map { Date(timeIntervalSince1970: $0) }
        case .string(let s):
            if let d = Double(s) { return Date(timeIntervalSince1970: d) }
            return ISO8601DateFormatter().date(from: s)
        default: return nil
        }
    }

    static func mismatch(_ type: Any.Type, _ value: DAOValue, _ path: [any CodingKey]) -> DecodingError {
        .typeMismatch(type, .init(codingPath: path, debugDescription: "cannot read \(type) from \(value.kindPhrase)"))
    }

    final class Decoder: Swift.Decoder {
        let value: DAOValue
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        init(value: DAOValue, codingPath: [any CodingKey]) {
            self.value = value
            self.codingPath = codingPath
        }
        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard let fields = value.fields else { throw mismatch([String: Any].self, value, codingPath) }
            return KeyedDecodingContainer(Keyed<Key, DictionaryFields>(fields: DictionaryFields(fields: fields), codingPath: codingPath))
        }
        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            guard let elements = value.elements else { throw mismatch([Any].self, value, codingPath) }
            return Unkeyed(elements: elements, codingPath: codingPath)
        }
        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            Single(value: value, codingPath: codingPath)
        }
    }

    // The coding path is made only for an error: building `codingPath + [key]` for every
    // field read cost an array per field.
    static func bool(_ v: DAOValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        switch v {
        case .bool(let b): return b
        case .integer(let i): return i != 0
        case .double(let d): return d != 0
        case .string(let s):
            switch s.lowercased() {
            case "1", "true", "yes": return true
            case "0", "false", "no", "": return false
            default: break
            }
        default: break
        }
        throw mismatch(Bool.self, v, path())
    }

    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ v: DAOValue, _ path: @autoclosure () -> [any CodingKey]) throws -> I {
        var wide: Int64?
        switch v {
        case .string(let s): wide = Int64(s.trimmingCharacters(in: .whitespaces)) ?? Double(s).flatMap { Int64(exactly: $0) }
        default: wide = v.int64Value
        }
        guard let wide, let result = I(exactly: wide) else { throw mismatch(type, v, path()) }
        return result
    }

    static func double(_ v: DAOValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Double {
        if let d = v.doubleValue { return d }
        if case .string(let s) = v, let d = Double(s) { return d }
        throw mismatch(Double.self, v, path())
    }

    static func string(_ v: DAOValue, _ path: @autoclosure () -> [any CodingKey]) throws -> String {
        switch v {
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .double(let d): return String(d)
        case .bool(let b): return b ? "true" : "false"
        case .data(let d):
            if let s = String(data: d, encoding: .utf8) { return s }
        default: break
        }
        throw mismatch(String.self, v, path())
    }

    /// Where a keyed container reads a model's fields: a row's dictionary here, or the
    /// columns of the row a statement is on (`TypedRows`).
    protocol Fields {
        /// The fields there are, for `allKeys`.
        var fieldNames: [String] { get }
        /// True when the model has field `name`.
        func hasField(_ name: String) -> Bool
        /// The value of field `name`, nil when there is none.
        func value(ofField name: String) throws -> DAOValue?
        /// A decoder of the whole model (`superDecoder()`).
        func wholeDecoder() throws -> any Swift.Decoder
        /// What the model holds for field `name`: a column to read directly, a value, or nothing.
        func cell(forField name: String) throws -> DAORowCell
    }

    /// The fields of a row's value: a dictionary.
    struct DictionaryFields: Fields {
        let fields: [String: DAOValue]
        var fieldNames: [String] { Array(fields.keys) }
        func hasField(_ name: String) -> Bool { fields[name] != nil }
        func value(ofField name: String) -> DAOValue? { fields[name] }
        func wholeDecoder() -> any Swift.Decoder { Decoder(value: .dictionary(fields), codingPath: []) }
        func cell(forField name: String) -> DAORowCell { fields[name].map(DAORowCell.value) ?? .missing }
    }

    /// A keyed container over `Fields`: one reading of each Swift type, whatever holds the
    /// fields.
    ///
    /// A class: `KeyedDecodingContainer` boxes it, and its box copies it out for every field
    /// read (the standard library's generic box reads its stored container by copy). A struct
    /// of two references was copied through its generic value witnesses, both retained and
    /// released, per field; a class is one retain and one release.
    final class Keyed<Key: CodingKey, Source: Fields>: KeyedDecodingContainerProtocol {
        let fields: Source
        let codingPath: [any CodingKey]

        init(fields: Source, codingPath: [any CodingKey]) {
            self.fields = fields
            self.codingPath = codingPath
        }

        var allKeys: [Key] { fields.fieldNames.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { fields.hasField(key.stringValue) }
        private func value(_ key: Key) throws -> DAOValue {
            guard let v = try fields.value(ofField: key.stringValue) else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no column or key \"\(key.stringValue)\""))
            }
            return v
        }
        func decodeNil(forKey key: Key) throws -> Bool { (try fields.value(ofField: key.stringValue) ?? .nil).isNil }
        /// The value of `key` when it is there and not nil: an optional field is read with
        /// one lookup, not the three (`contains`, `decodeNil`, `decode`) of the default.
        private func present(_ key: Key) throws -> DAOValue? {
            guard let v = try fields.value(ofField: key.stringValue), !v.isNil else { return nil }
            return v
        }
        /// Field `key` read as `T` (`DAORowCell.read`).
        @inline(__always)
        private func read<T: DAOFieldDecodable>(_ key: Key, _ convert: (DAOValue) throws -> T) throws -> T {
            guard let value = try fields.cell(forField: key.stringValue).read(by: convert) else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no column or key \"\(key.stringValue)\""))
            }
            return value
        }
        /// `read` for an optional field: nil when it is missing or nil, with one lookup, not
        /// the three (`contains`, `decodeNil`, `decode`) of the default.
        @inline(__always)
        private func readIfPresent<T: DAOFieldDecodable>(_ key: Key, _ convert: (DAOValue) throws -> T) throws -> T? {
            let cell = try fields.cell(forField: key.stringValue)
            return cell.isNil ? nil : try cell.read(by: convert)
        }
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try readIfPresent(key) { try bool($0, codingPath + [key]) } }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try readIfPresent(key) { try string($0, codingPath + [key]) } }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try readIfPresent(key) { try double($0, codingPath + [key]) } }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try readIfPresent(key) { try integer(type, $0, codingPath + [key]) } }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try readIfPresent(key) { try integer(type, $0, codingPath + [key]) } }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            try present(key).map { try DAOValueDecoding.decode(type, from: $0, codingPath: codingPath + [key]) }
        }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try read(key) { try bool($0, codingPath + [key]) } }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try read(key) { try string($0, codingPath + [key]) } }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try read(key) { try double($0, codingPath + [key]) } }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try read(key) { Float(try double($0, codingPath + [key])) } }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try read(key) { try integer(type, $0, codingPath + [key]) } }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try read(key) { try integer(type, $0, codingPath + [key]) } }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try read(key) { try integer(type, $0, codingPath + [key]) } }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try read(key) { try integer(type, $0, codingPath + [key]) } }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try read(key) { try integer(type, $0, codingPath + [key]) } }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try read(key) { try integer(type, $0, codingPath + [key]) } }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try read(key) { try integer(type, $0, codingPath + [key]) } }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try read(key) { try integer(type, $0, codingPath + [key]) } }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try read(key) { try integer(type, $0, codingPath + [key]) } }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try read(key) { try integer(type, $0, codingPath + [key]) } }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try DAOValueDecoding.decode(type, from: try value(key), codingPath: codingPath + [key])
        }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try Decoder(value: structured(try value(key)), codingPath: codingPath + [key]).container(keyedBy: type)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try Decoder(value: structured(try value(key)), codingPath: codingPath + [key]).unkeyedContainer()
        }
        func superDecoder() throws -> any Swift.Decoder { try fields.wholeDecoder() }
        func superDecoder(forKey key: Key) throws -> any Swift.Decoder {
            Decoder(value: try fields.value(ofField: key.stringValue) ?? .nil, codingPath: codingPath + [key])
        }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let elements: [DAOValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        init(elements: [DAOValue], codingPath: [any CodingKey]) {
            self.elements = elements
            self.codingPath = codingPath
        }

        private mutating func next() throws -> DAOValue {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(DAOValue.self, .init(codingPath: codingPath, debugDescription: "no element \(currentIndex)"))
            }
            defer { currentIndex += 1 }
            return elements[currentIndex]
        }
        private var path: [any CodingKey] { codingPath + [DAOValueEncoding.IndexKey(currentIndex)] }

        mutating func decodeNil() throws -> Bool {
            if !isAtEnd, elements[currentIndex].isNil { currentIndex += 1; return true }
            return false
        }
        mutating func decode(_ type: Bool.Type) throws -> Bool { let p = path; return try bool(try next(), p) }
        mutating func decode(_ type: String.Type) throws -> String { let p = path; return try string(try next(), p) }
        mutating func decode(_ type: Double.Type) throws -> Double { let p = path; return try double(try next(), p) }
        mutating func decode(_ type: Float.Type) throws -> Float { let p = path; return Float(try double(try next(), p)) }
        mutating func decode(_ type: Int.Type) throws -> Int { let p = path; return try integer(type, try next(), p) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { let p = path; return try integer(type, try next(), p) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { let p = path; return try integer(type, try next(), p) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { let p = path; return try integer(type, try next(), p) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { let p = path; return try integer(type, try next(), p) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { let p = path; return try integer(type, try next(), p) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { let p = path; return try integer(type, try next(), p) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { let p = path; return try integer(type, try next(), p) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { let p = path; return try integer(type, try next(), p) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { let p = path; return try integer(type, try next(), p) }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let p = path
            return try DAOValueDecoding.decode(type, from: try next(), codingPath: p)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let p = path
            return try Decoder(value: structured(try next()), codingPath: p).container(keyedBy: type)
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let p = path
            return try Decoder(value: structured(try next()), codingPath: p).unkeyedContainer()
        }
        mutating func superDecoder() throws -> any Swift.Decoder {
            let p = path
            return Decoder(value: try next(), codingPath: p)
        }
    }

    struct Single: SingleValueDecodingContainer {
        let value: DAOValue
        let codingPath: [any CodingKey]
        func decodeNil() -> Bool { value.isNil }
        func decode(_ type: Bool.Type) throws -> Bool { try bool(value, codingPath) }
        func decode(_ type: String.Type) throws -> String { try string(value, codingPath) }
        func decode(_ type: Double.Type) throws -> Double { try double(value, codingPath) }
        func decode(_ type: Float.Type) throws -> Float { Float(try double(value, codingPath)) }
        func decode(_ type: Int.Type) throws -> Int { try integer(type, value, codingPath) }
        func decode(_ type: Int8.Type) throws -> Int8 { try integer(type, value, codingPath) }
        func decode(_ type: Int16.Type) throws -> Int16 { try integer(type, value, codingPath) }
        func decode(_ type: Int32.Type) throws -> Int32 { try integer(type, value, codingPath) }
        func decode(_ type: Int64.Type) throws -> Int64 { try integer(type, value, codingPath) }
        func decode(_ type: UInt.Type) throws -> UInt { try integer(type, value, codingPath) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type, value, codingPath) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type, value, codingPath) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type, value, codingPath) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type, value, codingPath) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try DAOValueDecoding.decode(type, from: value, codingPath: codingPath) }
    }
}
