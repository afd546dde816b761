import Foundation
import Testing
@testable import DatacenterKit

/// `AESGCMCrypt` and `KeyRing`.
@Suite struct CryptoTests {
    static let sizes = [0, 1, 15, 16, 17, 1000, 1 << 20]

    @Test(arguments: sizes)
    func roundTripAndLayout(_ size: Int) throws {
        var rng = SplitMix64(seed: UInt64(size) &+ 0xC0FFEE)
        let plaintext = rng.bytes(size)
        let crypt = AESGCMCrypt(key: .random())
        let ciphertext = try crypt.encrypt(plaintext)
        #expect(ciphertext.count == plaintext.count + 29)
        #expect(AESGCMCrypt.overhead == 29)
        #expect(ciphertext.first == 0x01)
        #expect(AESGCMCrypt.looksEncrypted(ciphertext))
        if size >= 16 {
            // The body is not the plaintext.
            #expect(ciphertext[13..<(13 + size)] != plaintext[...])
        }
        #expect(try crypt.decrypt(ciphertext) == plaintext)
    }

    @Test func theSamePlaintextEncryptsDifferentlyEachTime() throws {
        let crypt = AESGCMCrypt(key: .random())
        let plaintext = Data("the same words".utf8)
        let a = try crypt.encrypt(plaintext)
        let b = try crypt.encrypt(plaintext)
        #expect(a != b)
        #expect(a[1..<13] != b[1..<13], "the nonce repeated")
        #expect(try crypt.decrypt(a) == plaintext)
        #expect(try crypt.decrypt(b) == plaintext)
    }

    @Test func anotherKeyCannotDecrypt() throws {
        let plaintext = Data("secret".utf8)
        let ciphertext = try AESGCMCrypt(key: .random()).encrypt(plaintext)
        #expect(throws: CryptError.wrongKey(keysTried: 1)) { try AESGCMCrypt(key: .random()).decrypt(ciphertext) }
    }

