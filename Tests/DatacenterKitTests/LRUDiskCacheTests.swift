import Foundation
import Testing
@testable import DatacenterKit

/// A value archived in the caches.
private struct CachedProfile: Codable, Equatable {
    var name: String
    var age: Int
    var tags: [String]
}

/// A data center in a fresh folder; removes the `TMP.` cache folder it may create.
private final class CacheFixture: @unchecked Sendable {
    let folder = TemporaryFolder()
    let center: DataCenter
    let key = EncryptionKey.random()

    init() throws {
        center = try DataCenter(rootPath: folder.file("root"), crypt: KeyRing([key]))
    }

    var root: String { center.rootPath }

    /// Every row of the cache table `table` in `store`: key → (value, accessed, expires).
    func rows(_ table: String, in store: Store) throws -> [String: (value: Data, accessed: Int64, expires: Double?)] {
        try store.queue.read { db in
            var result: [String: (value: Data, accessed: Int64, expires: Double?)] = [:]
            for row in try db.query("SELECT key, value, accessed, expires FROM \(Database.quoteIdentifier(table))") {
                result[row[0].stringValue ?? ""] = (row[1].dataValue ?? Data(), row[2].int64Value ?? 0, row[3].doubleValue)
            }
            return result
        }
    }

    deinit {
        let temporary = try? LRUDiskCache.storePath(location: .temporary, root: center.rootPath, user: nil, space: center.space)
        if let temporary { try? FileManager.default.removeItem(atPath: (temporary as NSString).deletingLastPathComponent) }
    }
}

private func utf8(_ text: String) -> Data { Data(text.utf8) }

/// True when `needle` occurs in `haystack`.
private func containsBytes(_ haystack: Data, _ needle: Data) -> Bool { haystack.range(of: needle) != nil }

/// `LRUDiskCache`.
@Suite struct LRUDiskCacheTests {
    // MARK: Round trips

    @Test func dataAndCodableValuesRoundTrip() throws {
        let f = try CacheFixture()
        let cache = try LRUDiskCache(name: "things", capacity: 100, dataCenter: f.center)
        let profile = CachedProfile(name: "Ann", age: 41, tags: ["a", "b"])
        let bytes = Data((0..<300).map { UInt8($0 % 251) })
        try cache.setData(bytes, forKey: "blob")
        try cache.set(profile, forKey: "profile")
        try cache.set("hello", forKey: "greeting")
        try cache.set(42, forKey: "answer")
        try cache.setData(Data(), forKey: "empty")

        #expect(try cache.data(forKey: "blob") == bytes)
        #expect(try cache.value(CachedProfile.self, forKey: "profile") == profile)
        #expect(try cache.value(String.self, forKey: "greeting") == "hello")
        #expect(try cache.value(Int.self, forKey: "answer") == 42)
        #expect(try cache.data(forKey: "empty") == Data())
        #expect(try cache.data(forKey: "missing") == nil)
        #expect(try cache.value(CachedProfile.self, forKey: "missing") == nil)
        #expect(try cache.contains("profile"))
        #expect(try !cache.contains("missing"))
        #expect(try cache.count() == 5)

        // Raw bytes are not an archived value, and a value does not decode as another type.
        #expect(throws: CacheError.self) { try cache.value(String.self, forKey: "blob") }
        #expect(throws: CacheError.self) { try cache.value(CachedProfile.self, forKey: "greeting") }

        // Replacing and nil-setting.
        try cache.set(CachedProfile(name: "Bo", age: 7, tags: []), forKey: "profile")
        #expect(try cache.value(CachedProfile.self, forKey: "profile")?.name == "Bo")
        try cache.set(nil as CachedProfile?, forKey: "profile")
        try cache.setData(nil, forKey: "blob")
        #expect(try cache.value(CachedProfile.self, forKey: "profile") == nil)
        #expect(try cache.data(forKey: "blob") == nil)
        #expect(try cache.count() == 3)

        // Another instance (as after a restart) reads what was written.
        try cache.flush()
        let reopened = try LRUDiskCache(name: "things", capacity: 100, dataCenter: f.center)
        #expect(try reopened.value(String.self, forKey: "greeting") == "hello")
        #expect(try reopened.count() == 3)
    }

