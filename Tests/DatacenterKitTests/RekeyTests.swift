import DatacenterKit
import Foundation
import Testing

/// `DataCenter.rekey`: every kind, paging, reruns, and what it refuses.
@Suite struct RekeyTests {
    let old = EncryptionKey.random()
    let new = EncryptionKey.random()

    @Test func aBoundValueUnderTheNewKeyIsDoneAndAnUnboundOneIsUpgraded() throws {
        let crypt = RekeyCrypt(current: KeyRing([old]), new: new)
        let context = CryptContext(parts: ["kv", "b", "k", "string"])
        let plain = Data("secret".utf8)
        let bound = try plain.withUnsafeBytes { try AESGCMCrypt(key: new).encrypt(bytes: $0, boundTo: context) }
        #expect(try crypt.reencryptBound(bound, context: context) == .alreadyDone)
        let unboundUnderNew = try AESGCMCrypt(key: new).encrypt(plain)
        guard case .moved(let upgraded) = try crypt.reencryptBound(unboundUnderNew, context: context) else {
            Issue.record("an unbound value under the new key must be upgraded")
            return
        }
        #expect(AESGCMCrypt.format(of: upgraded) == 2)
        #expect(try AESGCMCrypt(key: new).decrypt(upgraded, boundTo: context) == plain)
        let elsewhere = CryptContext(parts: ["kv", "b", "other", "string"])
        #expect(throws: CryptError.misplaced) { try crypt.reencryptBound(bound, context: elsewhere) }
        let stranger = try AESGCMCrypt(key: .random()).encrypt(plain)
        #expect(throws: CryptError.wrongKey(keysTried: 2)) { try crypt.reencryptUnbound(stranger) }
        #expect(throws: CryptError.self) { try crypt.reencryptUnbound(bound) }
        let underOld = try AESGCMCrypt(key: old).encrypt(plain)
        guard case .moved(let moved) = try crypt.reencryptUnbound(underOld) else {
            Issue.record("a value under the old key must move")
            return
        }
        #expect(AESGCMCrypt.format(of: moved) == 1)
        #expect(try AESGCMCrypt(key: new).decrypt(moved) == plain)
        #expect(try crypt.reencryptUnbound(moved) == .alreadyDone)
    }

    @Test func manyValuesPageThroughAndARerunFindsThemDone() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let count = EncryptedColumnRewrite.pageSize * 2 + 7
        do {
            let center = try DataCenter(rootPath: root, crypt: KeyRing([old]))
            let kv = try center.commonPreferences
            try kv.batch {
                for i in 0..<count { try kv.setString("v\(i)", forKey: "k\(i)", business: i % 2 == 0 ? "a" : "b", encryption: .default) }
            }
            let cache = try LRUDiskCache(name: "big", capacity: count * 2, encrypted: true, store: center.commonStore())
            for i in 0..<count { try cache.setData(Data("c\(i)".utf8), forKey: "k\(i)") }
            try cache.flush()
        }
        let first = DataCenter.rekey(rootPath: root, from: KeyRing([old]), to: new)
        #expect(first.failed.isEmpty, "\(first.failed)")
        let common = try #require(first.stores.first)
        #expect(common.name == "common")
        #expect(common.tallies == [RekeyTally(kind: "kv", moved: count), RekeyTally(kind: "cache", name: "big", moved: count)])
        let second = DataCenter.rekey(rootPath: root, from: KeyRing([old]), to: new)
        #expect(second.wasAlreadyDone && second.alreadyDone == 2 * count)

