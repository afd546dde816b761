import DatacenterTestSupport
import Foundation
import Testing
@testable import DatacenterKit

/// `DataCenter.removeUser`: everything of one user goes — its store, its stores in the
/// version and named storages, its disk caches in both locations — and nothing of anyone
/// else; the current user is signed out first.
@Suite struct RemoveUserTests {
    /// A root where alice and bob each have a store, a version store, a named storage's
    /// store and a per-user cache in both cache locations; alice is current at the end.
    private func populatedRoot(_ folder: TemporaryFolder) throws -> DataCenter {
        let center = try DataCenter(rootPath: folder.file("root"), crypt: KeyRing.empty)
        for user in ["bob", "alice"] {
            try center.setCurrentUserId(user)
            try center.userPreferences?.setString(user, forKey: "k", business: "b")
            try center.currentVersionStorage.userPreferences?.setString(user, forKey: "k")
            try center.customStorage(named: "Contact").userPreferences?.setString(user, forKey: "k")
            for name in ["LIB_CACHES.images", "TMP.scratch"] {
                let cache = try LRUDiskCache(name: name, capacity: 10, userDependent: true, dataCenter: center)
                try cache.set(user, forKey: "k")
                try cache.flush()
            }
        }
        return center
    }

    /// Every file of `user` the populated root holds.
    private func files(of user: String, in center: DataCenter) throws -> Set<String> {
        // The cache files: the user's store, its `LIB_CACHES.` file and its `TMP.` file.
        try Set([center.rootPath + "/version/users/\(user)/user.sqlite",
                 center.rootPath + "/storages/Contact/users/\(user)/user.sqlite"] + center.cacheStorePaths(forUser: user))
    }

    @Test func removesEveryFileOfTheUserAndNothingElse() throws {
        let folder = TemporaryFolder()
        let center = try populatedRoot(folder)
        let bobs = try files(of: "bob", in: center), alices = try files(of: "alice", in: center)
        #expect(bobs.count == 5 && alices.count == 5)
        for path in bobs.union(alices) { #expect(FileManager.default.fileExists(atPath: path), "\(path) was not made") }

        try center.removeUser("bob")
        for path in bobs { #expect(!FileManager.default.fileExists(atPath: path), "\(path) survived") }
        for path in alices { #expect(FileManager.default.fileExists(atPath: path), "\(path) of alice went too") }
        #expect(center.users() == ["alice"])
        #expect(center.currentUserId == "alice")
        #expect(try center.userPreferences?.string(forKey: "k", business: "b") == "alice")
        // Switching back gives bob a new, empty store (not the removed one still open).
        try center.setCurrentUserId("bob")
        #expect(try center.userPreferences?.string(forKey: "k", business: "b") == nil)
        #expect(try center.currentVersionStorage.userPreferences?.string(forKey: "k") == nil)
        #expect(try center.customStorage(named: "Contact").userPreferences?.string(forKey: "k") == nil)
        #expect(try LRUDiskCache(name: "TMP.scratch", capacity: 10, userDependent: true, dataCenter: center).value(String.self, forKey: "k") == nil)
    }

    @Test func removingTheCurrentUserSignsItOutFirst() throws {
        let folder = TemporaryFolder()
        let center = try populatedRoot(folder)
        let heard = LockedState<[String]>([])
        let token = center.addObserver { event in
            if case .willResignLastUser(let user) = event { heard.withLock { $0.append("resign " + user) } }
            if case .didUpdateUser(nil, switched: true) = event { heard.withLock { $0.append("signed out") } }
        }
        try center.removeUser("alice")
        withExtendedLifetime(token) {}
        #expect(heard.withLock { $0 } == ["resign alice", "signed out"])
        #expect(center.currentUserId == nil)
        #expect(try DataCenter.recordedCurrentUserId(rootPath: center.rootPath) == nil)
        #expect(center.users() == ["bob"])
    }

    @Test func aReadOnlyRootRefuses() throws {
        let folder = TemporaryFolder()
        let center = try populatedRoot(folder)
        let readOnly = try DataCenter(rootPath: center.rootPath, crypt: KeyRing.empty, readOnly: true)
        #expect(throws: KVError.self) { try readOnly.removeUser("bob") }
        #expect(center.users() == ["alice", "bob"])
    }
}
