import Foundation
import Testing
@testable import DatacenterKit

private struct Badge: Codable, Equatable {
    var label: String
    var count: Int
}

/// `CacheCatalog`: the tools' view of disk caches.
@Suite struct CacheCatalogTests {
    let folder = TemporaryFolder()
    let key = EncryptionKey.random()

    func makeStore(_ crypt: KeyRing? = nil) throws -> Store {
        try Store(path: folder.file("s.sqlite"), crypt: crypt ?? KeyRing([key]))
    }

    @Test func aStoreWithoutCachesListsNone() throws {
        let store = try makeStore()
        #expect(try CacheCatalog.caches(in: store).isEmpty)
        #expect(throws: CacheError.unknownCache("nope")) { try CacheCatalog.cache(named: "nope", in: store) }
    }

    @Test func listsCachesWithSizes() throws {
        let store = try makeStore()
        let b = try LRUDiskCache(name: "b-cache", capacity: 7, store: store)
        let a = try LRUDiskCache(name: "a-cache", capacity: 3, encrypted: true, store: store)
        try b.setData(Data(count: 10), forKey: "x")
        try b.setData(Data(count: 20), forKey: "y")
        try b.flush()
        try a.flush()
        let infos = try CacheCatalog.caches(in: store)
        #expect(infos == [
            CacheInfo(name: "a-cache", tableName: "lru_a-cache", capacity: 3, isEncrypted: true, isUserDependent: false,
                      entryCount: 0, byteCount: 0),
            CacheInfo(name: "b-cache", tableName: "lru_b-cache", capacity: 7, isEncrypted: false, isUserDependent: false,
                      entryCount: 2, byteCount: 30),
        ])
        #expect(try CacheCatalog.cache(named: "b-cache", in: store) == infos[1])
        // A recorded cache whose table is gone is not listed.
        try store.queue.write { db in try db.execute(#"DROP TABLE "lru_a-cache""#) }
        #expect(try CacheCatalog.caches(in: store).map(\.name) == ["b-cache"])
    }

    @Test func entriesArePagedByKey() throws {
        let store = try makeStore()
        let cache = try LRUDiskCache(name: "paged", capacity: 100, store: store)
        for i in 0..<25 { try cache.set(i, forKey: String(format: "k%02d", i)) }
        try cache.setData(Data("raw".utf8), forKey: "raw", expiresAt: Date(timeIntervalSince1970: 2_000_000_000))
        try cache.flush()
        let info = try CacheCatalog.cache(named: "paged", in: store)

        var keys: [String] = []
        var after: String?
        while true {
            let page = try CacheCatalog.entries(of: info, in: store, after: after, limit: 10)
            if page.isEmpty { break }
            #expect(page.count <= 10)
            keys += page.map(\.key)
            after = page.last?.key
        }
        #expect(keys == (0..<25).map { String(format: "k%02d", $0) } + ["raw"])
        #expect(try CacheCatalog.entries(of: info, in: store).count == 26)

        let raw = try #require(try CacheCatalog.entry("raw", of: info, in: store))
        #expect(raw.encoding == "data")
        #expect(raw.stored == Data("raw".utf8))
        #expect(raw.expires == Date(timeIntervalSince1970: 2_000_000_000))
        #expect(raw.accessed > 0)
        let archived = try #require(try CacheCatalog.entry("k03", of: info, in: store))
        #expect(archived.encoding == "archive")
        #expect(archived.expires == nil)
        #expect(try CacheCatalog.entry("absent", of: info, in: store) == nil)
    }

    @Test func decodeGivesPropertyListsOrBytes() throws {
        let store = try makeStore()
        let cache = try LRUDiskCache(name: "values", capacity: 10, store: store)
        try cache.set(Badge(label: "new", count: 3), forKey: "badge")
        try cache.set("text", forKey: "string")
        try cache.set([1.5, 2.5], forKey: "list")
        try cache.setData(Data([0, 1, 2]), forKey: "bytes")
        try cache.flush()
        let info = try CacheCatalog.cache(named: "values", in: store)
        func decoded(_ key: String) throws -> PropertyListValue {
            try CacheCatalog.decode(try #require(try CacheCatalog.entry(key, of: info, in: store)), of: info, crypt: KeyRing.empty)
        }
        #expect(try decoded("badge") == .dictionary(["label": .string("new"), "count": .integer(3)]))
        #expect(try decoded("string") == .string("text"))
        #expect(try decoded("list") == .array([.real(1.5), .real(2.5)]))
        #expect(try decoded("bytes") == .data(Data([0, 1, 2])))

        // Bytes marked as an archive that are not one.
        try store.queue.write { db in
            try db.execute("UPDATE lru_values SET value = ? WHERE key = 'string'", [.blob(Data("bplist00".utf8) + Data([0xFF, 0x00, 0x13]))])
        }
        #expect(throws: CacheError.self) { try decoded("string") }
    }

    @Test func encryptedEntriesNeedTheRightCrypt() throws {
        let store = try makeStore()
        let cache = try LRUDiskCache(name: "sealed", capacity: 10, encrypted: true, store: store)
        try cache.set("hidden", forKey: "k")
        try cache.flush()
        let info = try CacheCatalog.cache(named: "sealed", in: store)
        let entry = try #require(try CacheCatalog.entry("k", of: info, in: store))
        #expect(entry.stored.range(of: Data("hidden".utf8)) == nil)
        #expect(try CacheCatalog.decode(entry, of: info, crypt: KeyRing([key])) == .string("hidden"))
        #expect(try CacheCatalog.decode(entry, of: info, crypt: KeyRing([EncryptionKey.random(), key])) == .string("hidden"))
        #expect(throws: CacheError.cannotDecrypt(cache: "sealed", key: "k", reason: .wrongKey(keysTried: 1))) {
            try CacheCatalog.decode(entry, of: info, crypt: KeyRing([EncryptionKey.random()]))
        }
        #expect(throws: CacheError.cannotDecrypt(cache: "sealed", key: "k", reason: .noKey)) {
            try CacheCatalog.decode(entry, of: info, crypt: KeyRing.empty)
        }
    }

    @Test func removeAndClear() throws {
        let store = try makeStore()
        let cache = try LRUDiskCache(name: "edit", capacity: 10, store: store)
        for i in 0..<5 { try cache.set(i, forKey: "k\(i)") }
        try cache.flush()
        let info = try CacheCatalog.cache(named: "edit", in: store)
        #expect(try CacheCatalog.remove("k1", of: info, in: store))
        #expect(try !CacheCatalog.remove("k1", of: info, in: store))
        #expect(try cache.data(forKey: "k1") == nil)
        #expect(try CacheCatalog.cache(named: "edit", in: store).entryCount == 4)
        #expect(try CacheCatalog.clear(info, in: store) == 4)
        #expect(try CacheCatalog.clear(info, in: store) == 0)
        #expect(try cache.count() == 0)
        // The cache is still recorded and usable.
        try cache.set(9, forKey: "again")
        #expect(try cache.value(Int.self, forKey: "again") == 9)
        try cache.flush()   // a read is answered from the queue; it does not commit
        #expect(try CacheCatalog.cache(named: "edit", in: store).entryCount == 1)
    }
}
