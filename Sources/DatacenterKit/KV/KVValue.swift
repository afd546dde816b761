import Foundation

/// How a KV value was encoded when stored; `value(forKey:)` decodes by it.
public enum KVEncoding: String, Sendable, CaseIterable, Codable {
    case string, integer, double, bool
    /// A property list (`setObject`), stored as a binary property list.
    case plist
    /// A `Codable` value archived as a binary property list (`archiveObject`).
    case archive
    /// A `Codable` value as JSON text (`saveJsonObject`).
    case json
}

/// The option bits stored with each value (`APDataOptions`).
public struct KVOptions: OptionSet, Sendable, Hashable {
    /// The bits as stored.
    public let rawValue: UInt32
    /// Options from their stored bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Encrypted with the store's default crypt; reads decrypt without being told.
    public static let defaultEncrypted = KVOptions(rawValue: 1 << 0)
    /// Encrypted with a caller's crypt; reads need that crypt.
    public static let customEncrypted = KVOptions(rawValue: 1 << 1)
    /// May be deleted by cache cleaning.
    public static let purgeable = KVOptions(rawValue: 1 << 31)

    /// True when either encryption bit is set.
    public var isEncrypted: Bool { !isDisjoint(with: [.defaultEncrypted, .customEncrypted]) }
}

/// A decoded KV value, tagged with how it was stored.
public enum KVValue: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    case plist(PropertyListValue)
    /// The binary property list of an archived `Codable` value.
    case archive(Data)
    /// The JSON text of a `Codable` value.
    case json(Data)

    /// How this value is stored.
    public var encoding: KVEncoding {
        switch self {
        case .string: return .string
        case .integer: return .integer
        case .double: return .double
        case .bool: return .bool
        case .plist: return .plist
        case .archive: return .archive
        case .json: return .json
        }
    }

    /// The value as a database value when stored in the clear: strings and JSON as text,
    /// numbers as numbers, property lists and archives as blobs.
    func databaseValue() throws -> DatabaseValue {
        switch self {
        case .string(let s): return .text(s)
        case .integer(let v): return .integer(v)
        case .double(let d): return .real(d)
        case .bool(let b): return .integer(b ? 1 : 0)
        case .plist(let p): return .blob(try p.binaryPropertyList())
        case .archive(let d): return .blob(d)
        case .json(let d): return .text(String(decoding: d, as: UTF8.self))
        }
    }

    /// The bytes that are encrypted when the value is stored encrypted.
    func plaintextBytes() throws -> Data {
        switch self {
        case .string(let s): return Data(utf8Of: s)
        case .integer(let v): return Data(utf8Of: String(v))
        case .double(let d): return Data(utf8Of: "\(d)")
        case .bool(let b): return Data(utf8Of: b ? "1" : "0")
        case .plist(let p): return try p.binaryPropertyList()
        case .archive(let d), .json(let d): return d
        }
    }

    /// Calls `body` with the bytes `plaintextBytes()` returns, without copying a string's
    /// UTF-8 into `Data` first (what encrypting a string reads).
    func withPlaintextBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        if case .string(var s) = self { return try s.withUTF8 { try body(UnsafeRawBufferPointer($0)) } }
        return try plaintextBytes().withUnsafeBytes(body)
    }

    /// Reads a value stored in the clear.
    init(stored value: DatabaseValue, encoding: KVEncoding) throws {
        switch (encoding, value) {
        case (.string, .text(let s)): self = .string(s)
        case (.integer, .integer(let v)): self = .integer(v)
        case (.double, .real(let d)): self = .double(d)
        case (.double, .integer(let v)): self = .double(Double(v))
        case (.bool, .integer(let v)): self = .bool(v != 0)
        case (.plist, .blob(let d)): self = .plist(try Self.propertyList(d))
        case (.archive, .blob(let d)): self = .archive(d)
        case (.json, .text(let s)): self = .json(Data(s.utf8))
        case (.json, .blob(let d)): self = .json(d)
        default:
            throw KVError.corruptValue("a \(encoding.rawValue) value stored as \(value.storageClassName)")
        }
    }

    /// Reads a value from decrypted bytes.
    init(plaintext data: Data, encoding: KVEncoding) throws {
        func text() throws -> String {
            guard let s = String(data: data, encoding: .utf8) else { throw KVError.corruptValue("decrypted \(encoding.rawValue) is not UTF-8") }
            return s
        }
        switch encoding {
        case .string: self = .string(try text())
        case .integer:
            guard let v = Int64(try text()) else { throw KVError.corruptValue("decrypted integer is not a number") }
            self = .integer(v)
        case .double:
            guard let d = Double(try text()) else { throw KVError.corruptValue("decrypted double is not a number") }
            self = .double(d)
        case .bool: self = .bool(try text() == "1")
        case .plist: self = .plist(try Self.propertyList(data))
        case .archive: self = .archive(data)
        case .json: self = .json(data)
        }
    }

    /// Parses a stored property list; bytes that are not one throw `KVError.corruptValue`
    /// (never the parser's own error, which callers would not expect from a KV read).
    private static func propertyList(_ data: Data) throws -> PropertyListValue {
        do { return try PropertyListValue(propertyList: data) } catch let error as KVError { throw error } catch {
            throw KVError.corruptValue("a plist value that is not a property list (\(data.count) bytes)")
        }
    }

    /// The value as a JSON-compatible object, for `--json` output and the browser.
    public var jsonObject: Any {
        switch self {
        case .string(let s): return s
        case .integer(let v): return v
        case .double(let d): return d
        case .bool(let b): return b
        case .plist(let p): return p.jsonObject
        case .archive(let d):
            return (try? ArchiveCodec.propertyList(from: d))?.jsonObject ?? ["$data": d.base64EncodedString()]
        case .json(let d):
            return (try? JSONSerialization.jsonObject(with: d, options: [.fragmentsAllowed]))
                ?? String(decoding: d, as: UTF8.self)
        }
    }

    /// A one-line human rendering: strings as they are, everything else as compact JSON.
    public var displayString: String {
        switch self {
        case .string(let s): return s
        case .integer(let v): return String(v)
        case .double(let d): return "\(d)"
        case .bool(let b): return b ? "true" : "false"
        default:
            let object = jsonObject
            guard JSONSerialization.isValidJSONObject(object) || object is String || object is NSNumber,
                  let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
            else { return "\(object)" }
            return String(decoding: data, as: UTF8.self)
        }
    }
}
