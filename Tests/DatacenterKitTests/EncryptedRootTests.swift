import DatacenterTestSupport
import Foundation
import Testing
@testable import DatacenterKit

/// A data-center root whose every SQLite file is encrypted with a database key list
/// (`DataCenter(rootPath:databaseKeys:)`), and what `datacenter.json` records about it.
@Suite struct EncryptedRootTests {
    static let passphrase = "root passphrase 1"
    static let sqliteHeader = Data("SQLite format 3\0".utf8)

    static func keys(_ texts: String...) throws -> DatabaseKeyList { try DatabaseKeyList(sqlcipherKeys: texts) }

    /// Writes a marker value into every kind of SQLite file a root has; returns the markers.
    @discardableResult
    static func fill(_ center: DataCenter, customFolder: String) throws -> [String] {
        try center.commonPreferences.setString("MARKER-common-value", forKey: "k", business: "b")
        try center.setCurrentUserId("alice")
        try #require(try center.userPreferences).setString("MARKER-alice-value", forKey: "k", business: "b")
        try center.setCurrentUserId("bob")
        try #require(try center.userPreferences).setString("MARKER-bob-value", forKey: "k", business: "b")
        try center.currentVersionStorage.commonPreferences.setString("MARKER-version-value", forKey: "k")
        try center.customStorage(atPath: customFolder).commonPreferences.setString("MARKER-custom-value", forKey: "k")
        try center.customStorage(atPath: customFolder).userPreferences?.setString("MARKER-custom-bob", forKey: "k")
        let library = try LRUDiskCache(name: "LIB_CACHES.thumbs", capacity: 10, dataCenter: center)
        try library.setData(Data("MARKER-libcache-value".utf8), forKey: "k")
        try library.flush()
        let perUser = try LRUDiskCache(name: "LIB_CACHES.recent", capacity: 10, userDependent: true, dataCenter: center)
        try perUser.setData(Data("MARKER-libcache-bob".utf8), forKey: "k")
        try perUser.flush()
        let temporary = try LRUDiskCache(name: "TMP.scratch", capacity: 10, dataCenter: center)
        try temporary.setData(Data("MARKER-tmpcache-value".utf8), forKey: "k")
        try temporary.flush()
        let inStore = try LRUDiskCache(name: "tokens", capacity: 10, dataCenter: center)
        try inStore.setData(Data("MARKER-storecache-value".utf8), forKey: "k")
        try inStore.flush()
        return ["MARKER-common-value", "MARKER-alice-value", "MARKER-bob-value", "MARKER-version-value",
                "MARKER-custom-value", "MARKER-custom-bob", "MARKER-libcache-value", "MARKER-libcache-bob",
                "MARKER-tmpcache-value", "MARKER-storecache-value"]
    }

    /// The common `TMP.` cache file of a root (in the temporary folder, not under the root).
    static func temporaryCachePath(of center: DataCenter) throws -> String {
        try LRUDiskCache.storePath(location: .temporary, root: center.rootPath, user: nil, space: center.space)
    }

    /// Removes the `TMP.` cache files a root made in the temporary folder.
    static func removeTemporaryCaches(of center: DataCenter) {
        guard let path = try? temporaryCachePath(of: center) else { return }
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }

    struct ReaderWentBack: Error {}

    @Test func everySQLiteFileOfAnEncryptedRootIsEncryptedOnDisk() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let center = try DataCenter(rootPath: root, databaseKeys: try Self.keys(Self.passphrase))
        defer { Self.removeTemporaryCaches(of: center) }
        let markers = try Self.fill(center, customFolder: folder.file("custom"))

        let files = center.databaseFilePaths()
        let expected = [root + "/common.sqlite", root + "/users/alice/user.sqlite", root + "/users/bob/user.sqlite",
                        root + "/version/common.sqlite", folder.file("custom") + "/common.sqlite",
                        folder.file("custom") + "/users/bob/user.sqlite", root + "/Caches/lru.sqlite",
                        root + "/Caches/users/bob/lru.sqlite"]
        for path in expected { #expect(files.contains(path), "\(path) is one of the root's SQLite files") }
        #expect(files.contains(try Self.temporaryCachePath(of: center)), "the TMP. cache file")
        #expect(files.count == expected.count + 1)

        // Every file and its log, as they are on disk while open and after the stores close.
        var sawBytes = 0
        for path in files {
            for part in [path, path + "-wal"] {
                let bytes = fileBytes(part)
                sawBytes += bytes.count
                #expect(!bytes.starts(with: Self.sqliteHeader), "\(part) has a plain SQLite header")
                for marker in markers {
                    #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(part) shows \(marker) in plaintext")
                }
            }
            #expect(try DatabaseFileKind.of(path: path) == .encryptedOrNotADatabase)
        }
        #expect(sawBytes > 0)
    }

