import Foundation

/// A symmetric cipher for stored values: the engine's `APDataCrypt`.
///
/// Implement it to bring your own encryption; `encrypt` and `decrypt` must be inverses.
/// The default is `AESGCMCrypt` (through a `KeyRing` when several keys are in play).
public protocol DataCrypt: Sendable {
    /// Encrypts `plaintext`.
    func encrypt(_ plaintext: Data) throws -> Data
    /// Encrypts the bytes in `plaintext`, the same as `encrypt(Data(plaintext))`: lets a
    /// caller holding bytes elsewhere (a string's UTF-8) skip copying them into `Data` first.
    /// The default does that copy; implement it when your crypt can read the bytes in place.
    func encrypt(bytes plaintext: UnsafeRawBufferPointer) throws -> Data
    /// Decrypts what `encrypt` produced; throws `CryptError.wrongKey` when it cannot.
    func decrypt(_ ciphertext: Data) throws -> Data
}

extension DataCrypt {
    public func encrypt(bytes plaintext: UnsafeRawBufferPointer) throws -> Data {
        try encrypt(Data(plaintext))
    }
}

/// Why encryption or decryption failed. Messages never include keys or plaintext.
public enum CryptError: Error, Sendable, Equatable {
    /// The value is encrypted and no key was given.
    case noKey
    /// No key given opens the value: the key is wrong, or the value was altered.
    case wrongKey(keysTried: Int)
    /// The bytes are not in a format this crypt reads.
    case malformed(String)
    /// A key could not be read from what was given.
    case invalidKey(String)
    /// OpenSSL reported a failure.
    case cipherFailure(String)
}

extension CryptError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .noKey:
            return "the value is encrypted and no key was given (use --key or DATACENTER_KEY)"
        case .wrongKey(let n):
            return "wrong key: none of the \(n) key(s) given decrypts this value (or it was altered)"
        case .malformed(let why): return "not an encrypted value of this format: \(why)"
        case .invalidKey(let why): return "invalid key: \(why)"
        case .cipherFailure(let why): return "encryption failed: \(why)"
        }
    }
    public var errorDescription: String? { description }
}
