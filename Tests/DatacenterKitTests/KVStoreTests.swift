import Foundation
import Testing
@testable import DatacenterKit

private struct Boom: Error, Equatable {}

/// A custom crypt unlike the default one: AES under its own key, with the bytes reversed.
private struct ReversingCrypt: DataCrypt {
    let inner = AESGCMCrypt(key: .random())
    func encrypt(_ plaintext: Data) throws -> Data { Data(try inner.encrypt(plaintext).reversed()) }
    func decrypt(_ ciphertext: Data) throws -> Data { try inner.decrypt(Data(ciphertext.reversed())) }
}

/// The raw `datacenter_kv` row of `business`/`key`: value, typeof(value), encoding, options.
func rawKVRow(_ store: Store, _ business: String, _ key: String) throws -> Row? {
    try store.queue.read { db in
        try db.queryFirst("SELECT value, typeof(value) AS type, encoding, options FROM datacenter_kv WHERE business = ? AND key = ?",
                          [.text(business), .text(key)])
    }
}

/// The KV store: encodings, encryption, options, removal, batches, the memory cache, durability.
@Suite struct KVStoreTests {
    static let plist = PropertyListValue.dictionary([
        "name": .string("ann"),
        "count": .integer(3),
        "ratio": .real(2.5),
        "enabled": .bool(true),
        "list": .array([.integer(1), .string("two"), .data(Data([0, 1, 2, 0xFE])),
                        .date(Date(timeIntervalSinceReferenceDate: 12_345.5)), .bool(false)]),
        "inner": .dictionary(["empty": .array([]), "deeper": .dictionary(["x": .real(-1.25)])]),
    ])

