import Foundation

/// Encodes a record's properties to column values: one value per top-level key, nested
/// values as JSON text. A nil optional is left out (callers fill declared columns with NULL).
struct RecordEncoder {
    /// The columns `record` encodes to.
    static func encode(_ record: some Encodable) throws -> [String: DatabaseValue] {
        let storage = Storage(record: String(describing: type(of: record)))
        try record.encode(to: ColumnEncoder(storage: storage))
        return storage.values
    }

    final class Storage {
        var values: [String: DatabaseValue] = [:]
        let record: String
        init(record: String) { self.record = record }
    }

    struct ColumnEncoder: Encoder {
        let storage: Storage
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Columns<Key>(storage: storage))
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            preconditionFailure("RecordEncoder: a record is a keyed type")
        }
        func singleValueContainer() -> any SingleValueEncodingContainer {
            preconditionFailure("RecordEncoder: a record is a keyed type")
        }
    }

    struct Columns<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let storage: Storage
        var codingPath: [any CodingKey] { [] }
        mutating func encodeNil(forKey key: Key) throws { storage.values[key.stringValue] = .null }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            storage.values[key.stringValue] = try RecordEncoder.databaseValue(of: value)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            preconditionFailure("RecordEncoder: encode nested values as Codable properties")
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            preconditionFailure("RecordEncoder: encode nested values as Codable properties")
        }
        mutating func superEncoder() -> any Encoder { ColumnEncoder(storage: storage) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { ColumnEncoder(storage: storage) }
    }

    /// One property's column value: a convertible value as itself, anything else as JSON text.
    static func databaseValue<T: Encodable>(of value: T) throws -> DatabaseValue {
        if let convertible = value as? any DatabaseValueConvertible { return convertible.databaseValue }
        let data = try JSONEncoder().encode(value)
        return .text(String(decoding: data, as: UTF8.self))
    }
}
