import COpenSSL
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
    public static let overhead = 1 + 12 + 16

    /// The key.
    public let key: EncryptionKey

    public init(key: EncryptionKey) { self.key = key }

    public func encrypt(_ plaintext: Data) throws -> Data {
        var nonce = [UInt8](repeating: 0, count: 12)
        guard RAND_bytes(&nonce, 12) == 1 else { throw CryptError.cipherFailure("no random bytes") }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw CryptError.cipherFailure("no cipher context") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var out = Data(count: Self.overhead + plaintext.count)
        var aad = [Self.formatTag]
        let ok: Bool = key.bytes.withUnsafeBufferPointer { keyPtr in
            out.withUnsafeMutableBytes { (buf: UnsafeMutableRawBufferPointer) -> Bool in
                let o = buf.bindMemory(to: UInt8.self).baseAddress!
                o[0] = Self.formatTag
                for i in 0..<12 { o[1 + i] = nonce[i] }
                var len: Int32 = 0
                guard EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nil, keyPtr.baseAddress, nonce) == 1,
                      EVP_EncryptUpdate(ctx, nil, &len, &aad, 1) == 1 else { return false }
                let written: Bool = plaintext.withUnsafeBytes { p in
                    plaintext.isEmpty || EVP_EncryptUpdate(ctx, o + 13, &len,
                        p.bindMemory(to: UInt8.self).baseAddress, Int32(plaintext.count)) == 1
                }
                guard written, EVP_EncryptFinal_ex(ctx, o + 13 + plaintext.count, &len) == 1 else { return false }
                return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, o + 13 + plaintext.count) == 1
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
        guard let ctx = EVP_CIPHER_CTX_new() else { throw CryptError.cipherFailure("no cipher context") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let bodyCount = ciphertext.count - Self.overhead
        var plain = Data(count: bodyCount)
        var aad = [Self.formatTag]
        let ok: Bool = key.bytes.withUnsafeBufferPointer { keyPtr in
            ciphertext.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
                let c = raw.bindMemory(to: UInt8.self).baseAddress!
                var tag = [UInt8](UnsafeBufferPointer(start: c + 13 + bodyCount, count: 16))
                return plain.withUnsafeMutableBytes { (pbuf: UnsafeMutableRawBufferPointer) -> Bool in
                    let p = pbuf.bindMemory(to: UInt8.self).baseAddress
                    var len: Int32 = 0
                    guard EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, keyPtr.baseAddress, c + 1) == 1,
                          EVP_DecryptUpdate(ctx, nil, &len, &aad, 1) == 1 else { return false }
                    if bodyCount > 0 {
                        guard EVP_DecryptUpdate(ctx, p, &len, c + 13, Int32(bodyCount)) == 1 else { return false }
                    }
                    guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, &tag) == 1 else { return false }
                    var scratch = [UInt8](repeating: 0, count: 16)
                    return EVP_DecryptFinal_ex(ctx, &scratch, &len) == 1
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