    @Test func aReadRightAfterAWriteSeesIt() throws {
        let f = try CacheFixture()
        let cache = try LRUDiskCache(name: "fresh", capacity: 1000, dataCenter: f.center)
        for i in 0..<300 {
            try cache.set(i, forKey: "k\(i % 7)")
            #expect(try cache.value(Int.self, forKey: "k\(i % 7)") == i)
            #expect(try cache.contains("k\(i % 7)"))
            if i % 3 == 0 {
                try cache.removeValue(forKey: "k\(i % 7)")
                #expect(try cache.data(forKey: "k\(i % 7)") == nil)
                #expect(try !cache.contains("k\(i % 7)"))
            }
        }
        // Bulk removals are waited for too.
        try cache.set(1, forKey: "x")
        try cache.removeAll()
        #expect(try cache.data(forKey: "x") == nil)
        try cache.set(2, forKey: "like-1")
        try cache.removeValues(like: "like-%")
        #expect(try !cache.contains("like-1"))
    }

    /// A reader on another thread that saw a `set` return must see that value or a later one,
    /// even while the background flush is committing it.
    @Test func readersNeverSeeAValueOlderThanAFinishedSet() throws {
        let f = try CacheFixture()
        let cache = try LRUDiskCache(name: "race", capacity: 100, dataCenter: f.center)
        try cache.set(-1, forKey: "k")
        try cache.flush()
        let latest = Locked(-1)
        let done = Locked(false)
        let stale = Locked<[String]>([])
        let errors = runOnThreads(2) { t in
            if t == 0 {
                for i in 0..<3000 {
                    try cache.set(i, forKey: "k")
                    latest.withLock { $0 = i }
                    // Let the timer-driven flush, not the reader, commit some writes.
                    if i % 4 == 0 { for _ in 0..<2000 { _ = latest.current } }
                }
                done.withLock { $0 = true }
            } else {
                while !done.current {
                    let before = latest.current
                    let seen = try cache.value(Int.self, forKey: "k") ?? -2
                    if seen < before { stale.withLock { $0.append("read \(seen) after set \(before) returned") } }
                }
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        #expect(stale.current.isEmpty, "\(stale.current.prefix(5))")
        #expect(try cache.value(Int.self, forKey: "k") == 2999)
    }

    @Test func addManyAndBulkRemovals() throws {
        let f = try CacheFixture()
        let cache = try LRUDiskCache(name: "bulk", capacity: 100, dataCenter: f.center)
        try cache.addMany(["img.a": 1, "img.b": 2, "doc.a": 3, "doc.b": 4, "img_c": 5, "x": 6])
        #expect(try cache.count() == 6)
        #expect(try cache.value(Int.self, forKey: "doc.b") == 4)

        try cache.removeValues(forKeys: ["doc.a", "missing", "x"])
        #expect(try cache.count() == 4)
        #expect(try !cache.contains("doc.a"))
        #expect(try !cache.contains("x"))

        // LIKE: `_` matches any one character, so "img_%" matches img.a and img_c alike.
        try cache.removeValues(like: "img.%")
        #expect(try cache.contains("img_c"), "LIKE removed a key that does not match")
        #expect(try !cache.contains("img.b"))
        #expect(try cache.count() == 2)

        try cache.removeAll()
        #expect(try cache.count() == 0)
        try cache.set(9, forKey: "after")
        #expect(try cache.value(Int.self, forKey: "after") == 9)
    }

    // MARK: Eviction

    @Test func evictionKeepsAtMostCapacityPlusSlackAndDropsTheOldestWrites() throws {
        let f = try CacheFixture()
        let capacity = 100, slack = 10
        let cache = try LRUDiskCache(name: "small", capacity: capacity, dataCenter: f.center)
        var written: [String] = []
        for i in 0..<357 {
            let key = "k\(i)"
            try cache.setData(utf8("value \(i)"), forKey: key)
            written.append(key)
            try cache.flush()   // one batch per write: the worst case for the size check
            let count = try cache.count()
            #expect(count <= capacity + slack, "after \(i + 1) writes the cache holds \(count)")
            if count > capacity + slack { break }
        }
        let store = try f.center.commonStore()
        let kept = try f.rows("lru_small", in: store).keys
        #expect(kept.count >= capacity)
        // What survives is the most recently written suffix.
        #expect(Set(kept) == Set(written.suffix(kept.count)))
    }

    @Test func oneLargeBatchIsEvictedBackToCapacity() throws {
        let f = try CacheFixture()
        let cache = try LRUDiskCache(name: "burst", capacity: 20, dataCenter: f.center)
        for i in 0..<500 { try cache.set(i, forKey: String(format: "k%03d", i)) }
        try cache.flush()
        let count = try cache.count()
        #expect(count >= 20 && count <= 22)
        #expect(try cache.value(Int.self, forKey: "k499") == 499)
        #expect(try cache.data(forKey: "k000") == nil)
        // Stamps follow queue order, so the survivors were stamped in the order written.
        let store = try f.center.commonStore()
        let stamps = try f.rows("lru_burst", in: store)
        let ordered = stamps.sorted { $0.value.accessed < $1.value.accessed }.map(\.key)
        #expect(ordered == ordered.sorted(), "later writes must carry later recency stamps")
    }

    /// A burst longer than `eagerFlushSize` is committed in parts while it is still being
    /// queued: every write lands, a key rewritten across parts keeps its last value, reads
    /// in the middle see what was written, and stamps still follow the order of the writes.
    @Test func aLongBurstCommittedInPartsKeepsEveryWriteInOrder() throws {
        let f = try CacheFixture()
        let cache = try LRUDiskCache(name: "long", capacity: 100_000, dataCenter: f.center)
        let total = LRUDiskCache.eagerFlushSize * 3 + 7
        for i in 0..<total {
            try cache.set(i, forKey: "k\(i % (total / 2))") // each key is written twice, far apart
            if i % 401 == 0 { #expect(try cache.value(Int.self, forKey: "k\(i % (total / 2))") == i) }
        }
        try cache.flush()
        #expect(try cache.count() == total / 2)
        for key in 0..<(total / 2) {
            let last = key + (total / 2) * ((total - 1 - key) / (total / 2))
            #expect(try cache.value(Int.self, forKey: "k\(key)") == last)
        }
        let rows = try f.rows("lru_long", in: try f.center.commonStore())
        let byStamp = rows.sorted { $0.value.accessed < $1.value.accessed }.map { Int($0.key.dropFirst())! }
        let lastWrite = byStamp.map { key in key + (total / 2) * ((total - 1 - key) / (total / 2)) }
        #expect(lastWrite == lastWrite.sorted(), "a later write must carry a later recency stamp")
    }

    @Test func readsRefreshOnlyEntriesOlderThanTheRecencyInterval() throws {
        let f = try CacheFixture()
        let cache = try LRUDiskCache(name: "lru", capacity: 10, dataCenter: f.center)
        for i in 0..<10 { try cache.set(i, forKey: "k\(i)") }
        try cache.flush()
        let store = try f.center.commonStore()
        let fresh = try f.rows("lru_lru", in: store)

        // A read of a recently stamped entry leaves its stamp alone.
        #expect(try cache.value(Int.self, forKey: "k0") == 0)
        try cache.flush()
        #expect(try f.rows("lru_lru", in: store)["k0"]?.accessed == fresh["k0"]?.accessed)

        // Make every entry look an hour old, k0 the oldest; then read k0 and k1.
        let hourAgo = Int64((Date().timeIntervalSince1970 - 3600) * 1_000_000)
        try store.queue.write { db in
            for i in 0..<10 {
                try db.execute("UPDATE lru_lru SET accessed = ? WHERE key = ?", [.integer(hourAgo + Int64(i)), .text("k\(i)")])
            }
        }
        #expect(try cache.value(Int.self, forKey: "k0") == 0)
        #expect(try cache.value(Int.self, forKey: "k1") == 1)
        try cache.flush()
        let touched = try f.rows("lru_lru", in: store)
        #expect((touched["k0"]?.accessed ?? 0) > hourAgo + 1_000_000)
        #expect(touched["k2"]?.accessed == hourAgo + 2, "an entry not read was refreshed")

        // Two new entries push the cache past capacity + slack (10 + 1): the two least
        // recently used (k2, k3) go, the refreshed k0 and k1 stay.
        try cache.set(10, forKey: "k10")
        try cache.set(11, forKey: "k11")
        try cache.flush()
        let kept = Set(try f.rows("lru_lru", in: store).keys)
        #expect(kept.count == 10)
        #expect(kept.contains("k0") && kept.contains("k1"))
        #expect(!kept.contains("k2") && !kept.contains("k3"))
        #expect(kept.contains("k10") && kept.contains("k11"))
    }

    // MARK: Users

    @Test func aUserDependentCacheFollowsTheCurrentUser() throws {
        let f = try CacheFixture()
        let cache = try LRUDiskCache(name: "chats", capacity: 50, userDependent: true, dataCenter: f.center)
        #expect(cache.isUserDependent)

        // Nobody signed in: writes are dropped, reads give nothing.
        try cache.set("dropped", forKey: "k")
        #expect(try cache.value(String.self, forKey: "k") == nil)
        #expect(try !cache.contains("k"))
        #expect(try cache.count() == 0)
        try cache.removeAll()
        try cache.flush()

        try f.center.setCurrentUserId("alice")
        #expect(try cache.value(String.self, forKey: "k") == nil, "a write made with no user reached alice")
        try cache.set("alice's", forKey: "k")
        try cache.set("only alice", forKey: "a")
        // Switch before the write is committed: it still lands in alice's store.
        try f.center.setCurrentUserId("bob")
        #expect(try cache.value(String.self, forKey: "k") == nil)
        #expect(try cache.value(String.self, forKey: "a") == nil)
        try cache.set("bob's", forKey: "k")
        #expect(try cache.value(String.self, forKey: "k") == "bob's")
        #expect(try cache.count() == 1)

        try f.center.setCurrentUserId("alice")
        #expect(try cache.value(String.self, forKey: "k") == "alice's")
        #expect(try cache.value(String.self, forKey: "a") == "only alice")
        #expect(try cache.count() == 2)
        try cache.removeAll()
        #expect(try cache.count() == 0)

        try f.center.setCurrentUserId(nil)
        #expect(try cache.value(String.self, forKey: "k") == nil)
        try f.center.setCurrentUserId("bob")
        #expect(try cache.value(String.self, forKey: "k") == "bob's", "alice's removeAll reached bob")

        // The entries live in each user's store, none in the common one.
        let aliceInfo = try CacheCatalog.cache(named: "chats", in: try f.center.store(forUser: "alice"))
        let bobInfo = try CacheCatalog.cache(named: "chats", in: try f.center.store(forUser: "bob"))
        #expect(aliceInfo.entryCount == 0)
        #expect(bobInfo.entryCount == 1)
        #expect(bobInfo.isUserDependent)
        #expect(try CacheCatalog.caches(in: try f.center.commonStore()).isEmpty)
    }

    // MARK: Expiry

    @Test func expiredEntriesAreNotServedAndAreRemoved() throws {
        let f = try CacheFixture()
        let cache = try LRUDiskCache(name: "expiring", capacity: 100, dataCenter: f.center)
        try cache.set("gone", forKey: "past", expiresAt: Date().addingTimeInterval(-1))
        try cache.setData(utf8("gone too"), forKey: "pastData", expiresAt: Date().addingTimeInterval(-3600))
        try cache.set("here", forKey: "future", expiresAt: Date().addingTimeInterval(3600))
        try cache.set("forever", forKey: "forever")

        #expect(try !cache.contains("past"))
        #expect(try cache.value(String.self, forKey: "past") == nil)
        #expect(try cache.data(forKey: "pastData") == nil)
        #expect(try cache.value(String.self, forKey: "future") == "here")
        #expect(try cache.value(String.self, forKey: "forever") == "forever")
        try cache.flush()
        let store = try f.center.commonStore()
        let rows = try f.rows("lru_expiring", in: store)
        #expect(rows["past"] == nil && rows["pastData"] == nil, "a read of an expired entry removes it")
        #expect(rows["future"]?.expires != nil)
        #expect(rows["forever"]?.expires == nil)

        // Setting again without an expiry revives the key.
        try cache.set("back", forKey: "past", expiresAt: Date().addingTimeInterval(-1))
        try cache.set("back", forKey: "past")
        #expect(try cache.value(String.self, forKey: "past") == "back")
    }

    // MARK: Encryption

    @Test func anEncryptedCacheStoresNoPlaintext() throws {
        let f = try CacheFixture()
        let secret = "correct horse battery staple"
        let plain = try LRUDiskCache(name: "plain", capacity: 10, dataCenter: f.center)
        let crypted = try LRUDiskCache(name: "crypted", capacity: 10, encrypted: true, dataCenter: f.center)
        #expect(crypted.isEncrypted && !plain.isEncrypted)
        for cache in [plain, crypted] {
            try cache.set(secret, forKey: "s")
            try cache.setData(utf8(secret), forKey: "raw")
            try cache.flush()
        }
        let store = try f.center.commonStore()
        let plainRows = try f.rows("lru_plain", in: store)
        let cryptedRows = try f.rows("lru_crypted", in: store)
        #expect(containsBytes(plainRows["raw"]?.value ?? Data(), utf8(secret)), "the raw read does not see plain values")
        #expect(containsBytes(plainRows["s"]?.value ?? Data(), utf8(secret)))
        for key in ["s", "raw"] {
            let stored = try #require(cryptedRows[key]?.value)
            #expect(!containsBytes(stored, utf8(secret)))
            #expect(AESGCMCrypt.looksEncrypted(stored))
        }
        #expect(try crypted.value(String.self, forKey: "s") == secret)
        #expect(try crypted.data(forKey: "raw") == utf8(secret))
    }

    @Test func aWrongKeyGivesCannotDecrypt() throws {
        let f = try CacheFixture()
        let crypted = try LRUDiskCache(name: "tokens", capacity: 10, encrypted: true, dataCenter: f.center)
        try crypted.set("token-123", forKey: "t")
        try crypted.flush()

        let other = try DataCenter(rootPath: f.root, crypt: KeyRing([EncryptionKey.random()]))
        let wrong = try LRUDiskCache(name: "tokens", capacity: 10, encrypted: true, dataCenter: other)
        do {
            _ = try wrong.value(String.self, forKey: "t")
            Issue.record("a wrong key decrypted the value")
        } catch let CacheError.cannotDecrypt(cache, key, reason) {
            #expect(cache == "tokens")
            #expect(key == "t")
            #expect(reason == .wrongKey(keysTried: 1))
        }
        #expect(throws: CacheError.self) { try wrong.data(forKey: "t") }

        // With no key at all, encrypted writes fail at once and reads fail too.
        let keyless = try DataCenter(rootPath: f.root)
        let noKey = try LRUDiskCache(name: "tokens", capacity: 10, encrypted: true, dataCenter: keyless)
        #expect(throws: CacheError.self) { try noKey.set("x", forKey: "y") }
        #expect(throws: CacheError.self) { try noKey.value(String.self, forKey: "t") }

        // The original key still reads it, through a ring where it is the older key.
        let rotated = try DataCenter(rootPath: f.root, crypt: KeyRing([EncryptionKey.random(), f.key]))
        let reader = try LRUDiskCache(name: "tokens", capacity: 10, encrypted: true, dataCenter: rotated)
        #expect(try reader.value(String.self, forKey: "t") == "token-123")
    }

    // MARK: Locations and metadata

    @Test func prefixedNamesLiveInOtherFiles() throws {
        let f = try CacheFixture()
        let lib = try LRUDiskCache(name: "LIB_CACHES.images", capacity: 10, dataCenter: f.center)
        let tmp = try LRUDiskCache(name: "TMP.scratch", capacity: 10, dataCenter: f.center)
        let here = try LRUDiskCache(name: "inStore", capacity: 10, dataCenter: f.center)
        #expect(lib.location == .libraryCaches && lib.tableName == "lru_images")
        #expect(tmp.location == .temporary && tmp.tableName == "lru_scratch")
        #expect(here.location == .store)
        try lib.set("L", forKey: "k")
        try tmp.set("T", forKey: "k")
        try here.set("S", forKey: "k")
        for cache in [lib, tmp, here] { try cache.flush() }

        let libPath = f.root + "/Caches/lru.sqlite"
        #expect(FileManager.default.fileExists(atPath: libPath))
        let paths = try f.center.cacheStorePaths(forUser: nil)
        #expect(paths.count == 3)
        #expect(paths.contains(f.center.commonStorePath) && paths.contains(libPath))
        let tmpPath = paths[2]
        #expect(tmpPath.hasPrefix(NSTemporaryDirectory() + "datacenter-") && tmpPath.hasSuffix("/lru.sqlite"))
        #expect(!tmpPath.hasPrefix(f.root))

        let names = try paths.map { try CacheCatalog.caches(in: try f.center.store(atPath: $0)).map(\.name) }
        #expect(names[0] == ["inStore"])
        #expect(names[1] == ["LIB_CACHES.images"])
        #expect(names[2] == ["TMP.scratch"])
        #expect(try CacheCatalog.entry("k", of: try CacheCatalog.cache(named: "TMP.scratch", in: try f.center.store(atPath: tmpPath)),
                                       in: try f.center.store(atPath: tmpPath)) != nil)
        #expect(try lib.value(String.self, forKey: "k") == "L")
        #expect(try tmp.value(String.self, forKey: "k") == "T")

        // A user-dependent library cache gets its own file per user.
        let userLib = try LRUDiskCache(name: "LIB_CACHES.perUser", capacity: 10, userDependent: true, dataCenter: f.center)
        try f.center.setCurrentUserId("ann")
        try userLib.set(1, forKey: "k")
        try userLib.flush()
        let userPaths = try f.center.cacheStorePaths(forUser: "ann")
        #expect(userPaths.contains { $0.hasPrefix(f.root + "/Caches/users/") && $0.hasSuffix("/lru.sqlite") })

        for bad in ["LIB_CACHES.", "TMP."] {
            #expect(throws: CacheError.self) { try LRUDiskCache(name: bad, capacity: 1, dataCenter: f.center) }
        }
    }

    @Test func everyCacheIsRecordedInTheStoreMetadata() throws {
        let f = try CacheFixture()
        _ = try LRUDiskCache(name: "plain", capacity: 30, dataCenter: f.center)
        let crypted = try LRUDiskCache(name: "crypted", capacity: 5, encrypted: true, dataCenter: f.center)
        let store = try f.center.commonStore()
        // Listed before the first write.
        var infos = try CacheCatalog.caches(in: store)
        #expect(infos.map(\.name) == ["crypted", "plain"])
        let plainInfo = try #require(infos.last)
        #expect(plainInfo == CacheInfo(name: "plain", tableName: "lru_plain", capacity: 30, isEncrypted: false,
                                       isUserDependent: false, entryCount: 0, byteCount: 0))
        #expect(infos.first?.isEncrypted == true && infos.first?.capacity == 5)

