import Foundation
import Testing
@testable import DatacenterKit

/// `DataCenter`: common and user stores, the current user, events, accessors, custom and
/// version storages, reset, read-only roots.
@Suite struct DataCenterTests {
    private func makeCenter(_ folder: TemporaryFolder, appVersion: String? = nil,
                            crypt: any DataCrypt = KeyRing.empty) throws -> DataCenter {
        try DataCenter(rootPath: folder.file("root"), crypt: crypt, appVersion: appVersion)
    }

    @Test func commonPreferencesLiveInTheCommonStore() throws {
        let folder = TemporaryFolder()
        let center = try makeCenter(folder)
        try center.commonPreferences.setString("v", forKey: "k", business: "b")
        #expect(center.commonStorePath == folder.file("root") + "/common.sqlite")
        #expect(try Store(path: center.commonStorePath).kv.string(forKey: "k", business: "b") == "v")
        #expect(try center.commonPreferences === center.commonPreferences, "the store is opened once and shared")
    }

    @Test func userPreferencesAreNilWithoutAUser() throws {
        let folder = TemporaryFolder()
        let center = try makeCenter(folder)
        #expect(center.currentUserId == nil)
        #expect(try center.userPreferences == nil)
        #expect(center.users() == [])
    }

    @Test func userPreferencesFollowTheCurrentUser() throws {
        let folder = TemporaryFolder()
        let center = try makeCenter(folder)
        try center.setCurrentUserId("alice")
        try #require(try center.userPreferences).setString("alice's", forKey: "k", business: "b")
        try center.setCurrentUserId("bob")
        #expect(try center.userPreferences?.string(forKey: "k", business: "b") == nil)
        try #require(try center.userPreferences).setString("bob's", forKey: "k", business: "b")
        try center.setCurrentUserId("alice")
        #expect(try center.userPreferences?.string(forKey: "k", business: "b") == "alice's")
        #expect(try center.preferences(forUser: "bob").string(forKey: "k", business: "b") == "bob's")
        #expect(try center.commonPreferences.string(forKey: "k", business: "b") == nil)
        #expect(try center.storePath(forUser: "bob") == folder.file("root") + "/users/bob/user.sqlite")
        try center.setCurrentUserId(nil)
        #expect(try center.userPreferences == nil)
    }

    @Test func theCurrentUserPersistsAcrossDataCenters() throws {
        let folder = TemporaryFolder()
        do {
            let center = try makeCenter(folder)
            try center.setCurrentUserId("carol@example.com")
        }
        let again = try makeCenter(folder)
        #expect(again.currentUserId == "carol@example.com")
        try again.setCurrentUserId(nil)
        #expect(try makeCenter(folder).currentUserId == nil)
    }

    @Test func usersListsOnlyUsersWithStores() throws {
        let folder = TemporaryFolder()
        let center = try makeCenter(folder)
        try center.setCurrentUserId("zed")   // signed in, but no store opened yet
        #expect(center.users() == [])
        _ = try center.preferences(forUser: "bob")
        _ = try center.preferences(forUser: "alice/../x")
        _ = try center.userPreferences
        #expect(center.users() == ["alice/../x", "bob", "zed"])
        // A stray folder without a store, or with a name encode does not make, is not a user.
        try FileManager.default.createDirectory(atPath: folder.file("root/users/empty"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.file("root/users/%2e"), withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: folder.file("root/users/%2e/user.sqlite"), contents: Data()))
        #expect(center.users() == ["alice/../x", "bob", "zed"])
    }