    @Test func flippingAnyOneByteIsDetected() throws {
        let crypt = AESGCMCrypt(key: .random())
        let plaintext = Data("twenty bytes of text".utf8)
        let ciphertext = try crypt.encrypt(plaintext)
        // Every position: format byte (0), nonce (1...12), body (13..<33), tag (33..<49).
        for index in ciphertext.indices {
            for mask: UInt8 in [0x01, 0x80] {
                var altered = ciphertext
                altered[index] ^= mask
                #expect(throws: CryptError.self, "byte \(index) flipped with \(mask) went unnoticed") {
                    try crypt.decrypt(altered)
                }
            }
        }
        var tagFlipped = ciphertext
        tagFlipped[tagFlipped.count - 1] ^= 0xFF
        #expect(throws: CryptError.wrongKey(keysTried: 1)) { try crypt.decrypt(tagFlipped) }
        var formatFlipped = ciphertext
        formatFlipped[0] = 0x02
        let error = #expect(throws: CryptError.self) { try crypt.decrypt(formatFlipped) }
        if case .malformed = error {} else { Issue.record("expected .malformed, got \(String(describing: error))") }
    }

    @Test func truncatedOrExtendedValuesAreDetected() throws {
        let crypt = AESGCMCrypt(key: .random())
        let ciphertext = try crypt.encrypt(Data("hello".utf8))
        #expect(throws: CryptError.self) { try crypt.decrypt(ciphertext.dropLast()) }
        #expect(throws: CryptError.self) { try crypt.decrypt(ciphertext + Data([0])) }
    }

    @Test(arguments: [0, 1, 12, 28])
    func tooShortInputIsMalformed(_ length: Int) throws {
        let crypt = AESGCMCrypt(key: .random())
        let input = Data([0x01] + Array(repeating: 0, count: max(0, length - 1))).prefix(length)
        let error = #expect(throws: CryptError.self) { try crypt.decrypt(Data(input)) }
        if case .malformed = error {} else { Issue.record("expected .malformed, got \(String(describing: error))") }
        #expect(!AESGCMCrypt.looksEncrypted(Data(input)))
    }

    @Test func decryptsASliceOfLargerData() throws {
        let crypt = AESGCMCrypt(key: .random())
        let ciphertext = try crypt.encrypt(Data("slice".utf8))
        let padded = Data([9, 9, 9]) + ciphertext + Data([7])
        let slice = padded[3..<(3 + ciphertext.count)]
        #expect(try crypt.decrypt(slice) == Data("slice".utf8))
    }

    @Test func cryptErrorsNeverShowPlaintext() throws {
        let crypt = AESGCMCrypt(key: .random())
        var ciphertext = try crypt.encrypt(Data("top secret words".utf8))
        ciphertext[20] ^= 1
        let error = #expect(throws: CryptError.self) { try crypt.decrypt(ciphertext) }
        #expect(error?.description.contains("secret") == false)
    }

    @Test func aFailedDecryptionDoesNotDisturbTheNext() throws {
        let crypt = AESGCMCrypt(key: .random())
        let good = try crypt.encrypt(Data("good".utf8))
        var bad = good
        bad[bad.count - 3] ^= 0x10
        for _ in 0..<3 {
            #expect(throws: CryptError.wrongKey(keysTried: 1)) { try crypt.decrypt(bad) }
            #expect(try crypt.decrypt(good) == Data("good".utf8))
            #expect(try crypt.decrypt(try crypt.encrypt(Data())) == Data())
        }
    }

    @Test func oneCryptSharedByManyThreadsNeverRepeatsANonce() throws {
        let crypt = AESGCMCrypt(key: .random())
        let other = AESGCMCrypt(key: .random())
        let nonces = Locked<[Data]>([])
        let errors = runOnThreads(8) { t in
            var mine: [Data] = []
            for i in 0..<300 {
                let plaintext = Data("thread \(t) value \(i)".utf8)
                let ciphertext = try crypt.encrypt(plaintext)
                mine.append(ciphertext[1..<13])
                guard try crypt.decrypt(ciphertext) == plaintext else { throw CryptError.malformed("round trip \(t)/\(i)") }
                // Failures on another crypt, interleaved, change nothing.
                if i % 10 == 0, (try? other.decrypt(ciphertext)) != nil { throw CryptError.malformed("opened by another key") }
            }
            nonces.withLock { $0 += mine }
        }
        #expect(errors.isEmpty, "\(errors)")
        #expect(nonces.current.count == 2400)
        #expect(Set(nonces.current).count == 2400, "a nonce was used twice")
    }

    // MARK: KeyRing

    @Test func keyRingEncryptsWithTheNewestKey() throws {
        let old = EncryptionKey.random(), new = EncryptionKey.random()
        let ring = KeyRing([new, old])
        let ciphertext = try ring.encrypt(Data("v".utf8))
        #expect(try AESGCMCrypt(key: new).decrypt(ciphertext) == Data("v".utf8))
        #expect(throws: CryptError.self) { try AESGCMCrypt(key: old).decrypt(ciphertext) }
        #expect(try ring.decryptReportingKey(ciphertext).keyIndex == 0)
    }

    @Test func keyRingDecryptsValuesWrittenUnderAnOlderKey() throws {
        let old = EncryptionKey.random(), new = EncryptionKey.random()
        let written = try AESGCMCrypt(key: old).encrypt(Data("written long ago".utf8))
        let ring = KeyRing([new, old])
        let (plaintext, index) = try ring.decryptReportingKey(written)
        #expect(plaintext == Data("written long ago".utf8))
        #expect(index == 1)
        #expect(try ring.decrypt(written) == Data("written long ago".utf8))
        #expect(throws: CryptError.wrongKey(keysTried: 1)) { try KeyRing([new]).decrypt(written) }
    }

    @Test func keyRingWithNoMatchingKeySaysHowManyItTried() throws {
        let written = try AESGCMCrypt(key: .random()).encrypt(Data("x".utf8))
        let ring = KeyRing([.random(), .random(), .random()])
        #expect(throws: CryptError.wrongKey(keysTried: 3)) { try ring.decrypt(written) }
    }

    @Test func emptyKeyRingHasNoKey() throws {
        #expect(KeyRing.empty.isEmpty)
        #expect(throws: CryptError.noKey) { try KeyRing.empty.encrypt(Data("x".utf8)) }
        let written = try AESGCMCrypt(key: .random()).encrypt(Data("x".utf8))
        #expect(throws: CryptError.noKey) { try KeyRing.empty.decrypt(written) }
    }

    // MARK: Values bound to a place (format 2)

    static let here = CryptContext(parts: ["kv", "session", "apiToken", "string"])
    static let there = CryptContext(parts: ["kv", "settings", "theme", "string"])

    @Test(arguments: sizes)
    func boundRoundTripAndLayout(_ size: Int) throws {
        var rng = SplitMix64(seed: UInt64(size) &+ 0xB0B)
        let plaintext = rng.bytes(size)
        let crypt = AESGCMCrypt(key: .random())
        let sealed = try plaintext.withUnsafeBytes { try crypt.encrypt(bytes: $0, boundTo: Self.here) }
        #expect(sealed.count == plaintext.count + AESGCMCrypt.boundOverhead)
        #expect(AESGCMCrypt.boundOverhead == 33)
        #expect(sealed.first == 0x02)
        #expect(AESGCMCrypt.format(of: sealed) == 2)
        let check = Self.here.check
        let checkBytes: [UInt8] = [UInt8(check >> 24), UInt8(check >> 16 & 0xFF), UInt8(check >> 8 & 0xFF), UInt8(check & 0xFF)]
        #expect(Array(sealed[1..<5]) == checkBytes)
        #expect(try crypt.decrypt(sealed, boundTo: Self.here) == plaintext)
        #expect(throws: CryptError.misplaced) { try crypt.decrypt(sealed, boundTo: Self.there) }
        #expect(throws: CryptError.self) { try crypt.decrypt(sealed) }
    }

    @Test func unboundValuesStillReadAtAnyPlace() throws {
        let crypt = AESGCMCrypt(key: .random())
        let old = try crypt.encrypt(Data("old".utf8))
        #expect(AESGCMCrypt.format(of: old) == 1)
        #expect(try crypt.decrypt(old, boundTo: Self.here) == Data("old".utf8))
    }

    @Test func aKeyRingBindsAndRotates() throws {
        let older = EncryptionKey.random(), newer = EncryptionKey.random()
        let sealed = try Data("v".utf8).withUnsafeBytes { try KeyRing([older]).encrypt(bytes: $0, boundTo: Self.here) }
        #expect(try KeyRing([newer, older]).decrypt(sealed, boundTo: Self.here) == Data("v".utf8))
        #expect(throws: CryptError.misplaced) { try KeyRing([newer, older]).decrypt(sealed, boundTo: Self.there) }
        #expect(throws: CryptError.wrongKey(keysTried: 1)) { try KeyRing([newer]).decrypt(sealed, boundTo: Self.here) }
        #expect(throws: CryptError.noKey) { try KeyRing.empty.decrypt(sealed, boundTo: Self.here) }
    }

    @Test func everyAlteredByteOfABoundValueIsRefused() throws {
        let crypt = AESGCMCrypt(key: .random())
        let sealed = try Data("a bound value".utf8).withUnsafeBytes { try crypt.encrypt(bytes: $0, boundTo: Self.here) }
        for index in sealed.indices {
            var altered = sealed
            altered[index] ^= 0x04
            #expect(throws: CryptError.self) { try crypt.decrypt(altered, boundTo: Self.here) }
        }
    }
}
