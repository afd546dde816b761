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
    public static let overhead = 1 + nonceSize + tagSize
    static let nonceSize = 12
    static let tagSize = 16

    /// The key.
    public let key: EncryptionKey
    private let contexts: CipherContexts

    public init(key: EncryptionKey) {
        self.key = key
        self.contexts = CipherContexts(key: key)
    }

    public func encrypt(_ plaintext: Data) throws -> Data {
        var out = Data(count: Self.overhead + plaintext.count)
        let ok = try contexts.withEncryptor { ctx, nonces -> Bool in
            out.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) -> Bool in
                let o = buffer.bindMemory(to: UInt8.self).baseAddress!
                o[0] = Self.formatTag
                guard nonces.next(into: o + 1) else { return false }
                let body = o + 1 + Self.nonceSize
                var len: Int32 = 0
                var aad = Self.formatTag
                guard EVP_EncryptInit_ex(ctx, nil, nil, nil, o + 1) == 1,
                      EVP_EncryptUpdate(ctx, nil, &len, &aad, 1) == 1 else { return false }
                let written = plaintext.isEmpty || plaintext.withUnsafeBytes { p in
                    EVP_EncryptUpdate(ctx, body, &len, p.bindMemory(to: UInt8.self).baseAddress, Int32(plaintext.count)) == 1
                }
                return written
                    && EVP_EncryptFinal_ex(ctx, body + plaintext.count, &len) == 1
                    && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagSize), body + plaintext.count) == 1
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
        let ok = try contexts.withDecryptor { ctx -> Bool in
            ciphertext.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
                let c = raw.bindMemory(to: UInt8.self).baseAddress!
                let nonce = c + 1, body = c + 1 + Self.nonceSize
                let tag = UnsafeMutableRawPointer(mutating: body + bodyCount)
                return plain.withUnsafeMutableBytes { (pbuf: UnsafeMutableRawBufferPointer) -> Bool in
                    let p = pbuf.bindMemory(to: UInt8.self).baseAddress
                    var len: Int32 = 0
                    var aad = Self.formatTag
                    var scratch: UInt8 = 0
                    guard EVP_DecryptInit_ex(ctx, nil, nil, nil, nonce) == 1,
                          EVP_DecryptUpdate(ctx, nil, &len, &aad, 1) == 1 else { return false }
                    if bodyCount > 0 {
                        guard EVP_DecryptUpdate(ctx, p, &len, body, Int32(bodyCount)) == 1 else { return false }
                    }
                    // OpenSSL only reads the tag here, despite the mutable pointer.
                    guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagSize), tag) == 1 else { return false }
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

/// One encryption and one decryption context per key, keyed once (the AES key schedule is
/// the costly part) and reused under a lock, plus the nonce source.
private final class CipherContexts: @unchecked Sendable {
    private let lock = NSLock()
    private let encryptor: OpaquePointer?
    private let decryptor: OpaquePointer?
    private let nonces = NonceSource()

    init(key: EncryptionKey) {
        encryptor = EVP_CIPHER_CTX_new()
        decryptor = EVP_CIPHER_CTX_new()
        key.bytes.withUnsafeBufferPointer { k in
            if let encryptor { EVP_EncryptInit_ex(encryptor, EVP_aes_256_gcm(), nil, k.baseAddress, nil) }
            if let decryptor { EVP_DecryptInit_ex(decryptor, EVP_aes_256_gcm(), nil, k.baseAddress, nil) }
        }
    }

    deinit {
        EVP_CIPHER_CTX_free(encryptor)
        EVP_CIPHER_CTX_free(decryptor)
    }

    func withEncryptor<T>(_ body: (OpaquePointer, NonceSource) throws -> T) throws -> T {
        guard let encryptor else { throw CryptError.cipherFailure("no cipher context") }
        lock.lock()
        defer { lock.unlock() }
        return try body(encryptor, nonces)
    }

    func withDecryptor<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
        guard let decryptor else { throw CryptError.cipherFailure("no cipher context") }
        lock.lock()
        defer { lock.unlock() }
        return try body(decryptor)
    }
}

/// Random 96-bit nonces from OpenSSL's generator, fetched 256 at a time: one `RAND_bytes`
/// call costs about as much as the whole encryption of a small value, so it is amortized.
/// Every byte is used once; a forked child never reuses its parent's buffer. Not locked:
/// its owner serializes access.
private final class NonceSource {
    private static let batch = 256
    private var buffer = [UInt8](repeating: 0, count: batch * AESGCMCrypt.nonceSize)
    private var used = batch
    private var owner: pid_t = 0

    /// Writes the next 12 random bytes at `destination`; false when no randomness was had.
    func next(into destination: UnsafeMutablePointer<UInt8>) -> Bool {
        let pid = getpid()
        if used == Self.batch || pid != owner {
            guard RAND_bytes(&buffer, Int32(buffer.count)) == 1 else { return false }
            used = 0
            owner = pid
        }
        let start = used * AESGCMCrypt.nonceSize
        buffer.withUnsafeBufferPointer { b in
            destination.update(from: b.baseAddress! + start, count: AESGCMCrypt.nonceSize)
            // Wipe what was handed out, so the buffer never holds a nonce twice.
        }
        for i in start..<(start + AESGCMCrypt.nonceSize) { buffer[i] = 0 }
        used += 1
        return true
    }
}