    @Test func eventsArriveInOrder() throws {
        let folder = TemporaryFolder()
        let center = try makeCenter(folder)
        let events = Locked<[DataCenter.Event]>([])
        let token = center.addObserver { event in events.withLock { $0.append(event) } }
        try center.setCurrentUserId("alice")
        try center.setCurrentUserId("bob")
        try center.setCurrentUserId("bob")
        try center.setCurrentUserId(nil)
        #expect(events.current == [
            .didUpdateUser("alice", switched: true),
            .willResignLastUser("alice"), .didUpdateUser("bob", switched: true),
            .didRenewUser("bob"),
            .willResignLastUser("bob"), .didUpdateUser(nil, switched: true),
        ])
        center.removeObserver(token)
        try center.setCurrentUserId("carol")
        #expect(events.current.count == 6)
    }

    @Test func signingNoOneOutWhenNoOneIsSignedInIsNoSwitch() throws {
        let folder = TemporaryFolder()
        let center = try makeCenter(folder)
        let events = Locked<[DataCenter.Event]>([])
        center.addObserver { event in events.withLock { $0.append(event) } }
        try center.setCurrentUserId(nil)
        #expect(events.current == [.didUpdateUser(nil, switched: false)])
    }

    /// Switches from many threads are announced one whole switch at a time: each
    /// will-resign names the user the last did-update signed in, and each did-update's
    /// `switched` says whether the user changed.
    @Test func concurrentSwitchesAreAnnouncedInOrder() throws {
        let folder = TemporaryFolder()
        let center = try makeCenter(folder)
        let events = Locked<[DataCenter.Event]>([])
        center.addObserver { event in events.withLock { $0.append(event) } }
        let users: [String?] = ["alice", "bob", nil, "carol"]
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<100 { try? center.setCurrentUserId(users[(thread + round) % users.count]) }
        }
        var current: String?
        var resigned = false
        for event in events.current {
            switch event {
            case .willResignLastUser(let old):
                #expect(old == current && !resigned, "will resign \(old) while \(current ?? "nobody") is signed in")
                resigned = true
            case let .didUpdateUser(new, switched):
                #expect(switched == (new != current), "did update \(new ?? "nil") switched: \(switched) after \(current ?? "nil")")
                #expect(resigned == (current != nil && switched), "a switch from \(current ?? "nil") not announced first")
                current = new
                resigned = false
            case .didRenewUser(let id):
                #expect(id == current)
            case .didReset:
                Issue.record("no reset was asked for")
            }
        }
        #expect(center.currentUserId == current)
    }

    @Test func observersSeeTheOldUserBeforeAndTheNewUserAfter() throws {
        let folder = TemporaryFolder()
        let center = try makeCenter(folder)
        try center.setCurrentUserId("alice")
        let seen = Locked<[String]>([])
        center.addObserver { [weak center] event in
            let current = center?.currentUserId ?? "-"
            switch event {
            case .willResignLastUser(let old): seen.withLock { $0.append("will resign \(old), current \(current)") }
            case .didUpdateUser(let new, _): seen.withLock { $0.append("did update \(new ?? "-"), current \(current)") }
            case .didRenewUser(let id): seen.withLock { $0.append("renew \(id)") }
            case .didReset: seen.withLock { $0.append("reset") }
            }
        }
        try center.setCurrentUserId("bob")
        #expect(seen.current == ["will resign alice, current alice", "did update bob, current bob"])
    }

    @Test func anInvalidUserIdIsRefusedAndChangesNothing() throws {
        let folder = TemporaryFolder()
        let center = try makeCenter(folder)
        try center.setCurrentUserId("alice")
        let events = Locked<[DataCenter.Event]>([])
        center.addObserver { event in events.withLock { $0.append(event) } }
        #expect(throws: StorageError.self) { try center.setCurrentUserId("") }
        #expect(throws: StorageError.self) { try center.setCurrentUserId(String(repeating: "x", count: 1000)) }
        #expect(center.currentUserId == "alice")
        #expect(events.current.isEmpty)
    }

    @Test func accessorFollowsUserSwitches() throws {
        let folder = TemporaryFolder()
        let center = try makeCenter(folder)
        let accessor = center.accessor(forBusiness: "settings")
        #expect(try accessor.userPreferences == nil)
        try accessor.commonPreferences.setString("shared", forKey: "k")
        try center.setCurrentUserId("alice")
        try #require(try accessor.userPreferences).setString("a", forKey: "k")
        try center.setCurrentUserId("bob")
        #expect(try accessor.userPreferences?.string(forKey: "k") == nil)
        try center.setCurrentUserId("alice")
        #expect(try accessor.userPreferences?.string(forKey: "k") == "a")
        #expect(try accessor.commonPreferences.string(forKey: "k") == "shared")
        #expect(try center.commonPreferences.string(forKey: "k", business: "settings") == "shared")
        #expect(try center.preferences(forUser: "alice").string(forKey: "k", business: "settings") == "a")
    }

    @Test func customStorageNeedsNoBusinessAndFollowsTheUser() throws {
        let folder = TemporaryFolder()
        let center = try makeCenter(folder)
        let customPath = folder.file("custom")
        let custom = center.customStorage(atPath: customPath)
        #expect(custom.path == customPath)
        #expect(try custom.userPreferences == nil)
        #expect(try custom.userStore() == nil)
        try custom.commonPreferences.setString("common", forKey: "k")
        #expect(try custom.commonStore().kv.string(forKey: "k", business: BusinessPreferences.customStorageBusiness) == "common")
        #expect(FileManager.default.fileExists(atPath: customPath + "/common.sqlite"))

        try center.setCurrentUserId("alice")
        try #require(try custom.userPreferences).setString("alice", forKey: "k")
        try center.setCurrentUserId("bob")
        #expect(try custom.userPreferences?.string(forKey: "k") == nil)
        try center.setCurrentUserId("alice")
        #expect(try custom.userPreferences?.string(forKey: "k") == "alice")
        #expect(custom.users() == ["alice", "bob"])
        #expect(center.users() == [], "the custom storage's users are not the data center's")
        // Nothing leaked into the data center's own stores.
        #expect(try center.commonPreferences.allBusinesses() == [])
        #expect(try center.userPreferences?.allBusinesses() == [])
    }

    @Test func versionStorageIsKeptForTheSameVersionAndEmptiedForAnother() throws {
        let folder = TemporaryFolder()
        do {
            let center = try makeCenter(folder, appVersion: "1.0")
            try center.currentVersionStorage.commonPreferences.setString("v1 data", forKey: "k")
            try center.commonPreferences.setString("kept", forKey: "k", business: "b")
        }
        do {
            let same = try makeCenter(folder, appVersion: "1.0")
            #expect(try same.currentVersionStorage.commonPreferences.string(forKey: "k") == "v1 data")
        }
        do {
            let unspecified = try makeCenter(folder)
            #expect(try unspecified.currentVersionStorage.commonPreferences.string(forKey: "k") == "v1 data")
        }
        let upgraded = try makeCenter(folder, appVersion: "2.0")
        #expect(try upgraded.currentVersionStorage.commonPreferences.string(forKey: "k") == nil)
        #expect(try upgraded.commonPreferences.string(forKey: "k", business: "b") == "kept")
        #expect(upgraded.currentVersionStorage === upgraded.currentVersionStorage)
    }

    @Test func resetRemovesStoresAndTheCurrentUser() throws {
        let folder = TemporaryFolder()
        let center = try makeCenter(folder, appVersion: "3")
        try center.setCurrentUserId("alice")
        try center.userPreferences?.setString("x", forKey: "k", business: "b")
        try center.commonPreferences.setString("y", forKey: "k", business: "b")
        try center.currentVersionStorage.commonPreferences.setString("z", forKey: "k")
        try center.reset()
        #expect(center.currentUserId == nil)
        #expect(center.users() == [])
        #expect(!FileManager.default.fileExists(atPath: center.commonStorePath))
        #expect(try center.commonPreferences.string(forKey: "k", business: "b") == nil)
        #expect(try center.currentVersionStorage.commonPreferences.string(forKey: "k") == nil)
        #expect(try makeCenter(folder, appVersion: "3").currentUserId == nil)
        try center.setCurrentUserId("alice")
        #expect(try center.userPreferences?.string(forKey: "k", business: "b") == nil)
    }

    /// A reset leaves no cache kept outside the stores, and no purgeable registry: nothing
    /// of them reads afterwards.
    @Test func resetRemovesCachesOutsideTheStoresAndThePurgeableRegistry() throws {
        let folder = TemporaryFolder()
        let center = try makeCenter(folder)
        try center.setCurrentUserId("alice")
        var paths: [String] = []
        for name in ["LIB_CACHES.images", "TMP.scratch"] {
            let cache = try LRUDiskCache(name: name, capacity: 10, dataCenter: center)
            try cache.set("kept", forKey: "k")
            try cache.flush()
            let perUser = try LRUDiskCache(name: name + "PerUser", capacity: 10, userDependent: true, dataCenter: center)
            try perUser.set("mine", forKey: "k")
            try perUser.flush()
        }
        paths = try center.cacheStorePaths(forUser: nil) + center.cacheStorePaths(forUser: "alice")
        #expect(paths.count == 4)    // a caches file of each location, common and alice's
        _ = try PurgeablePaths(root: center.rootPath).register("Caches/images", type: .oneWeek)
        #expect(FileManager.default.fileExists(atPath: center.rootPath + "/purgeable.json"))

        try center.reset()
        for path in paths { #expect(!FileManager.default.fileExists(atPath: path), "\(path) survived the reset") }
        #expect(!FileManager.default.fileExists(atPath: center.rootPath + "/purgeable.json"))
        #expect(try PurgeablePaths(root: center.rootPath).folders().isEmpty)
        for name in ["LIB_CACHES.images", "TMP.scratch"] {
            #expect(try LRUDiskCache(name: name, capacity: 10, dataCenter: center).data(forKey: "k") == nil)
        }
    }

    @Test func aReadOnlyDataCenterOnAMissingRootFails() throws {
        let folder = TemporaryFolder()
        let root = folder.file("nothing-here")
        #expect(throws: StorageError.missingRoot(root)) { try DataCenter(rootPath: root, readOnly: true) }
        #expect(!FileManager.default.fileExists(atPath: root))
    }

    /// mPaaS always has a default value key: given the app key, `.default` values and
    /// crypt columns work with no key of the app's own, the key derived as the CLI's
    /// `--app-key` derives it; another app key does not open them.
    @Test func anAppKeyGivesTheDefaultValueKey() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        do {
            let plain = try DataCenter(rootPath: root)
            #expect(throws: KVError.self) { try plain.commonPreferences.setString("x", forKey: "k", business: "b", encryption: .default) }
        }
        do {
            let center = try DataCenter(rootPath: root, appKey: "com.example.app-key")
            try center.commonPreferences.setString("secret", forKey: "k", business: "b", encryption: .default)
        }
        let stored = try Database(path: root + "/common.sqlite", mode: .readOnly)
            .scalar("SELECT value FROM datacenter_kv WHERE key = 'k'")
        #expect(stored.map { "\($0)" }?.contains("secret") != true, "stored encrypted")
        #expect(try DataCenter(rootPath: root, appKey: "com.example.app-key").commonPreferences.string(forKey: "k", business: "b") == "secret")
        #expect(try DataCenter(rootPath: root, crypt: KeyRing([EncryptionKey.derived(fromAppKey: "com.example.app-key")]))
            .commonPreferences.string(forKey: "k", business: "b") == "secret", "the same derivation as --app-key")
        #expect(throws: KVError.self) { try DataCenter(rootPath: root, appKey: "another").commonPreferences.string(forKey: "k", business: "b") }
        // The app's own keys come first: new values are written with them, old ones still read.
        let own = EncryptionKey.random()
        let both = try DataCenter(rootPath: root, crypt: KeyRing([own]), appKey: "com.example.app-key")
        #expect(try both.commonPreferences.string(forKey: "k", business: "b") == "secret")
        try both.commonPreferences.setString("newer", forKey: "k2", business: "b", encryption: .default)
        #expect(try DataCenter(rootPath: root, crypt: KeyRing([own])).commonPreferences.string(forKey: "k2", business: "b") == "newer")
    }

    @Test func aReadOnlyDataCenterReadsButDoesNotWrite() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let ring = KeyRing([.random()])
        do {
            let center = try DataCenter(rootPath: root, crypt: ring)
            try center.setCurrentUserId("alice")
            try center.userPreferences?.setString("secret", forKey: "k", business: "b", encryption: .default)
        }
        let stateBefore = fileBytes(root + "/datacenter.json")
        let ro = try DataCenter(rootPath: root, crypt: ring, appVersion: "9", readOnly: true)
        #expect(ro.isReadOnly)
        #expect(ro.currentUserId == "alice")
        #expect(try ro.userPreferences?.string(forKey: "k", business: "b") == "secret")
        #expect(throws: KVError.self) { try ro.userPreferences?.setString("x", forKey: "k", business: "b") }
        #expect(throws: KVError.self) { try ro.reset() }
        try ro.setCurrentUserId("bob")   // in memory only
        #expect(fileBytes(root + "/datacenter.json") == stateBefore)
        #expect(try DataCenter(rootPath: root).currentUserId == "alice")
    }

    @Test func aBadStateFileIsReported() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try "{ not json".write(toFile: root + "/datacenter.json", atomically: true, encoding: .utf8)
        let error = #expect(throws: StorageError.self) { try DataCenter(rootPath: root) }
        if case .badRootState(let path, _)? = error { #expect(path == root + "/datacenter.json") } else {
            Issue.record("got \(String(describing: error))")
        }
    }

    @Test func storesUseTheCentersCrypt() throws {
        let folder = TemporaryFolder()
        let ring = KeyRing([.random()])
        let center = try makeCenter(folder, crypt: ring)
        try center.commonPreferences.setString("enc", forKey: "k", business: "b", encryption: .default)
        let blob = try #require(try center.commonStore().queue.read {
            try $0.scalar("SELECT value FROM datacenter_kv WHERE key = 'k'")
        }?.dataValue)
        #expect(try ring.decrypt(blob, boundTo: .kvValue(business: "b", key: "k", encoding: .string)) == Data("enc".utf8))
    }
}

