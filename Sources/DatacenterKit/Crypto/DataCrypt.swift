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
    /// Encrypts the bytes in `plaintext` bound to `context` (where the value is stored):
    /// the result decrypts only through `decrypt(_:boundTo:)` with the same context. The
    /// default ignores the context and calls `encrypt(bytes:)`; implement it (with
    /// `decrypt(_:boundTo:)`) so that values cannot be moved between places.
    func encrypt(bytes plaintext: UnsafeRawBufferPointer, boundTo context: CryptContext) throws -> Data
    /// Decrypts a value read at the place `context` names: a value bound to another place
    /// throws `CryptError.misplaced` (or `.wrongKey` when its stored check was forged too);
    /// an unbound value written before binding existed still decrypts. The default ignores
    /// the context and calls `decrypt(_:)`.
    func decrypt(_ ciphertext: Data, boundTo context: CryptContext) throws -> Data
}

extension DataCrypt {
    /// Copies the bytes into `Data` and calls `encrypt(_:)`.
    public func encrypt(bytes plaintext: UnsafeRawBufferPointer) throws -> Data {
        try encrypt(Data(plaintext))
    }

    /// Ignores the place and calls `encrypt(bytes:)`: a custom crypt binds nothing unless it implements this.
    public func encrypt(bytes plaintext: UnsafeRawBufferPointer, boundTo context: CryptContext) throws -> Data {
        try encrypt(bytes: plaintext)
    }

    /// Ignores the place and calls `decrypt(_:)`.
    public func decrypt(_ ciphertext: Data, boundTo context: CryptContext) throws -> Data {
        try decrypt(ciphertext)
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
    /// The value is bound to another place (for a KV value: another business, key or type)
    /// than the one it was read from: its ciphertext was copied or moved there.
    case misplaced
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
        case .misplaced: return "the value is not for this place: it was encrypted for another business/key and copied here"
        }
    }
    public var errorDescription: String? { description }
}
