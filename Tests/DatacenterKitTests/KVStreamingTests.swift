import Foundation
import Testing
@testable import DatacenterKit

/// Streaming reads, SQL counts and paged re-encryption of the KV store: the forms that keep
/// memory bounded whatever the store's size.
@Suite struct KVStreamingTests {
    let folder = TemporaryFolder()

    /// A store with three businesses and values of several kinds and sizes.
    func filledStore(crypt: KeyRing = KeyRing([.random()])) throws -> Store {
        let store = try Store(path: folder.file("kv.sqlite"), crypt: crypt)
        try store.kv.batch {
            for i in 0..<40 { try store.kv.set(.string("value \(i) ✓"), forKey: String(format: "k%03d", i), business: "b") }
            try store.kv.set(.integer(7), forKey: "n", business: "a")
            try store.kv.set(.double(2.5), forKey: "d", business: "a", options: .purgeable)
            try store.kv.set(.json(Data(#"{"x":1}"#.utf8)), forKey: "j", business: "c", encryption: .default)
            try store.kv.set(.archive(Data([1, 2, 3])), forKey: "blob", business: "c", options: .purgeable)
        }
        return store
    }

    @Test func forEachEntryGivesWhatEntriesGivesInOrderAndStops() throws {
        let store = try filledStore()
        var streamed: [KVEntry] = []
        try store.kv.forEachEntry { streamed.append($0); return true }
        #expect(streamed == (try store.kv.entries()))
        #expect(streamed.map { "\($0.business)/\($0.key)" }.prefix(3) == ["a/d", "a/n", "b/k000"])
        var seen = 0
        try store.kv.forEachEntry(business: "b") { _ in seen += 1; return seen < 5 }
        #expect(seen == 5)
        var onlyC: [String] = []
        try store.kv.forEachEntry(business: "c") { onlyC.append($0.key); return true }
        #expect(onlyC == ["blob", "j"])
    }

    @Test func forEachKeyAndValueMatchTheArrayForms() throws {
        let store = try filledStore()
        var keys: [String] = []
        try store.kv.forEachKey(business: "b") { keys.append($0); return true }
        #expect(keys.count == 40)
        #expect(keys == (try store.kv.allKeys(business: "b")))
        #expect(keys == keys.sorted())
        var values: [String: KVValue] = [:]
        try store.kv.forEachValue(business: "c") { key, value in values[key] = value; return true }
        #expect(values == (try store.kv.allValues(business: "c")))
        #expect(values["j"] == .json(Data(#"{"x":1}"#.utf8)))
        var first: String?
        try store.kv.forEachValue(business: "b") { key, _ in first = key; return false }
        #expect(first == "k000")
    }

    @Test func theArrayFormsWorkInsideABatch() throws {
        let store = try filledStore()
        let keys = try store.kv.batch {
            try store.kv.set(.string("new"), forKey: "k999", business: "b")
            return try store.kv.allKeys(business: "b")
        }
        #expect(keys.count == 41)
        #expect(keys.last == "k999")
    }

    @Test func aValueThatDoesNotOpenStopsForEachValueWithTheKey() throws {
        let store = try filledStore()
        let stranger = try Store(path: store.path, crypt: KeyRing([.random()]))
        var before: [String] = []
        #expect(throws: KVError.cannotDecrypt(business: "c", key: "j", reason: .wrongKey(keysTried: 1))) {
            try stranger.kv.forEachValue(business: "c") { key, _ in before.append(key); return true }
        }
        #expect(before == ["blob"])
    }

    @Test func metadataSizesMatchTheEntries() throws {
        let store = try filledStore()
        // A NULL value and multi-byte text, written as another tool might.
        try store.queue.write { db in
            try db.execute("INSERT INTO datacenter_kv VALUES ('z', 'null', NULL, 'string', 0, 0), ('z', 'wide', '日本語', 'string', 0, 0)")
        }
        var metadata: [KVEntryMetadata] = []
        try store.kv.forEachEntryMetadata { metadata.append($0); return true }
        let entries = try store.kv.entries()
        #expect(metadata.map(\.key) == entries.map(\.key))
        #expect(metadata.map(\.byteCount) == entries.map(\.byteCount))
        #expect(metadata.map(\.options) == entries.map(\.options))
        #expect(metadata.first { $0.key == "wide" }?.byteCount == 9)
        #expect(metadata.first { $0.key == "null" }?.byteCount == 0)
        #expect(metadata.first { $0.key == "n" }?.byteCount == 8)
    }

    @Test func anUnknownEncodingIsReportedByBothPasses() throws {
        let store = try filledStore()
        try store.queue.write { db in try db.execute("INSERT INTO datacenter_kv VALUES ('b', 'odd', 'x', 'weird', 0, 0)") }
        #expect(throws: KVError.self) { try store.kv.forEachEntryMetadata { _ in true } }
        #expect(throws: KVError.self) { try store.kv.forEachEntry { _ in true } }
    }

    @Test func summariesCountInSQL() throws {
        let ring = KeyRing([.random()])
        let store = try filledStore(crypt: ring)
        let custom = AESGCMCrypt(key: .random())
        try store.kv.set(.string("mine"), forKey: "x", business: "c", encryption: .custom(custom))
        let summaries = try store.kv.businessSummaries()
        #expect(summaries.map(\.business) == ["a", "b", "c"])
        let entries = try store.kv.entries()
        for summary in summaries {
            let of = entries.filter { $0.business == summary.business }
            #expect(summary.count == of.count)
            #expect(summary.byteCount == Int64(of.reduce(0) { $0 + $1.byteCount }))
            #expect(summary.encryptedCount == of.filter(\.options.isEncrypted).count)
            let purgeable = of.filter { $0.options.contains(.purgeable) }
            #expect(summary.purgeableCount == purgeable.count)
            #expect(summary.purgeableByteCount == Int64(purgeable.reduce(0) { $0 + $1.byteCount }))
        }
        // The right key opens "j"; "x" needs its custom crypt.
        #expect(summaries.map(\.lockedCount) == [0, 0, 1])
        #expect(try store.kv.businessSummaries(crypt: custom).map(\.lockedCount) == [0, 0, 1], "the custom crypt does not open j")
        #expect(try store.kv.businessSummaries(countingLocked: false).map(\.lockedCount) == [nil, nil, nil])
        let noKey = try Store(path: store.path, crypt: KeyRing.empty, readOnly: true)
        #expect(try noKey.kv.businessSummaries().map(\.lockedCount) == [0, 0, 2])
        let wrongKey = try Store(path: store.path, crypt: KeyRing([.random()]), readOnly: true)
        #expect(try wrongKey.kv.businessSummaries().map(\.lockedCount) == [0, 0, 2])
        let rotated = try Store(path: store.path, crypt: KeyRing([.random()] + ring.keys), readOnly: true)
        #expect(try rotated.kv.businessSummaries().map(\.lockedCount) == [0, 0, 1])
    }

    @Test func reencryptionPagesThroughEveryValueInOneTransaction() throws {
        let old = KeyRing([.random()]), new = EncryptionKey.random()
        let store = try Store(path: folder.file("rekey.sqlite"), crypt: old)
        let total = KVStore.reencryptionPageSize * 2 + 3
        try store.kv.batch {
            for i in 0..<total {
                try store.kv.set(.string("secret \(i)"), forKey: "k\(i)", business: i % 2 == 0 ? "even" : "odd", encryption: .default)
            }
            try store.kv.set(.string("plain"), forKey: "p", business: "even")
        }
        #expect(try store.kv.reencryptDefaultEncryptedValues(with: AESGCMCrypt(key: new)) == total)
        let reopened = try Store(path: store.path, crypt: KeyRing([new]), readOnly: true)
        #expect(try reopened.kv.businessSummaries().map(\.lockedCount) == [0, 0])
        #expect(try reopened.kv.value(forKey: "k\(total - 1)", business: "even") == .string("secret \(total - 1)"))
        #expect(try reopened.kv.allValues(business: "odd").count == total / 2)
    }

    @Test func aValueOnALaterPageThatDoesNotOpenLeavesTheStoreAsItWas() throws {
        let old = KeyRing([.random()]), stranger = KeyRing([.random()])
        let store = try Store(path: folder.file("partial.sqlite"), crypt: old)
        try store.kv.batch {
            for i in 0..<(KVStore.reencryptionPageSize + 10) {
                try store.kv.set(.string("v\(i)"), forKey: String(format: "k%04d", i), business: "b", encryption: .default)
            }
        }
        // The last row, on the second page, is under another key.
        let outsider = try Store(path: store.path, crypt: stranger)
        try outsider.kv.set(.string("other"), forKey: "zzz", business: "b", encryption: .default)
        let before = try store.kv.entries()
        #expect(throws: KVError.cannotDecrypt(business: "b", key: "zzz", reason: .wrongKey(keysTried: 1))) {
            try store.kv.reencryptDefaultEncryptedValues(with: AESGCMCrypt(key: .random()))
        }
        #expect(try store.kv.entries() == before, "nothing of the first page was kept")
    }
}
