import Foundation

/// The default crypt: AES-256-GCM through OpenSSL.
///
/// Two value formats, told apart by their first byte, which is authenticated too:
/// - format 1, unbound (`encrypt`): `0x01`, a 12-byte random nonce, the ciphertext, and the
///   16-byte tag; the additional data is the format byte.
/// - format 2, bound to a place (`encrypt(bytes:boundTo:)`, what KV values use): `0x02`, the
///   context's 4-byte check (big-endian), the nonce, the ciphertext and the tag; the additional
///   data is those first 5 bytes followed by the context's bytes, so the value opens only
///   where it was written.
///
/// A wrong key or an altered value fails authentication and throws `CryptError.wrongKey`; a
/// bound value read at another place throws `CryptError.misplaced`.
public struct AESGCMCrypt: DataCrypt {
    /// The format tag that starts every unbound value (format 1).
    public static let formatTag: UInt8 = 0x01
    /// The format tag that starts every value bound to a place (format 2).
    public static let boundFormatTag: UInt8 = 0x02
    /// Bytes added to every plaintext of an unbound value: format tag, nonce and tag.
    public static let overhead = 1 + GCMCipher.nonceSize + GCMCipher.tagSize
    /// Bytes added to every plaintext of a bound value: format tag, context check, nonce, tag.
    public static let boundOverhead = boundHeaderSize + GCMCipher.nonceSize + GCMCipher.tagSize
    /// The format tag and the context check of a bound value.
    static let boundHeaderSize = 1 + 4

    /// The key.
    public let key: EncryptionKey
    private let cipher: GCMCipher

    /// The default crypt under `key`.
    public init(key: EncryptionKey) {
        self.key = key
        self.cipher = GCMCipher(key: key)
    }

    /// Encrypts in format 1 (not bound to a place): a fresh nonce, then ciphertext and tag.
    public func encrypt(_ plaintext: Data) throws -> Data {
        try plaintext.withUnsafeBytes { try encrypt(bytes: $0) }
    }

    /// Format 1, reading the bytes in place.
    public func encrypt(bytes plaintext: UnsafeRawBufferPointer) throws -> Data {
        try seal(plaintext, headerSize: 1, context: []) { $0[0] = Self.formatTag }
    }

    /// Encrypts in format 2: the place `context` names is authenticated with the value, so the ciphertext opens only there.
    public func encrypt(bytes plaintext: UnsafeRawBufferPointer, boundTo context: CryptContext) throws -> Data {
        let check = context.check
        return try seal(plaintext, headerSize: Self.boundHeaderSize, context: context.bytes) { header in
            header[0] = Self.boundFormatTag
            header[1] = UInt8(check >> 24)
            header[2] = UInt8(check >> 16 & 0xFF)
            header[3] = UInt8(check >> 8 & 0xFF)
            header[4] = UInt8(check & 0xFF)
        }
    }

    /// Decrypts a format-1 value; a format-2 value must be read through `decrypt(_:boundTo:)`.
    public func decrypt(_ ciphertext: Data) throws -> Data {
        guard ciphertext.count >= Self.overhead else {
            throw CryptError.malformed("\(ciphertext.count) bytes is shorter than any encrypted value")
        }
        switch ciphertext.first {
        case Self.formatTag: return try open(ciphertext, headerSize: 1, context: [])
        case Self.boundFormatTag:
            throw CryptError.malformed("the value is bound to its place (format 2): read it from where it is stored")
        default: throw CryptError.malformed("unknown format tag \(ciphertext.first.map { String($0) } ?? "-")")
        }
    }

    /// Decrypts a value read at `context`: format 2 checks the place, format 1 decrypts as before binding existed.
    public func decrypt(_ ciphertext: Data, boundTo context: CryptContext) throws -> Data {
        guard ciphertext.first == Self.boundFormatTag else { return try decrypt(ciphertext) }
        guard ciphertext.count >= Self.boundOverhead else {
            throw CryptError.malformed("\(ciphertext.count) bytes is shorter than any bound encrypted value")
        }
        let stored = ciphertext.withUnsafeBytes { raw in
            raw.dropFirst().prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        // Told apart before decrypting, so a moved value is reported as moved, not as a wrong
        // key; a forged check still fails authentication below.
        guard stored == context.check else { throw CryptError.misplaced }
        return try open(ciphertext, headerSize: Self.boundHeaderSize, context: context.bytes)
    }

    /// The format of `data` (1 or 2) when it has the shape of a value this crypt wrote
    /// (format tag and length), else nil.
    public static func format(of data: Data) -> Int? {
        switch data.first {
        case formatTag where data.count >= overhead: return 1
        case boundFormatTag where data.count >= boundOverhead: return 2
        default: return nil
        }
    }

    /// True when `data` has the shape of a value this crypt wrote (format tag and length).
    public static func looksEncrypted(_ data: Data) -> Bool { format(of: data) != nil }

    /// A header of `headerSize` bytes (written by `writeHeader`), a nonce, the ciphertext of
    /// `plaintext` and its tag; the additional data is the header then `context`. The header
    /// is written straight into the output (no allocation besides the output's).
    private func seal(_ plaintext: UnsafeRawBufferPointer, headerSize: Int, context: [UInt8],
                      writeHeader: (UnsafeMutablePointer<UInt8>) -> Void) throws -> Data {
        var out = Data(count: headerSize + GCMCipher.nonceSize + plaintext.count + GCMCipher.tagSize)
        let ok = out.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) -> Bool in
            let o = buffer.bindMemory(to: UInt8.self).baseAddress!
            writeHeader(o)
            let nonce = o + headerSize
            let body = nonce + GCMCipher.nonceSize
            return context.withUnsafeBytes { c in
                cipher.seal(plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), count: plaintext.count,
                            aad: UnsafeRawBufferPointer(start: o, count: headerSize), moreAAD: c,
                            nonce: nonce, output: body, tag: body + plaintext.count)
            }
        }
        guard ok else { throw CryptError.cipherFailure("AES-256-GCM encryption failed") }
        return out
    }

    /// Opens a value whose first `headerSize` bytes are authenticated with `context` after them.
    private func open(_ ciphertext: Data, headerSize: Int, context: [UInt8]) throws -> Data {
        let bodyCount = ciphertext.count - headerSize - GCMCipher.nonceSize - GCMCipher.tagSize
        var plain = Data(count: bodyCount)
        let ok = ciphertext.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
            let c = raw.bindMemory(to: UInt8.self).baseAddress!
            let nonce = c + headerSize
            let body = nonce + GCMCipher.nonceSize
            return plain.withUnsafeMutableBytes { (p: UnsafeMutableRawBufferPointer) -> Bool in
                context.withUnsafeBytes { more in
                    cipher.open(body, count: bodyCount, aad: UnsafeRawBufferPointer(start: c, count: headerSize), moreAAD: more,
                                nonce: nonce, tag: body + bodyCount, output: p.bindMemory(to: UInt8.self).baseAddress)
                }
            }
        }
        guard ok else { throw CryptError.wrongKey(keysTried: 1) }
        return plain
    }
}
