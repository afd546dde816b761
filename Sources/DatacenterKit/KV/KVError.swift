/// Why a key-value operation failed.
public enum KVError: Error, Sendable, Equatable {
    /// The stored value has another type than the one asked for.
    case typeMismatch(business: String, key: String, stored: KVEncoding, requested: KVEncoding)
    /// The value is encrypted and could not be decrypted (`reason` `.misplaced`: it is bound
    /// to another business or key, so its ciphertext was copied here).
    case cannotDecrypt(business: String, key: String, reason: CryptError)
    /// The value was encrypted with a custom crypt and none was passed to read it.
    case needsCustomCrypt(business: String, key: String)
    /// The stored bytes do not decode as their recorded encoding.
    case corruptValue(String)
    /// A value that cannot be stored as asked.
    case unsupportedValue(String)
    /// A `Codable` value failed to encode or decode.
    case coding(business: String, key: String, reason: String)
    /// A write on a store opened read-only.
    case readOnly(path: String)
    /// A business or key name that cannot be used.
    case invalidName(String)
}

extension KVError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .typeMismatch(b, k, stored, requested):
            return "type mismatch for \(b)/\(k): stored as \(stored.rawValue), read as \(requested.rawValue)"
        case let .cannotDecrypt(b, k, .misplaced):
            return "cannot decrypt \(b)/\(k): the value is not for this business/key (it was encrypted for another one and copied here)"
        case let .cannotDecrypt(b, k, reason):
            return "cannot decrypt \(b)/\(k): \(reason)"
        case let .needsCustomCrypt(b, k):
            return "\(b)/\(k) is encrypted with a custom crypt: pass that crypt to read it"
        case let .corruptValue(why): return "corrupt value: \(why)"
        case let .unsupportedValue(why): return "unsupported value: \(why)"
        case let .coding(b, k, why): return "cannot encode or decode \(b)/\(k): \(why)"
        case let .readOnly(path): return "the store \(path) is open read-only: writes are refused"
        case let .invalidName(why): return "invalid name: \(why)"
        }
    }
}

import Foundation
extension KVError: LocalizedError {
    public var errorDescription: String? { description }
}
