import Foundation

/// Why an encrypted file could not be read or written.
public enum EncryptedFileError: Error, Sendable, Equatable {
    /// The file does not start with the encrypted-file header.
    case notEncrypted(String)
    /// A header version this build does not read.
    case unsupportedVersion(String, Int)
    /// The file ends before its final chunk: it was cut short.
    case truncated(String)
    /// A chunk failed authentication after the first opened: the file was altered.
    case tampered(String, chunk: UInt64)
    /// No key given opens the file (or its first chunk was altered).
    case wrongKey(String, keysTried: Int)
    /// Reading or writing the file failed.
    case io(String, String)
}

extension EncryptedFileError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .notEncrypted(let p): return "\(p) is not an encrypted file (no DCEF header)"
        case let .unsupportedVersion(p, v): return "\(p) uses encrypted-file version \(v), which this version cannot read"
        case .truncated(let p): return "\(p) is truncated (or its end was altered): the last chunk does not authenticate"
        case let .tampered(p, chunk): return "\(p) was altered: chunk \(chunk) fails authentication (changed, or taken from another file or position)"
        case let .wrongKey(p, n): return "wrong key: none of the \(n) key(s) given opens \(p) (or its start was altered)"
        case let .io(p, why): return "\(p): \(why)"
        }
    }
    public var errorDescription: String? { description }
}