/// A root or store written in a newer format is read, never written.
@Suite struct NewerFormatTests {
    @Test func aRootOfANewerFormatOpensReadOnlyOnly() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        do { try DataCenter(rootPath: root).commonPreferences.setString("v", forKey: "k", business: "b") }
        let state = root + "/datacenter.json"
        try Data(#"{"formatVersion": 999}"#.utf8).write(to: URL(fileURLWithPath: state))
        let error = #expect(throws: StorageError.self) { try DataCenter(rootPath: root) }
        #expect(error == .newerFormat(path: state, version: 999, supported: Store.formatVersion))
        #expect("\(error!)".contains("format version 999, newer than this datacenter's (1): it can be read, not written"))
        #expect(try DataCenter(rootPath: root, readOnly: true).commonPreferences.string(forKey: "k", business: "b") == "v")
    }

    @Test func aStoreOfANewerFormatOpensReadOnlyOnly() throws {
        let folder = TemporaryFolder()
        let path = folder.file("s.sqlite")
        do { try Store(path: path).kv.setString("v", forKey: "k", business: "b") }
        try Database(path: path).execute("UPDATE datacenter_meta SET value = 999 WHERE name = 'format_version'")
        #expect(throws: StorageError.newerFormat(path: path, version: 999, supported: Store.formatVersion)) { try Store(path: path) }
        #expect(throws: StorageError.self) { try Store(existingAt: path) }
        #expect(try Store(path: path, readOnly: true).kv.string(forKey: "k", business: "b") == "v")
    }
}
