import Foundation

/// Several keys for the default crypt, newest first: encrypts with the newest and decrypts
/// with whichever key opens the value, so values written under an older key still read
/// (key rotation, as CTPersistance's `Action_secretKey` list allows).
///
/// An empty ring encrypts nothing and decrypts nothing: both throw `CryptError.noKey`.
public struct KeyRing: DataCrypt {
    /// The keys, newest first.
    public let keys: [EncryptionKey]
    private let crypts: [AESGCMCrypt]

    /// A ring of `keys`, newest first.
    public init(_ keys: [EncryptionKey]) {
        self.keys = keys
        self.crypts = keys.map(AESGCMCrypt.init)
    }

    /// Parses keys written as `--key` takes them (hex, base64 or `@path`), newest first.
    public init(parsing texts: [String]) throws {
        self.init(try texts.map(EncryptionKey.init(parsing:)))
    }

    /// A ring with no key.
    public static let empty = KeyRing([])

    /// True when the ring holds no key.
    public var isEmpty: Bool { keys.isEmpty }

    /// Encrypts with the newest key.
    public func encrypt(_ plaintext: Data) throws -> Data {
        guard let newest = crypts.first else { throw CryptError.noKey }
        return try newest.encrypt(plaintext)
    }

    /// Encrypts the bytes with the newest key, without copying them first.
    public func encrypt(bytes plaintext: UnsafeRawBufferPointer) throws -> Data {
        guard let newest = crypts.first else { throw CryptError.noKey }
        return try newest.encrypt(bytes: plaintext)
    }

    /// Encrypts the bytes with the newest key, bound to the place `context` names.
    public func encrypt(bytes plaintext: UnsafeRawBufferPointer, boundTo context: CryptContext) throws -> Data {
        guard let newest = crypts.first else { throw CryptError.noKey }
        return try newest.encrypt(bytes: plaintext, boundTo: context)
    }

    /// Decrypts with whichever key opens the value; `CryptError.wrongKey` when none does.
    public func decrypt(_ ciphertext: Data) throws -> Data {
        try decryptReportingKey(ciphertext).plaintext
    }

    /// Decrypts a value read at `context` with whichever key opens it. A value bound to
    /// another place throws `CryptError.misplaced` at once: no key would change that.
    public func decrypt(_ ciphertext: Data, boundTo context: CryptContext) throws -> Data {
        guard !crypts.isEmpty else { throw CryptError.noKey }
        for crypt in crypts {
            do { return try crypt.decrypt(ciphertext, boundTo: context) } catch CryptError.wrongKey {
                continue
            }
        }
        throw CryptError.wrongKey(keysTried: crypts.count)
    }

    /// Decrypts and tells which key (its index, 0 = newest) opened the value.
    public func decryptReportingKey(_ ciphertext: Data) throws -> (plaintext: Data, keyIndex: Int) {
        guard !crypts.isEmpty else { throw CryptError.noKey }
        for (index, crypt) in crypts.enumerated() {
            do { return (try crypt.decrypt(ciphertext), index) } catch CryptError.wrongKey {
                continue
            }
        }
        throw CryptError.wrongKey(keysTried: crypts.count)
    }
}
