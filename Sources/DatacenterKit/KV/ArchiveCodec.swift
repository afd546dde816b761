import Foundation

/// How the engine archives a `Codable` value: a binary property list of `{"value": …}`
/// (the wrapper lets scalars archive too, as a property list cannot hold one at top level).
/// Used by `archiveObject` and by the LRU disk cache, so tools decode both alike.
public enum ArchiveCodec {
    /// Archives `value`.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return try encoder.encode(Box(value: value))
    }

    /// Unarchives a value of type `T`.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try PropertyListDecoder().decode(Box<T>.self, from: data).value
    }

    /// The archived value as a property list, without knowing its Swift type (for tools).
    public static func propertyList(from data: Data) throws -> PropertyListValue {
        switch try PropertyListValue(propertyList: data) {
        case .dictionary(let box) where box.count == 1 && box["value"] != nil: return box["value"]!
        case let other: return other
        }
    }

    fileprivate struct Box<T> { var value: T }
}

extension ArchiveCodec.Box: Encodable where T: Encodable {}
extension ArchiveCodec.Box: Decodable where T: Decodable {}
