import Foundation
import Testing
@testable import DatacenterKit

/// Mutated encrypted KV values, values moved to another business, key or type, and raw random
/// bytes decode to the right value or fail with a `KVError`; never a crash, a hang, or another
/// value shown as this one's. Seeded and printed: `FUZZ_CASES` and `FUZZ_SEED` set the run
/// (`make fuzz` runs a long one).
@Suite struct KVValueFuzzTests {
    static let cases = testCount("FUZZ_CASES", default: 2000)
    static let seed = testSeed("FUZZ_SEED", default: 0x4B56)

    static let names = ["session", "settings", "apiToken", "theme", "a", "a/b", "", "é"]

    static func randomValue(_ random: inout SplitMix64) -> KVValue {
        switch random.below(7) {
        case 0: return .string(String(decoding: random.bytes(random.below(40)).map { 0x20 + $0 % 0x5F }, as: UTF8.self))
        case 1: return .integer(Int64(bitPattern: random.next()))
        case 2: return .double(Double(Int64(bitPattern: random.next()) >> 11) / 1024)
        case 3: return .bool(random.below(2) == 1)
        case 4: return .plist(.dictionary(["n": .integer(Int64(random.below(1000))), "s": .string("x")]))
        case 5: return .archive(random.bytes(random.below(30)))
        default: return .json(Data(#"{"k":\#(random.below(1000))}"#.utf8))
        }
    }

    @Test func mutatedAndMovedValuesDecodeRightOrFail() throws {
        let folder = TemporaryFolder()
        let key = EncryptionKey.random()
        let store = try Store(path: folder.file("kv.sqlite"), crypt: KeyRing([key]))
        let crypt = AESGCMCrypt(key: key)
        var random = SplitMix64(seed: Self.seed)
        let watchdog = Watchdog(limit: 5)
        defer { watchdog.finish() }
        for index in 0..<Self.cases {
            let label = "seed \(Self.seed) case \(index)"
            watchdog.start(label)
            defer { watchdog.stop() }
            let value = Self.randomValue(&random)
            let business = Self.names[random.below(Self.names.count)], name = Self.names[random.below(Self.names.count)]
            let bound = random.below(4) != 0
            let context = CryptContext.kvValue(business: business, key: name, encoding: value.encoding)
            let plain = try value.plaintextBytes()
            var stored = bound ? try plain.withUnsafeBytes { try crypt.encrypt(bytes: $0, boundTo: context) } : try crypt.encrypt(plain)
            let original = stored
            var (readBusiness, readKey, readEncoding) = (business, name, value.encoding)
            var moved = false
            for _ in 0..<(1 + random.below(3)) {
                switch random.below(bound ? 8 : 5) {
                case 0 where !stored.isEmpty: stored[random.below(stored.count)] ^= UInt8(1 << random.below(8))
                case 1: stored = stored.prefix(random.below(stored.count + 1))
                case 2: stored.append(random.bytes(1 + random.below(20)))
                case 3: stored = random.bytes(random.below(80))
                case 4:
                    // Random bytes shaped like a value of either format.
                    stored = Data([UInt8(1 + random.below(2))]) + random.bytes(random.below(80))
                case 5: readBusiness = Self.names[random.below(Self.names.count)]; moved = true
                case 6: readKey = Self.names[random.below(Self.names.count)]; moved = true
                default: readEncoding = KVEncoding.allCases[random.below(KVEncoding.allCases.count)]; moved = true
                }
            }
            let entry = KVEntry(business: readBusiness, key: readKey, encoding: readEncoding, options: .defaultEncrypted,
                                modified: Date(), stored: .blob(stored))
            do {
                let decoded = try store.kv.decode(entry)
                #expect(stored == original, "\(label): altered bytes decoded to \(decoded)")
                #expect(decoded == value, "\(label): decoded \(decoded), stored \(value)")
                let samePlace = (readBusiness, readKey, readEncoding) == (business, name, value.encoding)
                #expect(samePlace || !moved || !bound, "\(label): a bound value opened at another place")
            } catch is KVError {
                // Refused, as it should be (or a clean error for a damaged value).
            } catch {
                Issue.record("\(label): unexpected error \(error)")
            }
        }
    }

    @Test func randomBytesAsClearValuesNeverCrash() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("kv.sqlite"), crypt: KeyRing([.random()]))
        var random = SplitMix64(seed: Self.seed ^ 0xC1EA)
        for index in 0..<Self.cases {
            let bytes = random.bytes(random.below(120))
            let stored: DatabaseValue = [.blob(bytes), .text(String(decoding: bytes, as: UTF8.self)),
                                         .integer(Int64(bitPattern: random.next())), .real(1.5), .null][random.below(5)]
            let encoding = KVEncoding.allCases[random.below(KVEncoding.allCases.count)]
            let entry = KVEntry(business: "b", key: "k\(index)", encoding: encoding, options: [], modified: Date(), stored: stored)
            do { _ = try store.kv.decode(entry) } catch is KVError {} catch {
                Issue.record("seed \(Self.seed) case \(index): unexpected error \(error)")
            }
        }
    }
}
