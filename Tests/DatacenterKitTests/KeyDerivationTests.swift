import CPageCipher
import Foundation
import Testing

/// The page cipher's own PBKDF2 (hashed padded-key states reused across iterations) gives
/// exactly what OpenSSL's PKCS5_PBKDF2_HMAC gives, for every digest SQLCipher uses, secrets
/// shorter and longer than a hash block, salts, counts and output lengths over a block.
@Suite struct KeyDerivationTests {
    static func derive(_ body: (UnsafeMutableRawPointer) -> Int32, length: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: length)
        let ok = out.withUnsafeMutableBytes { body($0.baseAddress!) }
        return ok == 1 ? out : nil
    }

    @Test(arguments: [DC_CIPHER_SHA1, DC_CIPHER_SHA256, DC_CIPHER_SHA512])
    func matchesOpenSSL(algorithm: Int32) {
        var generator = SystemRandomNumberGenerator()
        for secretLength in [0, 1, 8, 32, 63, 64, 65, 127, 128, 129, 300] {
            for (iterations, length) in [(1, 32), (2, 32), (3, 20), (1000, 64), (17, 100), (4000, 32)] {
                let secret = (0..<secretLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let ours = Self.derive({ dc_cipher_pbkdf2(algorithm, secret, Int32(secret.count), salt, 16, Int32(iterations), $0, Int32(length)) },
                                       length: length)
                let reference = Self.derive({
                    dc_cipher_pbkdf2_reference(algorithm, secret, Int32(secret.count), salt, 16, Int32(iterations), $0, Int32(length))
                }, length: length)
                #expect(ours != nil && ours == reference, "digest \(algorithm), secret \(secretLength) bytes, \(iterations) iterations, \(length) bytes")
            }
        }
    }

    @Test func refusesWhatPBKDF2DoesNotDefine() {
        #expect(Self.derive({ dc_cipher_pbkdf2(9, "k", 1, "salt", 4, 1, $0, 32) }, length: 32) == nil)
        #expect(Self.derive({ dc_cipher_pbkdf2(DC_CIPHER_SHA1, "k", 1, "salt", 4, 0, $0, 32) }, length: 32) == nil)
    }
}