    @Test func theSameValuesInAPlainRootAreVisibleOnDisk() throws {
        // The check above can fail: without keys, the markers are there to be found.
        let folder = TemporaryFolder()
        let center = try DataCenter(rootPath: folder.file("root"))
        defer { Self.removeTemporaryCaches(of: center) }
        try Self.fill(center, customFolder: folder.file("custom"))
        let common = fileBytes(center.commonStorePath) + fileBytes(center.commonStorePath + "-wal")
        #expect(common.range(of: Data("MARKER-common-value".utf8)) != nil)
        #expect(fileBytes(center.commonStorePath).starts(with: Self.sqliteHeader))
        #expect(!center.isDatabaseEncrypted)
    }

    @Test func anEncryptedRootReopensWithItsKeyAndWithTheOldKeySecondInTheList() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        do {
            let center = try DataCenter(rootPath: root, databaseKeys: try Self.keys("old passphrase"))
            try center.commonPreferences.setString("common", forKey: "k", business: "b")
            try center.setCurrentUserId("alice")
            try center.userPreferences?.setString("alice's", forKey: "k", business: "b")
        }
        do {
            let center = try DataCenter(rootPath: root, databaseKeys: try Self.keys("old passphrase"))
            #expect(try center.commonPreferences.string(forKey: "k", business: "b") == "common")
            #expect(try center.commonStore().databaseKey == (try DatabaseKey.passphrase("old passphrase")))
        }
        let center = try DataCenter(rootPath: root, databaseKeys: try Self.keys("new passphrase", "old passphrase"))
        #expect(try center.commonPreferences.string(forKey: "k", business: "b") == "common")
        #expect(try center.userPreferences?.string(forKey: "k", business: "b") == "alice's")
        #expect(try center.commonStore().databaseKey == (try DatabaseKey.passphrase("old passphrase")))
        // A file created now gets the newest key.
        try center.preferences(forUser: "carol").setString("carol's", forKey: "k", business: "b")
        let carol = try center.storePath(forUser: "carol")
        #expect(try center.store(forUser: "carol").databaseKey == (try DatabaseKey.passphrase("new passphrase")))
        _ = try Database(path: carol, key: .passphrase("new passphrase"), mode: .readOnly)
        #expect(throws: DatabaseError.self) { try Database(path: carol, key: .passphrase("old passphrase"), mode: .readOnly) }
        // A store opened on its own, as a tool opens one file, takes the same list.
        let existing = try Store(existingAt: root + "/common.sqlite", databaseKeys: try Self.keys("new passphrase", "old passphrase"))
        #expect(try existing.kv.string(forKey: "k", business: "b") == "common")
        #expect(existing.databaseKey == (try DatabaseKey.passphrase("old passphrase")))
    }

    @Test func anEncryptedRootWithoutAKeyIsRefusedClearly() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        do { try DataCenter(rootPath: root, databaseKeys: try Self.keys(Self.passphrase)).commonPreferences.setInteger(1, forKey: "k", business: "b") }
        let state = fileBytes(root + "/datacenter.json")
        for readOnly in [false, true] {
            let error = #expect(throws: StorageError.self) { try DataCenter(rootPath: root, readOnly: readOnly) }
            #expect(error == .encryptedRootNeedsKey(root: root, format: .sqlcipher4))
            #expect(error?.description == "root \(root) is encrypted (SQLCipher 4): it needs its database key")
        }
        #expect(fileBytes(root + "/datacenter.json") == state)
        // A store opened on its own without the key says what it needs, naming the file.
        let storeError = #expect(throws: DatabaseError.self) { try Store(path: root + "/common.sqlite", readOnly: true) }
        #expect(storeError?.keyProblem == .missingKey)
        #expect(storeError?.description.contains(root + "/common.sqlite") == true)
    }

    @Test func aWrongKeyFailsClearlyNamingTheFile() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        do { try DataCenter(rootPath: root, databaseKeys: try Self.keys(Self.passphrase)).commonPreferences.setInteger(1, forKey: "k", business: "b") }
        let before = fileBytes(root + "/common.sqlite")
        let center = try DataCenter(rootPath: root, databaseKeys: try Self.keys("not the passphrase"))
        let error = #expect(throws: DatabaseError.self) { try center.commonPreferences }
        #expect(error?.keyProblem == .wrongKey)
        #expect(error?.description.contains(root + "/common.sqlite") == true)
        #expect(error?.description.contains("wrong key") == true)
        #expect(fileBytes(root + "/common.sqlite") == before, "a wrong key changes nothing")
    }

    @Test func usersSwitchOnAnEncryptedRoot() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let keys = try Self.keys(Self.passphrase)
        do {
            let center = try DataCenter(rootPath: root, databaseKeys: keys)
            try center.setCurrentUserId("alice")
            try center.userPreferences?.setString("alice's theme", forKey: "theme", business: "settings")
            try center.setCurrentUserId("bob@example.com")
            #expect(try center.userPreferences?.string(forKey: "theme", business: "settings") == nil)
            try center.userPreferences?.setString("bob's theme", forKey: "theme", business: "settings")
            try center.setCurrentUserId("alice")
            #expect(try center.userPreferences?.string(forKey: "theme", business: "settings") == "alice's theme")
        }
        let center = try DataCenter(rootPath: root, databaseKeys: keys)
        #expect(center.currentUserId == "alice")
        #expect(center.users() == ["alice", "bob@example.com"])
        #expect(try center.userPreferences?.string(forKey: "theme", business: "settings") == "alice's theme")
        try center.setCurrentUserId("bob@example.com")
        #expect(try center.userPreferences?.string(forKey: "theme", business: "settings") == "bob's theme")
        for user in center.users() {
            #expect(try DatabaseFileKind.of(path: center.storePath(forUser: user)) == .encryptedOrNotADatabase)
        }
    }

    @Test func poolReadersReadAnEncryptedStoreWithItsKeyWhileItIsWritten() throws {
        let folder = TemporaryFolder()
        let center = try DataCenter(rootPath: folder.file("root"), databaseKeys: try Self.keys(Self.passphrase))
        let store = try center.commonStore()
        try store.queue.write { db in try db.execute("CREATE TABLE t(n INTEGER NOT NULL)") }
        let rounds = 40
        let errors = runOnThreads(3) { thread in
            if thread == 0 {
                for n in 1...rounds {
                    try store.queue.inTransaction { db in try db.execute("INSERT INTO t(n) VALUES (?)", [.integer(Int64(n))]) }
                }
            } else {
                var last: Int64 = 0
                for _ in 0..<rounds {
                    let count = try store.pool.read { db in try db.scalar("SELECT count(*) FROM t")?.int64Value ?? -1 }
                    guard count >= last else { throw ReaderWentBack() }
                    last = count
                }
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        #expect(store.pool.readerCount >= 1)
        #expect(try store.pool.read { db in try db.scalar("SELECT count(*) FROM t") } == .integer(Int64(rounds)))
        #expect(fileBytes(store.path + "-wal").range(of: Self.sqliteHeader) == nil)
    }

    @Test func datacenterJSONRecordsTheFormatAndNoSecret() throws {
        let folder = TemporaryFolder()
        let rawHex = String(repeating: "3c", count: 32)
        let cases = [(try Self.keys(Self.passphrase), "sqlcipher4"),
                     (DatabaseKeyList([try DatabaseKey.passphrase(Self.passphrase, format: .sqlcipher3)]), "sqlcipher3"),
                     (try Self.keys("x'\(rawHex)'"), "sqlcipher4")]
        for (index, (keys, format)) in cases.enumerated() {
            let root = folder.file("root-\(index)")
            let center = try DataCenter(rootPath: root, databaseKeys: keys)
            #expect(center.databaseEncryptionFormat?.rawValue == (format == "sqlcipher4" ? 4 : 3))
            let data = fileBytes(root + "/datacenter.json")
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect((json["databaseEncryption"] as? [String: Any])?["format"] as? String == format)
            #expect((json["databaseEncryption"] as? [String: Any])?.count == 1, "the format, nothing else")
            let text = String(decoding: data, as: UTF8.self)
            #expect(!text.contains(Self.passphrase) && !text.lowercased().contains(rawHex))
        }
    }

    @Test func newFilesOfAnEncryptedRootTakeTheRootsFormat() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let v3 = try DatabaseKey.passphrase(Self.passphrase, format: .sqlcipher3)
        do { try DataCenter(rootPath: root, databaseKeys: DatabaseKeyList([v3])).commonPreferences.setInteger(1, forKey: "k", business: "b") }
        // The usual list tries SQLCipher 4 first; the root's format wins for a new file.
        let center = try DataCenter(rootPath: root, databaseKeys: try Self.keys(Self.passphrase))
        #expect(center.databaseKeys.newest == v3)
        try center.preferences(forUser: "dave").setInteger(2, forKey: "k", business: "b")
        #expect(try center.store(forUser: "dave").databaseKey == v3)
        // Keys in another format only: refused, naming the root and the format.
        let error = #expect(throws: StorageError.self) {
            try DataCenter(rootPath: root, databaseKeys: DatabaseKeyList([try DatabaseKey.passphrase(Self.passphrase)]))
        }
        #expect(error == .encryptedRootFormatMismatch(root: root, format: .sqlcipher3))
    }

    @Test func anOldDatacenterJSONWithoutTheFieldLoadsAsPlain() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data(#"{"formatVersion": 1, "currentUserId": "alice", "appVersion": "2.0"}"#.utf8)
            .write(to: URL(fileURLWithPath: root + "/datacenter.json"))
        let center = try DataCenter(rootPath: root)
        #expect(center.currentUserId == "alice")
        #expect(!center.isDatabaseEncrypted)
        try center.commonPreferences.setInteger(1, forKey: "k", business: "b")
        #expect(fileBytes(center.commonStorePath).starts(with: Self.sqliteHeader))
    }

    @Test func anUnknownFormatInDatacenterJSONIsAClearError() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data(#"{"formatVersion": 1, "databaseEncryption": {"format": "sqlcipher9"}}"#.utf8)
            .write(to: URL(fileURLWithPath: root + "/datacenter.json"))
        let error = #expect(throws: StorageError.self) { try DataCenter(rootPath: root, databaseKeys: try Self.keys("k")) }
        #expect(error?.description.contains("datacenter.json") == true)
        #expect(error?.description.contains("databaseEncryption.format") == true)
    }

    /// Every file under `folder`, with its bytes.
    static func snapshot(_ folder: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for case let name as String in FileManager.default.enumerator(atPath: folder) ?? FileManager.DirectoryEnumerator() {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[name] = fileBytes(folder + "/" + name)
            }
        }
        return files
    }

    /// A plain root with stores: `commonValue` under b/k in the common store, "alice's" in
    /// the store of alice, the current user.
    static func makePlainRoot(_ root: String, commonValue: String) throws {
        let center = try DataCenter(rootPath: root)
        try center.setCurrentUserId("alice")
        try center.commonPreferences.setString(commonValue, forKey: "k", business: "b")
        try center.userPreferences?.setString("alice's", forKey: "k", business: "b")
    }

    @Test func aPlainRootWithStoresOpenedWithKeysIsRefusedAndLeftUnchanged() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        try Self.makePlainRoot(root, commonValue: "plain value")
        let before = Self.snapshot(root)
        #expect(before["common.sqlite"] != nil && before["datacenter.json"] != nil)
        for readOnly in [false, true] {
            let error = #expect(throws: StorageError.self) {
                try DataCenter(rootPath: root, readOnly: readOnly, databaseKeys: try Self.keys(Self.passphrase))
            }
            guard case .plainRootGivenKeys(let at, let files)? = error else {
                Issue.record("expected plainRootGivenKeys, got \(String(describing: error))")
                continue
            }
            #expect(at == root)
            #expect(files.contains(root + "/common.sqlite") && files.contains(root + "/users/alice/user.sqlite"))
            #expect(error?.description.contains("root \(root) is not encrypted") == true)
        }
        #expect(Self.snapshot(root) == before, "nothing in the root was written")
        #expect(try DataCenter(rootPath: root).commonPreferences.string(forKey: "k", business: "b") == "plain value")
    }

    /// A `rekey --to-db-key` of a plain root stopped after some files: every open says the
    /// root is half converted, which files are where, and the command that finishes it, with
    /// or without the key; the rerun finishes it and nothing is lost.
    @Test func aHalfConvertedRootSaysSoAndARerunFinishesIt() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        try Self.makePlainRoot(root, commonValue: "common value")
        let key = try DatabaseKey.passphrase(Self.passphrase)
        // What the conversion records before its first file, then its first file: it stopped there.
        var state = try RootState.load(from: root + "/datacenter.json")
        state.databaseEncryptionBegun = RootDatabaseEncryption(format: key.format)
        try state.save(to: root + "/datacenter.json")
        try DatabaseFileConversion.encryptInPlace(path: root + "/common.sqlite", key: key)
        for keys in [DatabaseKeyList.empty, DatabaseKeyList([key])] {
            let error = #expect(throws: StorageError.self) { try DataCenter(rootPath: root, readOnly: true, databaseKeys: keys) }
            guard case .halfConverted(let at, let encrypted, let plain)? = error else {
                Issue.record("expected halfConverted, got \(String(describing: error))")
                continue
            }
            #expect(at == root && encrypted == [root + "/common.sqlite"] && plain == [root + "/users/alice/user.sqlite"])
            let text = error?.description ?? ""
            #expect(text.contains("encrypted already: common.sqlite; still plain: users/alice/user.sqlite"), "\(text)")
            #expect(text.contains("finish it with: datacenter rekey --root \(root) --to-db-key NEW"), "\(text)")
        }
        let results = try DataCenter.rekeyDatabases(rootPath: root, from: DatabaseKeyList([key]), to: key)
        #expect(results.allSatisfy { $0.failure == nil }, "\(results)")
        let center = try DataCenter(rootPath: root, databaseKeys: DatabaseKeyList([key]))
        #expect(try center.commonPreferences.string(forKey: "k", business: "b") == "common value")
        #expect(try center.preferences(forUser: "alice").string(forKey: "k", business: "b") == "alice's")
    }

    /// In a plain root where no conversion began, a store whose first page is not SQLite's
    /// is damaged, not a sign of a half-done conversion: the root opens, that store says it
    /// is not a database, the others read; and a finished conversion leaves no record of
    /// having begun.
    @Test func aDamagedFirstPageInAPlainRootIsDamageNotAHalfConversion() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        try Self.makePlainRoot(root, commonValue: "common value")
        let common = root + "/common.sqlite"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: common))
        try handle.write(contentsOf: Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }))
        try handle.close()
        #expect(try DatabaseFileKind.of(path: common) == .encryptedOrNotADatabase)
        let center = try DataCenter(rootPath: root, readOnly: true)
        #expect(try center.preferences(forUser: "alice").string(forKey: "k", business: "b") == "alice's")
        let error = #expect(throws: DatabaseError.self) { try center.commonPreferences.string(forKey: "k", business: "b") }
        #expect(error?.isNotADatabase == true, "\(String(describing: error))")

        // A conversion run to its end records the encryption, and no longer that it began.
        let other = folder.file("other")
        try Self.makePlainRoot(other, commonValue: "v")
        let key = try DatabaseKey.passphrase(Self.passphrase)
        #expect(try DataCenter.rekeyDatabases(rootPath: other, from: .empty, to: key).allSatisfy { $0.failure == nil })
        let state = try RootState.load(from: other + "/datacenter.json")
        #expect(state.databaseEncryption != nil && state.databaseEncryptionBegun == nil)
    }

    @Test func aRootWithOnlyItsStateBecomesEncryptedAndAReadOnlyOpenWritesNothing() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        do { try DataCenter(rootPath: root).setCurrentUserId("alice") }
        let before = fileBytes(root + "/datacenter.json")
        let keys = try Self.keys(Self.passphrase)
        let readOnly = try DataCenter(rootPath: root, readOnly: true, databaseKeys: keys)
        #expect(readOnly.currentUserId == "alice")
        #expect(fileBytes(root + "/datacenter.json") == before, "a read-only open never writes datacenter.json")
        let center = try DataCenter(rootPath: root, databaseKeys: keys)
        #expect(center.isDatabaseEncrypted)
        #expect(fileBytes(root + "/datacenter.json") != before)
        #expect(try RootState.load(from: root + "/datacenter.json").databaseEncryption?.format == .sqlcipher4)
        try center.userPreferences?.setInteger(1, forKey: "k", business: "b")
        #expect(try DatabaseFileKind.of(path: center.storePath(forUser: "alice")) == .encryptedOrNotADatabase)
        // An encrypted root read-only, with its key: its values, and its state untouched.
        let written = fileBytes(root + "/datacenter.json")
        let reader = try DataCenter(rootPath: root, appVersion: "9", readOnly: true, databaseKeys: keys)
        #expect(try reader.userPreferences?.integer(forKey: "k", business: "b") == 1)
        #expect(fileBytes(root + "/datacenter.json") == written)
    }

    @Test func resetKeepsTheRootEncrypted() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let keys = try Self.keys(Self.passphrase)
        do {
            let center = try DataCenter(rootPath: root, databaseKeys: keys)
            try center.commonPreferences.setInteger(1, forKey: "k", business: "b")
            try center.reset()
            #expect(center.isDatabaseEncrypted)
            try center.commonPreferences.setInteger(2, forKey: "k", business: "b")
        }
        let center = try DataCenter(rootPath: root, databaseKeys: keys)
        #expect(try center.commonPreferences.integer(forKey: "k", business: "b") == 2)
        #expect(throws: StorageError.self) { try DataCenter(rootPath: root) }
    }
}
