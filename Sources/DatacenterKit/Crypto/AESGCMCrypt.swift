import Foundation

/// The default crypt: AES-256-GCM through OpenSSL.
///
/// An encrypted value is `0x01` (format), a 12-byte random nonce, the ciphertext, and the
/// 16-byte authentication tag; the format byte is authenticated too. A wrong key or an
/// altered value fails authentication and throws `CryptError.wrongKey`.
public struct AESGCMCrypt: DataCrypt {
    /// The format tag that starts every value this crypt writes.
    public static let formatTag: UInt8 = 0x01
    /// Bytes added to every plaintext: format tag, nonce and tag.
    public static let overhead = 1 + GCMCipher.nonceSize + GCMCipher.tagSize

    /// The key.
    public let key: EncryptionKey
    private let cipher: GCMCipher

    public init(key: EncryptionKey) {
        self.key = key
        self.cipher = GCMCipher(key: key)
    }

    public func encrypt(_ plaintext: Data) throws -> Data {
        try plaintext.withUnsafeBytes { try encrypt(bytes: $0) }
    }

    public func encrypt(bytes plaintext: UnsafeRawBufferPointer) throws -> Data {
        var out = Data(count: Self.overhead + plaintext.count)
        var aad = Self.formatTag
        let ok = out.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) -> Bool in
            let o = buffer.bindMemory(to: UInt8.self).baseAddress!
            o[0] = Self.formatTag
            let body = o + 1 + GCMCipher.nonceSize
            return withUnsafeBytes(of: &aad) { a in
                cipher.seal(plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), count: plaintext.count, aad: a,
                            nonce: o + 1, output: body, tag: body + plaintext.count)
            }
        }
        guard ok else { throw CryptError.cipherFailure("AES-256-GCM encryption failed") }
        return out
    }

    public func decrypt(_ ciphertext: Data) throws -> Data {
        guard ciphertext.count >= Self.overhead else {
            throw CryptError.malformed("\(ciphertext.count) bytes is shorter than any encrypted value")
        }
        guard ciphertext.first == Self.formatTag else {
            throw CryptError.malformed("unknown format tag \(ciphertext.first.map { String($0) } ?? "-")")
        }
        let bodyCount = ciphertext.count - Self.overhead
        var plain = Data(count: bodyCount)
        var aad = Self.formatTag
        let ok = ciphertext.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
            let c = raw.bindMemory(to: UInt8.self).baseAddress!
            let body = c + 1 + GCMCipher.nonceSize
            return plain.withUnsafeMutableBytes { (p: UnsafeMutableRawBufferPointer) -> Bool in
                withUnsafeBytes(of: &aad) { a in
                    cipher.open(body, count: bodyCount, aad: a, nonce: c + 1, tag: body + bodyCount,
                                output: p.bindMemory(to: UInt8.self).baseAddress)
                }
            }
        }
        guard ok else { throw CryptError.wrongKey(keysTried: 1) }
        return plain
    }

    /// True when `data` has the shape of a value this crypt wrote (format tag and length).
    public static func looksEncrypted(_ data: Data) -> Bool {
        data.count >= overhead && data.first == formatTag
    }
}
