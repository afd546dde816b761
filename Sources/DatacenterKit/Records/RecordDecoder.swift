import Foundation

/// Decodes a record from a row: one column per top-level key, nested values from JSON text.
/// A missing column or a value of the wrong kind is a `RecordError` naming the column and
/// the record type.
struct RecordDecoder {
    /// `type` read from `row`.
    static func decode<T: Decodable>(_ type: T.Type, from row: Row) throws -> T {
        try T(from: RowDecoder(row: row, record: String(describing: T.self)))
    }

    struct RowDecoder: Decoder {
        let row: Row
        let record: String
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            KeyedDecodingContainer(Columns<Key>(row: row, record: record))
        }
        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw RecordError.unsupported("a record is read as a keyed type, one column per property", record: record)
        }
        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            throw RecordError.unsupported("a record is read as a keyed type, one column per property", record: record)
        }
    }

    struct Columns<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let row: Row
        let record: String
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { row.columnNames.compactMap { Key(stringValue: $0) } }
        func contains(_ key: Key) -> Bool { row[key.stringValue] != nil }

        private func value(_ key: Key) throws -> DatabaseValue {
            guard let value = row[key.stringValue] else { throw RecordError.missingColumn(key.stringValue, record: record) }
            return value
        }
        private func mismatch(_ key: Key, _ expected: String, _ found: DatabaseValue) -> RecordError {
            .typeMismatch(column: key.stringValue, record: record, expected: expected, found: found.storageClassName)
        }

        func decodeNil(forKey key: Key) throws -> Bool { try value(key).isNull }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let value = try value(key)
            func integer() throws -> Int64 {
                guard case .integer(let v) = value else { throw mismatch(key, "an integer", value) }
                return v
            }
            switch type {
            case is Int.Type: return Int(try integer()) as! T
            case is Int64.Type: return try integer() as! T
            case is Int32.Type:
                guard let v = Int32(exactly: try integer()) else { throw mismatch(key, "a 32-bit integer", value) }
                return v as! T
            case is Bool.Type: return (try integer() != 0) as! T
            case is Double.Type:
                guard let v = value.doubleValue else { throw mismatch(key, "a number", value) }
                return v as! T
            case is Date.Type:
                guard let v = value.doubleValue else { throw mismatch(key, "a date (seconds since 1970)", value) }
                return Date(timeIntervalSince1970: v) as! T
            case is String.Type:
                guard case .text(let v) = value else { throw mismatch(key, "text", value) }
                return v as! T
            case is Data.Type:
                guard case .blob(let v) = value else { throw mismatch(key, "a blob", value) }
                return v as! T
            default:
                guard case .text(let json) = value else { throw mismatch(key, "JSON text", value) }
                do { return try JSONDecoder().decode(T.self, from: Data(json.utf8)) } catch {
                    throw mismatch(key, "JSON text of \(T.self)", value)
                }
            }
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw RecordError.unsupported("column \(key.stringValue): nested values are read as Codable properties", record: record)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw RecordError.unsupported("column \(key.stringValue): nested values are read as Codable properties", record: record)
        }
        func superDecoder() throws -> any Decoder { RowDecoder(row: row, record: record) }
        func superDecoder(forKey key: Key) throws -> any Decoder { RowDecoder(row: row, record: record) }
    }
}