    static let values: [KVValue] = [
        .string("héllo 日本"), .string(""), .integer(-5), .integer(.max), .integer(.min),
        .double(3.5), .double(1e300), .double(-0.001), .bool(true), .bool(false),
        .plist(plist), .plist(.string("top-level string")), .plist(.array([])),
        .archive(Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74])), .json(Data(#"{"a":[1,2,{"b":null}]}"#.utf8)),
    ]

    @Test(arguments: values, [false, true])
    func everyValueRoundTrips(_ value: KVValue, encrypted: Bool) throws {
        let folder = TemporaryFolder()
        let path = folder.file("kv.sqlite")
        let ring = KeyRing([.random()])
        do {
            let store = try Store(path: path, crypt: ring)
            try store.kv.set(value, forKey: "k", business: "b", encryption: encrypted ? .default : .none)
            #expect(try store.kv.value(forKey: "k", business: "b") == value)
            store.kv.clearMemoryCache()
            #expect(try store.kv.value(forKey: "k", business: "b") == value)
            let raw = try #require(try rawKVRow(store, "b", "k"))
            #expect(raw["encoding"] == .text(value.encoding.rawValue))
            if encrypted { #expect(raw["type"] == .text("blob")) }
        }
        let reopened = try Store(path: path, crypt: ring)
        #expect(try reopened.kv.value(forKey: "k", business: "b") == value)
        #expect(try reopened.kv.object(forKey: "k", business: "b")?.encoding == value.encoding)
    }

    @Test func plainValuesAreStoredInTheirNaturalColumnTypes() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("kv.sqlite"))
        let kv = store.kv
        try kv.setString("text", forKey: "s", business: "b")
        try kv.setInteger(7, forKey: "i", business: "b")
        try kv.setDouble(1.5, forKey: "d", business: "b")
        try kv.setBool(true, forKey: "t", business: "b")
        try kv.setObject(.array([.integer(1)]), forKey: "p", business: "b")
        try kv.saveJsonObject(["k": 1], forKey: "j", business: "b")
        let expected: [String: (DatabaseValue, String)] = [
            "s": (.text("text"), "text"), "i": (.integer(7), "integer"), "d": (.real(1.5), "real"),
            "t": (.integer(1), "integer"), "j": (.text(#"{"k":1}"#), "text"),
        ]
        for (key, (value, type)) in expected {
            let raw = try #require(try rawKVRow(store, "b", key))
            #expect(raw["value"] == value, "\(key)")
            #expect(raw["type"] == .text(type), "\(key)")
            #expect(raw["options"] == .integer(0), "\(key)")
        }
        #expect(try rawKVRow(store, "b", "p")?["type"] == .text("blob"))
    }

    // MARK: Default encryption

    @Test func defaultEncryptionStoresNoPlaintext() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("kv.sqlite"), crypt: KeyRing([.random()]))
        let secret = "my password is swordfish"
        try store.kv.setString(secret, forKey: "password", business: "auth", encryption: .default)
        try store.kv.setInteger(123_456_789, forKey: "pin", business: "auth")
        try store.kv.set(.integer(987_654_321), forKey: "pin2", business: "auth", encryption: .default)

        let raw = try #require(try rawKVRow(store, "auth", "password"))
        #expect(raw["type"] == .text("blob"))
        let blob = try #require(raw["value"]?.dataValue)
        #expect(blob.range(of: Data(secret.utf8)) == nil, "the plaintext is in the file")
        #expect(blob.range(of: Data("swordfish".utf8)) == nil)
        #expect(AESGCMCrypt.looksEncrypted(blob))
        #expect(blob.count == secret.utf8.count + AESGCMCrypt.boundOverhead)
        let options = try #require(raw["options"]?.int64Value)
        #expect(options & 1 == 1)
        #expect(options & 2 == 0)
        #expect(raw["encoding"] == .text("string"))
        let pin2 = try #require(try rawKVRow(store, "auth", "pin2")?["value"]?.dataValue)
        #expect(pin2.range(of: Data("987654321".utf8)) == nil)

        // Nothing in the file itself holds the plaintext either.
        try store.kv.sync()
        let bytes = fileBytes(folder.file("kv.sqlite")) + fileBytes(folder.file("kv.sqlite-wal"))
        #expect(bytes.range(of: Data("swordfish".utf8)) == nil)

        // Reads decrypt without being told, from the file as well as from the cache.
        #expect(try store.kv.string(forKey: "password", business: "auth") == secret)
        store.kv.clearMemoryCache()
        #expect(try store.kv.string(forKey: "password", business: "auth") == secret)
        #expect(try store.kv.integer(forKey: "pin2", business: "auth") == 987_654_321)
        let entry = try #require(try store.kv.entry(forKey: "password", business: "auth"))
        #expect(entry.options.contains(.defaultEncrypted))
        #expect(entry.options.isEncrypted)
    }

    @Test func aWrongKeyCannotDecrypt() throws {
        let folder = TemporaryFolder()
        let path = folder.file("kv.sqlite")
        do {
            let store = try Store(path: path, crypt: KeyRing([.random()]))
            try store.kv.setString("secret", forKey: "k", business: "b", encryption: .default)
        }
        let other = try Store(path: path, crypt: KeyRing([.random()]))
        #expect(throws: KVError.cannotDecrypt(business: "b", key: "k", reason: .wrongKey(keysTried: 1))) {
            try other.kv.string(forKey: "k", business: "b")
        }
        #expect(throws: KVError.self) { try other.kv.allValues(business: "b") }
        // The failure is not cached as anything: it fails again.
        #expect(throws: KVError.self) { try other.kv.value(forKey: "k", business: "b") }
    }

    @Test func noKeyCannotDecrypt() throws {
        let folder = TemporaryFolder()
        let path = folder.file("kv.sqlite")
        do {
            let store = try Store(path: path, crypt: KeyRing([.random()]))
            try store.kv.setString("secret", forKey: "k", business: "b", encryption: .default)
        }
        let keyless = try Store(path: path)
        #expect(throws: KVError.cannotDecrypt(business: "b", key: "k", reason: .noKey)) {
            try keyless.kv.string(forKey: "k", business: "b")
        }
        // Writing encrypted without a key fails and writes nothing.
        #expect(throws: KVError.self) {
            try keyless.kv.setString("more", forKey: "k2", business: "b", encryption: .default)
        }
        #expect(try rawKVRow(keyless, "b", "k2") == nil)
        #expect(try !keyless.kv.containsValue(forKey: "k2", business: "b"))
    }

    @Test func aKeyRingReadsValuesWrittenUnderAnOlderKey() throws {
        let folder = TemporaryFolder()
        let path = folder.file("kv.sqlite")
        let old = EncryptionKey.random(), new = EncryptionKey.random()
        do {
            let store = try Store(path: path, crypt: KeyRing([old]))
            try store.kv.setString("old value", forKey: "k", business: "b", encryption: .default)
        }
        let rotated = try Store(path: path, crypt: KeyRing([new, old]))
        #expect(try rotated.kv.string(forKey: "k", business: "b") == "old value")
        try rotated.kv.setString("new value", forKey: "k2", business: "b", encryption: .default)
        let blob = try #require(try rawKVRow(rotated, "b", "k2")?["value"]?.dataValue)
        #expect(try AESGCMCrypt(key: new).decrypt(blob, boundTo: .kvValue(business: "b", key: "k2", encoding: .string)) == Data("new value".utf8))
    }

    // MARK: Custom encryption

    @Test func customEncryptionNeedsTheCrypt() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("kv.sqlite"), crypt: KeyRing([.random()]))
        let custom = ReversingCrypt()
        try store.kv.setString("custom secret", forKey: "k", business: "b", encryption: .custom(custom))

        let raw = try #require(try rawKVRow(store, "b", "k"))
        #expect(raw["type"] == .text("blob"))
        #expect(raw["value"]?.dataValue?.range(of: Data("custom secret".utf8)) == nil)
        #expect(raw["options"].flatMap { $0.int64Value }.map { $0 & 3 } == 2)

        #expect(throws: KVError.needsCustomCrypt(business: "b", key: "k")) { try store.kv.string(forKey: "k", business: "b") }
        #expect(try store.kv.string(forKey: "k", business: "b", crypt: custom) == "custom secret")
        // A custom-encrypted value is never cached: without the crypt it still fails.
        #expect(throws: KVError.needsCustomCrypt(business: "b", key: "k")) { try store.kv.value(forKey: "k", business: "b") }
        // The store's default crypt or another custom crypt does not open it.
        #expect(throws: KVError.self) { try store.kv.string(forKey: "k", business: "b", crypt: store.kv.defaultCrypt) }
        #expect(throws: KVError.self) { try store.kv.string(forKey: "k", business: "b", crypt: ReversingCrypt()) }
        #expect(try store.kv.allValues(business: "b", crypt: custom) == ["k": .string("custom secret")])
        #expect(throws: KVError.needsCustomCrypt(business: "b", key: "k")) { try store.kv.allValues(business: "b") }
    }

    @Test func customEncryptionOverwritesACachedPlainValue() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("kv.sqlite"))
        let custom = ReversingCrypt()
        try store.kv.setString("plain", forKey: "k", business: "b")
        #expect(try store.kv.string(forKey: "k", business: "b") == "plain")
        try store.kv.setString("hidden", forKey: "k", business: "b", encryption: .custom(custom))
        #expect(throws: KVError.needsCustomCrypt(business: "b", key: "k")) { try store.kv.string(forKey: "k", business: "b") }
        #expect(try store.kv.string(forKey: "k", business: "b", crypt: custom) == "hidden")
    }

    // MARK: Options

    @Test func purgeableValuesAreMarkedAndRemovedAlone() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("kv.sqlite"), crypt: KeyRing([.random()]))
        let kv = store.kv
        try kv.setString("cache 1", forKey: "c1", business: "feed", options: .purgeable)
        try kv.setString("cache 2", forKey: "c2", business: "other", encryption: .default, options: .purgeable)
        try kv.setString("keep", forKey: "k", business: "feed")
        try kv.setString("keep too", forKey: "k2", business: "other", encryption: .default)

        #expect(try rawKVRow(store, "feed", "c1")?["options"] == .integer(1 << 31))
        #expect(try rawKVRow(store, "other", "c2")?["options"] == .integer(1 << 31 | 1))
        #expect(try kv.entry(forKey: "c1", business: "feed")?.options == .purgeable)
        #expect(try kv.entry(forKey: "c2", business: "other")?.options == [.purgeable, .defaultEncrypted])
        // Encryption bits passed in options are ignored: they follow `encryption`.
        try kv.setString("x", forKey: "sneaky", business: "feed", options: [.defaultEncrypted])
        #expect(try rawKVRow(store, "feed", "sneaky")?["options"] == .integer(0))
        #expect(try rawKVRow(store, "feed", "sneaky")?["value"] == .text("x"))

        #expect(try kv.removePurgeableValues() == 2)
        #expect(try kv.string(forKey: "c1", business: "feed") == nil)
        #expect(try kv.string(forKey: "c2", business: "other") == nil)
        #expect(try kv.string(forKey: "k", business: "feed") == "keep")
        #expect(try kv.string(forKey: "k2", business: "other") == "keep too")
        #expect(try kv.removePurgeableValues() == 0)
    }

    // MARK: Removing and listing

    @Test func removeValue() throws {
        let folder = TemporaryFolder()
        let kv = try Store(path: folder.file("kv.sqlite")).kv
        try kv.setString("v", forKey: "k", business: "b")
        try kv.setString("other business", forKey: "k", business: "c")
        #expect(try kv.containsValue(forKey: "k", business: "b"))
        #expect(try kv.removeValue(forKey: "k", business: "b"))
        #expect(try !kv.removeValue(forKey: "k", business: "b"))
        #expect(try !kv.containsValue(forKey: "k", business: "b"))
        #expect(try kv.value(forKey: "k", business: "b") == nil)
        #expect(try kv.string(forKey: "k", business: "c") == "other business")
        try kv.setString(nil, forKey: "k", business: "c")
        #expect(try !kv.containsValue(forKey: "k", business: "c"))
    }

    @Test func removeValuesLikeAPattern() throws {
        let folder = TemporaryFolder()
        let kv = try Store(path: folder.file("kv.sqlite")).kv
        for key in ["tmp.a", "tmp.b", "keep", "xtmp.c"] { try kv.setString(key, forKey: key, business: "b") }
        try kv.setString("elsewhere", forKey: "tmp.a", business: "other")
        _ = try kv.string(forKey: "tmp.a", business: "b")   // cached
        #expect(try kv.removeValues(like: "tmp.%", business: "b") == 2)
        #expect(try kv.allKeys(business: "b") == ["keep", "xtmp.c"])
        #expect(try kv.string(forKey: "tmp.a", business: "b") == nil)
        #expect(try kv.string(forKey: "tmp.a", business: "other") == "elsewhere")
        #expect(try kv.removeValues(like: "k__p", business: "b") == 1)
        #expect(try kv.allKeys(business: "b") == ["xtmp.c"])
    }

    @Test func listingKeysBusinessesAndValues() throws {
        let folder = TemporaryFolder()
        let kv = try Store(path: folder.file("kv.sqlite"), crypt: KeyRing([.random()])).kv
        #expect(try kv.allBusinesses() == [])
        try kv.setString("z", forKey: "zeta", business: "settings")
        try kv.setInteger(1, forKey: "alpha", business: "settings")
        try kv.setBool(true, forKey: "mid", business: "settings")
        try kv.setString("e", forKey: "enc", business: "settings", encryption: .default)
        try kv.setString("x", forKey: "k", business: "account")
        #expect(try kv.allKeys(business: "settings") == ["alpha", "enc", "mid", "zeta"])
        #expect(try kv.allKeys(business: "nobody") == [])
        #expect(try kv.allBusinesses() == ["account", "settings"])
        #expect(try kv.allValues(business: "settings") == [
            "zeta": .string("z"), "alpha": .integer(1), "mid": .bool(true), "enc": .string("e"),
        ])
        #expect(try kv.entries().map { "\($0.business)/\($0.key)" } == [
            "account/k", "settings/alpha", "settings/enc", "settings/mid", "settings/zeta",
        ])
        #expect(try kv.removeAll(business: "settings") == 4)
        #expect(try kv.allBusinesses() == ["account"])
        #expect(try kv.string(forKey: "zeta", business: "settings") == nil)
    }

    // MARK: Batches and the memory cache

    @Test func aBatchCommitsTogether() throws {
        let folder = TemporaryFolder()
        let path = folder.file("kv.sqlite")
        let store = try Store(path: path)
        let observer = try Store(path: path)
        try store.kv.batch {
            for i in 0..<50 { try store.kv.setInteger(i, forKey: "k\(i)", business: "b") }
            // Another connection sees none of it until the batch ends.
            #expect(try observer.kv.allKeys(business: "b").isEmpty)
        }
        #expect(try observer.kv.allKeys(business: "b").count == 50)
        #expect(try observer.kv.integer(forKey: "k49", business: "b") == 49)
    }

    @Test func aThrowInABatchRollsBackEverythingIncludingTheCache() throws {
        let folder = TemporaryFolder()
        let path = folder.file("kv.sqlite")
        let store = try Store(path: path)
        let kv = store.kv
        try kv.setString("before", forKey: "existing", business: "b")
        try kv.setString("doomed", forKey: "removed", business: "b")
        #expect(throws: Boom()) {
            try kv.batch {
                try kv.setString("during", forKey: "existing", business: "b")
                try kv.setString("new", forKey: "added", business: "b")
                try kv.removeValue(forKey: "removed", business: "b")
                #expect(try kv.string(forKey: "existing", business: "b") == "during")
                throw Boom()
            }
        }
        #expect(try kv.string(forKey: "existing", business: "b") == "before")
        #expect(try kv.string(forKey: "added", business: "b") == nil)
        #expect(try !kv.containsValue(forKey: "added", business: "b"))
        #expect(try kv.string(forKey: "removed", business: "b") == "doomed")
        #expect(try rawKVRow(store, "b", "existing")?["value"] == .text("before"))
        #expect(try rawKVRow(store, "b", "added") == nil)
        let fresh = try Store(path: path)
        #expect(try fresh.kv.allValues(business: "b") == ["existing": .string("before"), "removed": .string("doomed")])
    }

    @Test func aFailedInnerBatchUndoesOnlyItsOwnWrites() throws {
        let folder = TemporaryFolder()
        let kv = try Store(path: folder.file("kv.sqlite")).kv
        try kv.batch {
            try kv.setString("outer", forKey: "a", business: "b")
            #expect(throws: Boom()) {
                try kv.batch {
                    try kv.setString("inner", forKey: "c", business: "b")
                    try kv.setString("inner", forKey: "a", business: "b")
                    throw Boom()
                }
            }
            try kv.setString("outer again", forKey: "d", business: "b")
        }
        #expect(try kv.allValues(business: "b") == ["a": .string("outer"), "d": .string("outer again")])
        #expect(try kv.string(forKey: "a", business: "b") == "outer")
        #expect(try kv.string(forKey: "c", business: "b") == nil)
    }

    @Test func anotherThreadNeverSeesABatchsUncommittedValues() throws {
        let folder = TemporaryFolder()
        let kv = try Store(path: folder.file("kv.sqlite")).kv
        try kv.setString("old", forKey: "k", business: "b")
        #expect(try kv.string(forKey: "k", business: "b") == "old")   // now cached
        let readDone = DispatchSemaphore(value: 0)
        let seen = Locked<String?>(nil)
        var readerFinishedEarly = false
        #expect(throws: Boom()) {
            try kv.batch {
                try kv.setString("uncommitted", forKey: "k", business: "b")
                // The batch reads its own writes.
                #expect(try kv.string(forKey: "k", business: "b") == "uncommitted")
                Thread {
                    seen.withLock { $0 = try? kv.string(forKey: "k", business: "b") }
                    readDone.signal()
                }.start()
                // A read from another thread may wait for the batch to end; give it a moment
                // to (wrongly) finish early. This bounds the test; it asserts nothing about time.
                readerFinishedEarly = readDone.wait(timeout: .now() + 1) == .success
                throw Boom()
            }
        }
        if !readerFinishedEarly { #expect(wait(for: readDone)) }
        #expect(seen.current == "old", "another thread saw a value of a batch that was rolled back")
        #expect(try kv.string(forKey: "k", business: "b") == "old")
    }

    @Test func theCacheNeverServesAStaleValue() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("kv.sqlite"), crypt: KeyRing([.random()]), cacheCapacity: 4)
        let kv = store.kv
        var model: [String: String] = [:]
        var rng = SplitMix64(seed: 0x5EED_CACE)
        let seed = rng.state
        let keys = (0..<8).map { "k\($0)" }
        for step in 0..<400 {
            let key = keys[Int.random(in: 0..<keys.count, using: &rng)]
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<4:
                let value = "v\(step)"
                try kv.setString(value, forKey: key, business: "b", encryption: Bool.random(using: &rng) ? .default : .none)
                model[key] = value
            case 4:
                try kv.removeValue(forKey: key, business: "b")
                model[key] = nil
            case 5:
                let n = try kv.removeValues(like: "k%", business: "b")
                #expect(n == model.count, "seed \(seed), step \(step)")
                model.removeAll()
            case 6:
                try kv.setInteger(step, forKey: key, business: "ints")
                try kv.removeAll(business: "ints")
            default:
                break
            }
            let read = try kv.string(forKey: key, business: "b")
            #expect(read == model[key], "seed \(seed), step \(step), key \(key)")
            #expect(try kv.containsValue(forKey: key, business: "b") == (model[key] != nil), "seed \(seed), step \(step)")
        }
        for key in keys {
            #expect((try rawKVRow(store, "b", key) != nil) == (model[key] != nil), "seed \(seed), key \(key)")
        }
    }

    // MARK: Durability, re-encryption, read-only stores

    @Test func aNewStoreReadsWhatWasWritten() throws {
        let folder = TemporaryFolder()
        let path = folder.file("kv.sqlite")
        let ring = KeyRing([.random()])
        do {
            let store = try Store(path: path, crypt: ring)
            try store.kv.setString("durable", forKey: "s", business: "b")
            try store.kv.setString("durable secret", forKey: "e", business: "b", encryption: .default)
            try store.kv.setObject(Self.plist, forKey: "p", business: "b")
            // A second store open at the same time reads it too.
            let concurrent = try Store(path: path, crypt: ring)
            #expect(try concurrent.kv.string(forKey: "s", business: "b") == "durable")
        }
        let reopened = try Store(path: path, crypt: ring)
        #expect(try reopened.kv.string(forKey: "s", business: "b") == "durable")
        #expect(try reopened.kv.string(forKey: "e", business: "b") == "durable secret")
        #expect(try reopened.kv.propertyList(forKey: "p", business: "b") == Self.plist)
        #expect(try reopened.queue.read { try $0.scalar("SELECT value FROM datacenter_meta WHERE name = 'format_version'") }
                == .integer(Int64(Store.formatVersion)))
    }

    @Test func reencryptionRewritesUnderTheNewKey() throws {
        let folder = TemporaryFolder()
        let path = folder.file("kv.sqlite")
        let oldKey = EncryptionKey.random(), newKey = EncryptionKey.random()
        let custom = ReversingCrypt()
        let count: Int
        do {
            let store = try Store(path: path, crypt: KeyRing([oldKey]))
            try store.kv.setString("one", forKey: "a", business: "b", encryption: .default)
            try store.kv.set(.integer(2), forKey: "n", business: "c", encryption: .default)
            try store.kv.setString("plain", forKey: "p", business: "b")
            try store.kv.setString("mine", forKey: "m", business: "b", encryption: .custom(custom))
            let before = try #require(try rawKVRow(store, "b", "a")?["value"])
            count = try store.kv.reencryptDefaultEncryptedValues(with: KeyRing([newKey]))
            #expect(try rawKVRow(store, "b", "a")?["value"] != before)
        }
        #expect(count == 2)
        let withOld = try Store(path: path, crypt: KeyRing([oldKey]))
        #expect(throws: KVError.cannotDecrypt(business: "b", key: "a", reason: .wrongKey(keysTried: 1))) {
            try withOld.kv.string(forKey: "a", business: "b")
        }
        let withNew = try Store(path: path, crypt: KeyRing([newKey]))
        #expect(try withNew.kv.string(forKey: "a", business: "b") == "one")
        #expect(try withNew.kv.integer(forKey: "n", business: "c") == 2)
        #expect(try withNew.kv.string(forKey: "p", business: "b") == "plain")
        #expect(try withNew.kv.string(forKey: "m", business: "b", crypt: custom) == "mine")
        #expect(try withNew.kv.entry(forKey: "a", business: "b")?.options == .defaultEncrypted)
    }

    @Test func reencryptionWithAWrongCurrentKeyChangesNothing() throws {
        let folder = TemporaryFolder()
        let path = folder.file("kv.sqlite")
        let key = EncryptionKey.random()
        do {
            let store = try Store(path: path, crypt: KeyRing([key]))
            try store.kv.setString("one", forKey: "a", business: "b", encryption: .default)
        }
        let wrong = try Store(path: path, crypt: KeyRing([.random()]))
        let before = try rawKVRow(wrong, "b", "a")
        #expect(throws: KVError.self) { try wrong.kv.reencryptDefaultEncryptedValues(with: KeyRing([.random()])) }
        #expect(try rawKVRow(wrong, "b", "a") == before)
        #expect(try Store(path: path, crypt: KeyRing([key])).kv.string(forKey: "a", business: "b") == "one")
    }

    @Test(arguments: [false, true])
    func aReadOnlyStoreReadsButRefusesWrites(writerStillOpen: Bool) throws {
        let folder = TemporaryFolder()
        let path = folder.file("kv.sqlite")
        let ring = KeyRing([.random()])
        var writer: Store? = try Store(path: path, crypt: ring)
        try writer?.kv.setString("visible", forKey: "s", business: "b")
        try writer?.kv.setString("hidden", forKey: "e", business: "b", encryption: .default)
        if !writerStillOpen { writer = nil }

        let store = try Store(path: path, crypt: ring, readOnly: true)
        #expect(store.isReadOnly)
        #expect(try store.kv.string(forKey: "s", business: "b") == "visible")
        #expect(try store.kv.string(forKey: "e", business: "b") == "hidden")
        #expect(try store.kv.allKeys(business: "b") == ["e", "s"])

        let refused = KVError.readOnly(path: path)
        #expect(throws: refused) { try store.kv.setString("x", forKey: "s", business: "b") }
        #expect(throws: refused) { try store.kv.removeValue(forKey: "s", business: "b") }
        #expect(throws: refused) { try store.kv.removeValues(like: "%", business: "b") }
        #expect(throws: refused) { try store.kv.removeAll(business: "b") }
        #expect(throws: refused) { try store.kv.removePurgeableValues() }
        #expect(throws: refused) { try store.kv.batch {} }
        #expect(throws: refused) { try store.kv.reencryptDefaultEncryptedValues(with: KeyRing([.random()])) }
        try store.kv.sync()   // nothing to do, and no error
        #expect(try store.kv.string(forKey: "s", business: "b") == "visible")
        #expect(throws: DatabaseError.self) {
            try store.queue.write { try $0.execute("DELETE FROM datacenter_kv") }
        }
        #expect(try Store(path: path, crypt: ring).kv.allKeys(business: "b") == ["e", "s"])
        _ = writer
    }

    @Test func readOnlyStoreOnAMissingFileFails() {
        let folder = TemporaryFolder()
        let path = folder.file("none.sqlite")
        #expect(throws: StorageError.missingStore(path)) { try Store(path: path, readOnly: true) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aReadOnlyStoreWithoutAKVTableReadsNothing() throws {
        let folder = TemporaryFolder()
        let path = folder.file("plain.sqlite")
        try makeSmallDatabase(at: path, rows: 1)
        let store = try Store(path: path, readOnly: true)
        #expect(try store.kv.value(forKey: "k", business: "b") == nil)
        #expect(try store.kv.allBusinesses() == [])
        #expect(try store.kv.entries() == [])
        #expect(try !store.kv.containsValue(forKey: "k", business: "b"))
    }

    @Test func storeCreatesItsFolderAndWAL() throws {
        let folder = TemporaryFolder()
        let path = folder.file("deep/er/kv.sqlite")
        let store = try Store(path: path)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try store.queue.read { try $0.scalar("PRAGMA journal_mode", cached: false) } == .text("wal"))
        #expect(try store.queue.read { try Store.tableExists("datacenter_kv", in: $0) })
        #expect(try store.queue.read { try !Store.tableExists("nope", in: $0) })
    }
}
