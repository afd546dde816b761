import Foundation

extension DAOValue {
    /// Converts any `Encodable` model into a value that chained access can read.
    ///
    /// Structs and classes become `.model(typeName, fields)` so `<crypt class="…">` can match
    /// them; `Date`, `Data`, `URL` and `Decimal` keep their meaning instead of being flattened.
    ///
    /// For example: `try DAOValue(encoding: Message(id: 1, content: "hi"))` is
    /// `.model("Message", ["id": 1, "content": "hi"])`.
    /// - throws: `EncodingError` when the model's `encode(to:)` throws.
    public init<T: Encodable>(encoding model: T) throws {
        if let value = model as? DAOValue { self = value; return }
        self = try DAOValueEncoding.encode(model, codingPath: [])
    }
}

/// The Encoder behind `DAOValue(encoding:)`. Containers write into reference boxes that are
/// read back once `encode(to:)` returns.
enum DAOValueEncoding {
    static func encode<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> DAOValue {
        switch value {
        case let v as DAOValue: return v
        case let d as Date: return .date(d)
        case let d as Data: return .data(d)
        case let u as URL: return .string(u.absoluteString)
        case let d as Decimal: return .double(NSDecimalNumber(decimal: d).doubleValue)
        default: break
        }
        let encoder = Encoder(codingPath: codingPath, typeName: String(describing: T.self))
        try value.encode(to: encoder)
        return encoder.box.value(typeName: encoder.typeName)
    }

    /// What a container has written so far.
    final class Box {
        enum Content { case empty, single(DAOValue), keyed([String: DAOValue]), unkeyed([Box]) }
        var content: Content = .empty
        var keyedBoxes: [String: Box] = [:]

        func value(typeName: String?) -> DAOValue {
            switch content {
            case .empty:
                if !keyedBoxes.isEmpty { return keyedValue(typeName: typeName) }
                return .nil
            case .single(let v): return v
            case .keyed: return keyedValue(typeName: typeName)
            case .unkeyed(let boxes): return .array(boxes.map { $0.value(typeName: nil) })
            }
        }

        private func keyedValue(typeName: String?) -> DAOValue {
            var fields: [String: DAOValue] = [:]
            if case .keyed(let f) = content { fields = f }
            for (k, b) in keyedBoxes { fields[k] = b.value(typeName: nil) }
            if let typeName, !typeName.hasPrefix("Dictionary<") { return .model(typeName, fields) }
            return .dictionary(fields)
        }

        func setKeyed(_ key: String, _ value: DAOValue) {
            if case .keyed(var f) = content { f[key] = value; content = .keyed(f) } else { content = .keyed([key: value]) }
        }
    }

    final class Encoder: Swift.Encoder {
        let codingPath: [any CodingKey]
        let typeName: String?
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        let box = Box()