        try crypted.setData(Data(count: 100), forKey: "a")
        try crypted.setData(Data(count: 50), forKey: "b")
        try crypted.flush()
        infos = try CacheCatalog.caches(in: store)
        #expect(infos.first?.entryCount == 2)
        // Sizes count the stored (encrypted) bytes.
        #expect(infos.first?.byteCount == 150 + 2 * AESGCMCrypt.overhead)

        // A user-dependent cache is recorded in the user's store once a user is signed in.
        _ = try LRUDiskCache(name: "mine", capacity: 3, userDependent: true, dataCenter: f.center)
        #expect(try CacheCatalog.caches(in: store).map(\.name) == ["crypted", "plain"])
        try f.center.setCurrentUserId("u")
        let mine = try LRUDiskCache(name: "mine", capacity: 3, userDependent: true, dataCenter: f.center)
        _ = mine
        let userInfos = try CacheCatalog.caches(in: try f.center.store(forUser: "u"))
        #expect(userInfos.map(\.name) == ["mine"])
        #expect(userInfos.first?.isUserDependent == true)
    }

    @Test func flushReportsABackgroundWriteFailureOnce() throws {
        let f = try CacheFixture()
        let cache = try LRUDiskCache(name: "fragile", capacity: 10, dataCenter: f.center)
        try cache.set(1, forKey: "a")
        try cache.flush()
        let store = try f.center.commonStore()
        try store.queue.write { db in try db.execute("DROP TABLE lru_fragile") }
        try cache.set(2, forKey: "b")
        do {
            try cache.flush()
            Issue.record("flush did not report the failed write")
        } catch let CacheError.writeFailed(name, _) {
            #expect(name == "fragile")
        }
        try cache.flush()   // reported once
    }

    @Test func aCacheInAGivenStore() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("s.sqlite"))
        let cache = try LRUDiskCache(name: "direct", capacity: 4, store: store)
        try cache.set([1, 2, 3], forKey: "list")
        #expect(try cache.value([Int].self, forKey: "list") == [1, 2, 3])
        #expect(try CacheCatalog.cache(named: "direct", in: store).capacity == 4)
        #expect(throws: CacheError.self) { try LRUDiskCache(name: "TMP.", capacity: 1, store: store) }
    }
}