        let center = try DataCenter(rootPath: root, crypt: KeyRing([new]))
        for i in stride(from: 0, to: count, by: 37) {
            #expect(try center.commonPreferences.string(forKey: "k\(i)", business: i % 2 == 0 ? "a" : "b") == "v\(i)")
        }
        let cache = try LRUDiskCache(name: "big", capacity: count * 2, encrypted: true, store: center.commonStore())
        #expect(try cache.data(forKey: "k\(count - 1)") == Data("c\(count - 1)".utf8))
    }

    @Test func aServiceWithoutARecordIsToldFromItsFiles() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let lookalike = Data([0x01] + (0..<40).map { UInt8($0) })
        do {
            let store = try DataCenter(rootPath: root, crypt: KeyRing([old])).commonStore()
            let secret = try FileArrayService(name: "secret", store: store, encrypted: true)
            secret.write(Data("one".utf8), to: "1")
            let plain = try FileArrayService(name: "plain", store: store)
            plain.write(Data("text".utf8), to: "t")
            secret.waitForPendingOperations()
            plain.waitForPendingOperations()
            // As a store from before services were recorded.
            try store.queue.write { db in try db.execute("DROP TABLE \(FileArrayService.registryTable)") }
        }
        let summary = DataCenter.rekey(rootPath: root, from: KeyRing([old]), to: new)
        #expect(summary.failed.isEmpty, "\(summary.failed)")
        #expect(summary.stores.first?.tallies == [RekeyTally(kind: "files", name: "secret", moved: 1)])

        // Plain files that merely look encrypted, in a service with no record: refused, unchanged.
        let store = try Store(path: root + "/common.sqlite", crypt: KeyRing([new]))
        try store.queue.write { db in
            try db.execute("INSERT INTO files_plain(name, data, size, modified) VALUES ('odd', ?, 41, 0)", [.blob(lookalike)])
        }
        let refused = DataCenter.rekey(rootPath: root, from: KeyRing([new]), to: .random())
        let error = try #require(refused.failed.first?.error)
        #expect(error.contains("files_plain") && error.contains("look encrypted"), "\(error)")
        #expect(try FileArrayService(name: "secret", store: store, encrypted: true).read("1") == Data("one".utf8),
                "the store was left under its key")
    }

    @Test func aRecordedPlainServiceIsLeftAloneWhateverItsFilesLookLike() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let lookalike = Data([0x01] + (0..<40).map { UInt8($0) })
        let store = try DataCenter(rootPath: root, crypt: KeyRing([old])).commonStore()
        let plain = try FileArrayService(name: "plain", store: store)
        plain.write(lookalike, to: "odd")
        plain.waitForPendingOperations()
        let summary = DataCenter.rekey(rootPath: root, from: KeyRing([old]), to: new)
        #expect(summary.failed.isEmpty, "\(summary.failed)")
        #expect(try plain.read("odd") == lookalike)
    }

    @Test func aFileThatIsNotAStoreWhereOneBelongsFailsAndOthersAreSkipped() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        _ = try DataCenter(rootPath: root, crypt: KeyRing([old])).commonPreferences
        try Data("not sqlite at all".utf8).write(to: URL(fileURLWithPath: root + "/users.sqlite"))
        try FileManager.default.createDirectory(atPath: root + "/users/ann", withIntermediateDirectories: true)
        try Data("not sqlite at all".utf8).write(to: URL(fileURLWithPath: root + "/users/ann/user.sqlite"))
        let summary = DataCenter.rekey(rootPath: root, from: KeyRing([old]), to: new)
        #expect(summary.stores.map(\.name) == ["common", "user ann"])
        #expect(summary.failed.map(\.name) == ["user ann"])
    }

    @Test func temporaryAndLibraryCachesOfEveryUserMove() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let center = try DataCenter(rootPath: root, crypt: KeyRing([old]))
        try center.setCurrentUserId("ann")
        let temporary = try LRUDiskCache(name: "TMP.scratch", capacity: 10, userDependent: true, encrypted: true, dataCenter: center)
        defer { try? center.reset() }   // the temporary folder's cache files too
        try temporary.setData(Data("temporary".utf8), forKey: "t")
        try temporary.flush()
        let library = try LRUDiskCache(name: "LIB_CACHES.lib", capacity: 10, encrypted: true, dataCenter: center)
        try library.setData(Data("library".utf8), forKey: "l")
        try library.flush()
        let summary = DataCenter.rekey(rootPath: root, from: KeyRing([old]), to: new)
        #expect(summary.failed.isEmpty, "\(summary.failed)")
        let moved = Dictionary(uniqueKeysWithValues: summary.stores.map { ($0.name, $0.moved) })
        #expect(moved["temporary caches, user ann"] == 1 && moved["caches"] == 1, "\(summary.stores)")
        let reopened = try DataCenter(rootPath: root, crypt: KeyRing([new]))
        try reopened.setCurrentUserId("ann")
        let tmp = try LRUDiskCache(name: "TMP.scratch", capacity: 10, userDependent: true, encrypted: true, dataCenter: reopened)
        #expect(try tmp.data(forKey: "t") == Data("temporary".utf8))
        #expect(try LRUDiskCache(name: "LIB_CACHES.lib", capacity: 10, encrypted: true, dataCenter: reopened).data(forKey: "l")
                == Data("library".utf8))
    }
}