        init(codingPath: [any CodingKey], typeName: String?) {
            self.codingPath = codingPath
            self.typeName = typeName
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            if case .keyed = box.content {} else { box.content = .keyed([:]) }
            return KeyedEncodingContainer(Keyed<Key>(box: box, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            if case .unkeyed = box.content {} else { box.content = .unkeyed([]) }
            return Unkeyed(box: box, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            Single(box: box, codingPath: codingPath)
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let box: Box
        let codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) throws { box.setKeyed(key.stringValue, .nil) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { box.setKeyed(key.stringValue, .bool(value)) }
        mutating func encode(_ value: String, forKey key: Key) throws { box.setKeyed(key.stringValue, .string(value)) }
        mutating func encode(_ value: Double, forKey key: Key) throws { box.setKeyed(key.stringValue, .double(value)) }
        mutating func encode(_ value: Float, forKey key: Key) throws { box.setKeyed(key.stringValue, .double(Double(value))) }
        mutating func encode(_ value: Int, forKey key: Key) throws { box.setKeyed(key.stringValue, .integer(Int64(value))) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { box.setKeyed(key.stringValue, .integer(Int64(value))) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { box.setKeyed(key.stringValue, .integer(Int64(value))) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { box.setKeyed(key.stringValue, .integer(Int64(value))) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { box.setKeyed(key.stringValue, .integer(value)) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { box.setKeyed(key.stringValue, try DAOValueEncoding.unsigned(UInt64(value), codingPath + [key])) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { box.setKeyed(key.stringValue, .integer(Int64(value))) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { box.setKeyed(key.stringValue, .integer(Int64(value))) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { box.setKeyed(key.stringValue, .integer(Int64(value))) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { box.setKeyed(key.stringValue, try DAOValueEncoding.unsigned(value, codingPath + [key])) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            box.setKeyed(key.stringValue, try DAOValueEncoding.encode(value, codingPath: codingPath + [key]))
        }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            box.setKeyed(key.stringValue, try value.map { try DAOValueEncoding.encode($0, codingPath: codingPath + [key]) } ?? .nil)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let child = Box()
            child.content = .keyed([:])
            box.keyedBoxes[key.stringValue] = child
            return KeyedEncodingContainer(Keyed<NestedKey>(box: child, codingPath: codingPath + [key]))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = Box()
            child.content = .unkeyed([])
            box.keyedBoxes[key.stringValue] = child
            return Unkeyed(box: child, codingPath: codingPath + [key])
        }
        mutating func superEncoder() -> any Swift.Encoder { Encoder(codingPath: codingPath, typeName: nil) }
        mutating func superEncoder(forKey key: Key) -> any Swift.Encoder { Encoder(codingPath: codingPath + [key], typeName: nil) }
    }

    struct IndexKey: CodingKey {
        let intValue: Int?
        var stringValue: String { String(intValue ?? 0) }
        init(_ i: Int) { intValue = i }
        init?(stringValue: String) { return nil }
        init?(intValue: Int) { self.intValue = intValue }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let box: Box
        let codingPath: [any CodingKey]
        var count: Int { if case .unkeyed(let b) = box.content { return b.count } else { return 0 } }

        private func append(_ value: DAOValue) {
            let child = Box()
            child.content = .single(value)
            appendBox(child)
        }
        private func appendBox(_ child: Box) {
            if case .unkeyed(var b) = box.content { b.append(child); box.content = .unkeyed(b) } else { box.content = .unkeyed([child]) }
        }

        mutating func encodeNil() throws { append(.nil) }
        mutating func encode(_ value: Bool) throws { append(.bool(value)) }
        mutating func encode(_ value: String) throws { append(.string(value)) }
        mutating func encode(_ value: Double) throws { append(.double(value)) }
        mutating func encode(_ value: Float) throws { append(.double(Double(value))) }
        mutating func encode(_ value: Int) throws { append(.integer(Int64(value))) }
        mutating func encode(_ value: Int8) throws { append(.integer(Int64(value))) }
        mutating func encode(_ value: Int16) throws { append(.integer(Int64(value))) }
        mutating func encode(_ value: Int32) throws { append(.integer(Int64(value))) }
        mutating func encode(_ value: Int64) throws { append(.integer(value)) }
        mutating func encode(_ value: UInt) throws { append(try DAOValueEncoding.unsigned(UInt64(value), codingPath)) }
        mutating func encode(_ value: UInt8) throws { append(.integer(Int64(value))) }
        mutating func encode(_ value: UInt16) throws { append(.integer(Int64(value))) }
        mutating func encode(_ value: UInt32) throws { append(.integer(Int64(value))) }
        mutating func encode(_ value: UInt64) throws { append(try DAOValueEncoding.unsigned(value, codingPath)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            append(try DAOValueEncoding.encode(value, codingPath: codingPath + [IndexKey(count)]))
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let child = Box()
            child.content = .keyed([:])
            appendBox(child)
            return KeyedEncodingContainer(Keyed<NestedKey>(box: child, codingPath: codingPath + [IndexKey(count)]))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let child = Box()
            child.content = .unkeyed([])
            appendBox(child)
            return Unkeyed(box: child, codingPath: codingPath + [IndexKey(count)])
        }
        mutating func superEncoder() -> any Swift.Encoder { Encoder(codingPath: codingPath, typeName: nil) }
    }

    struct Single: SingleValueEncodingContainer {
        let box: Box
        let codingPath: [any CodingKey]
        private func set(_ v: DAOValue) { box.content = .single(v) }
        mutating func encodeNil() throws { set(.nil) }
        mutating func encode(_ value: Bool) throws { set(.bool(value)) }
        mutating func encode(_ value: String) throws { set(.string(value)) }
        mutating func encode(_ value: Double) throws { set(.double(value)) }
        mutating func encode(_ value: Float) throws { set(.double(Double(value))) }
        mutating func encode(_ value: Int) throws { set(.integer(Int64(value))) }
        mutating func encode(_ value: Int8) throws { set(.integer(Int64(value))) }
        mutating func encode(_ value: Int16) throws { set(.integer(Int64(value))) }
        mutating func encode(_ value: Int32) throws { set(.integer(Int64(value))) }
        mutating func encode(_ value: Int64) throws { set(.integer(value)) }
        mutating func encode(_ value: UInt) throws { set(try DAOValueEncoding.unsigned(UInt64(value), codingPath)) }
        mutating func encode(_ value: UInt8) throws { set(.integer(Int64(value))) }
        mutating func encode(_ value: UInt16) throws { set(.integer(Int64(value))) }
        mutating func encode(_ value: UInt32) throws { set(.integer(Int64(value))) }
        mutating func encode(_ value: UInt64) throws { set(try DAOValueEncoding.unsigned(value, codingPath)) }
        mutating func encode<T: Encodable>(_ value: T) throws { set(try DAOValueEncoding.encode(value, codingPath: codingPath)) }
    }

    static func unsigned(_ value: UInt64, _ path: [any CodingKey]) throws -> DAOValue {
        guard value <= UInt64(Int64.max) else {
            throw EncodingError.invalidValue(value, .init(codingPath: path, debugDescription: "\(value) does not fit in a 64-bit signed integer"))
        }
        return .integer(Int64(value))
    }
}
