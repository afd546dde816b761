import Foundation
import Testing
@testable import DatacenterKit

/// `EncryptionKey` parsing, description and derivation.
@Suite struct KeyParsingTests {
    static let bytes: [UInt8] = (0..<32).map { UInt8($0 * 7 + 3) }
    static var hex: String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func parsesLowercaseAndUppercaseHex() throws {
        #expect(try EncryptionKey(parsing: Self.hex).bytes == Self.bytes)
        #expect(try EncryptionKey(parsing: Self.hex.uppercased()).bytes == Self.bytes)
        #expect(try EncryptionKey(parsing: "  \(Self.hex)\n").bytes == Self.bytes)
        #expect(try EncryptionKey(parsing: Self.hex).hexString == Self.hex)
    }

    @Test func parsesBase64OfThirtyTwoBytes() throws {
        let base64 = Data(Self.bytes).base64EncodedString()
        #expect(try EncryptionKey(parsing: base64).bytes == Self.bytes)
    }

    @Test func parsesAKeyFileHoldingHex() throws {
        let folder = TemporaryFolder()
        let path = folder.file("key.hex")
        try (Self.hex + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try EncryptionKey(parsing: "@" + path).bytes == Self.bytes)
    }

    @Test func parsesAKeyFileHoldingBase64() throws {
        let folder = TemporaryFolder()
        let path = folder.file("key.b64")
        try Data(Self.bytes).base64EncodedString().write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try EncryptionKey(parsing: "@" + path).bytes == Self.bytes)
    }

    @Test(arguments: [
        (0..<32).map { UInt8($0) },                          // not UTF-8 text at all for some bytes
        Array("0123456789abcdef0123456789abcdef".utf8),      // 32 bytes that happen to be ASCII hex
        Array(repeating: UInt8(0xFF), count: 32),
    ])
    func parsesAKeyFileHoldingThirtyTwoRawBytes(_ raw: [UInt8]) throws {
        let folder = TemporaryFolder()
        let path = folder.file("key.bin")
        try Data(raw).write(to: URL(fileURLWithPath: path))
        #expect(try EncryptionKey(parsing: "@" + path).bytes == raw)
    }

    @Test func aMissingKeyFileIsAnInvalidKey() throws {
        let folder = TemporaryFolder()
        let error = #expect(throws: CryptError.self) { try EncryptionKey(parsing: "@" + folder.file("none")) }
        if case .invalidKey = error {} else { Issue.record("expected .invalidKey, got \(String(describing: error))") }
    }

    @Test(arguments: [
        "", "abc", String(repeating: "a", count: 62), String(repeating: "a", count: 66),
        String(repeating: "g", count: 64), String(repeating: "0", count: 63) + "x",
        Data(repeating: 1, count: 31).base64EncodedString(), Data(repeating: 1, count: 33).base64EncodedString(),
        "not a key at all, clearly",
    ])
    func wrongLengthsAndGarbageAreInvalid(_ text: String) {
        let error = #expect(throws: CryptError.self) { try EncryptionKey(parsing: text) }
        if case .invalidKey = error {} else { Issue.record("expected .invalidKey for \(text.debugDescription), got \(String(describing: error))") }
    }

    @Test func keyFileWithGarbageIsInvalidAndTheMessageHidesTheContent() throws {
        let folder = TemporaryFolder()
        let path = folder.file("bad.key")
        try "zz-secret-material-zz".write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: CryptError.self) { try EncryptionKey(parsing: "@" + path) }
        if case .invalidKey = error {} else { Issue.record("expected .invalidKey, got \(String(describing: error))") }
        #expect(error?.description.contains("secret-material") == false)
    }

    @Test func rawBytesMustBeThirtyTwo() {
        #expect(throws: CryptError.self) { try EncryptionKey(bytes: [1, 2, 3]) }
        #expect(throws: CryptError.self) { try EncryptionKey(bytes: Array(repeating: 0, count: 33)) }
        #expect(throws: Never.self) { try EncryptionKey(bytes: Array(repeating: 0, count: 32)) }
    }

    @Test func descriptionShowsOnlyAFingerprint() throws {
        let key = try EncryptionKey(parsing: Self.hex)
        #expect(key.fingerprint.count == 8)
        #expect(key.description == "key \(key.fingerprint)")
        for text in [key.description, "\(key)", String(reflecting: CryptError.invalidKey("x"))] {
            #expect(!text.contains(Self.hex))
            #expect(!text.contains(String(Self.hex.prefix(16))))
        }
        #expect(!Self.hex.contains(key.fingerprint), "the fingerprint is a piece of the key")
        #expect(try EncryptionKey(parsing: Self.hex.uppercased()).fingerprint == key.fingerprint)
        #expect(EncryptionKey.random().fingerprint != key.fingerprint)
    }

    @Test func aKeyRingParsesSeveralKeysNewestFirst() throws {
        let other = EncryptionKey.random()
        let ring = try KeyRing(parsing: [Self.hex, other.hexString])
        #expect(ring.keys.map(\.bytes) == [Self.bytes, other.bytes])
        #expect(throws: CryptError.self) { try KeyRing(parsing: [Self.hex, "nope"]) }
    }

    @Test func derivedKeysAreDeterministicAndDifferPerAppKey() {
        let a1 = EncryptionKey.derived(fromAppKey: "app-key-one")
        let a2 = EncryptionKey.derived(fromAppKey: "app-key-one")
        let b = EncryptionKey.derived(fromAppKey: "app-key-two")
        let empty = EncryptionKey.derived(fromAppKey: "")
        #expect(a1 == a2)
        #expect(a1 != b)
        #expect(empty != a1)
        #expect(a1.bytes.count == 32)
        #expect(Set(a1.bytes).count > 8, "the derived key looks degenerate")
    }

    @Test func randomKeysDiffer() {
        let keys = (0..<8).map { _ in EncryptionKey.random() }
        #expect(Set(keys).count == 8)
    }
}
