import Foundation
import Testing
@testable import DatacenterKit

/// Named custom storages (`DataCenter.customStorage(named:)`, the reference's
/// `storageInDocumentsWithName:`): where they live, their names, and that encryption and
/// reset cover them.
@Suite struct NamedStorageTests {
    @Test func aNamedStorageLivesUnderTheRootAndFollowsTheUser() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let center = try DataCenter(rootPath: root)
        let contact = try center.customStorage(named: "Contact")
        #expect(contact.path == root + "/storages/Contact")
        #expect(try center.customStorage(named: "Contact") === contact, "one storage per name")
        #expect(try center.customStorage(named: "Other") !== contact)
        try contact.commonPreferences.setString("common", forKey: "k")
        #expect(try contact.userPreferences == nil)
        try center.setCurrentUserId("alice")
        try #require(try contact.userPreferences).setString("alice's", forKey: "k")
        try center.setCurrentUserId("bob")
        #expect(try contact.userPreferences?.string(forKey: "k") == nil)

        // Another data center on the root finds the same storage by its name.
        let again = try DataCenter(rootPath: root)
        let reopened = try again.customStorage(named: "Contact")
        #expect(try reopened.commonPreferences.string(forKey: "k") == "common")
        #expect(reopened.users() == ["alice", "bob"])
        #expect(try center.commonPreferences.string(forKey: "k", business: BusinessPreferences.customStorageBusiness) == nil,
                "a named storage is not the root's common store")
    }

    @Test(arguments: ["", ".", "..", ".hidden", "a/b", "../escape", "with space", "tab\t", "ünïcode",
                      String(repeating: "n", count: StorageName.maximumLength + 1)])
    func aBadNameIsRefusedAndCreatesNothing(name: String) throws {
        let folder = TemporaryFolder()
        let center = try DataCenter(rootPath: folder.file("root"))
        #expect(throws: StorageNameError.self) { try center.customStorage(named: name) }
        #expect(!FileManager.default.fileExists(atPath: folder.file("root/storages")))
        #expect(!FileManager.default.fileExists(atPath: folder.file("escape")))
    }

    @Test func goodNamesAreAccepted() throws {
        for name in ["Contact", "a", "v1.2", "my-storage_2", String(repeating: "n", count: StorageName.maximumLength)] {
            #expect(try StorageName.validate(name) == name)
        }
    }

    /// The named storages on disk are among the root's database files even when this run
    /// has not asked for them, so encrypting the root covers them.
    @Test func databaseFilePathsListNamedStoragesOnDisk() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        do {
            let center = try DataCenter(rootPath: root)
            try center.setCurrentUserId("alice")
            let contact = try center.customStorage(named: "Contact")
            try contact.commonPreferences.setString("v", forKey: "k")
            try #require(try contact.userPreferences).setString("v", forKey: "k")
        }
        let fresh = try DataCenter(rootPath: root)
        let paths = fresh.databaseFilePaths()
        #expect(paths.contains(root + "/storages/Contact/common.sqlite"))
        #expect(paths.contains(root + "/storages/Contact/users/alice/user.sqlite"))
        #expect(Set(paths).count == paths.count)
    }

    /// A plain root whose only SQLite files are a named storage's is still a plain root: it
    /// is not silently half-encrypted by an open with keys.
    @Test func aPlainNamedStorageKeepsTheRootPlain() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        do {
            try DataCenter(rootPath: root).customStorage(named: "Contact").commonPreferences.setString("v", forKey: "k")
        }
        #expect(throws: StorageError.self) {
            try DataCenter(rootPath: root, databaseKeys: try DatabaseKeyList(sqlcipherKeys: ["pass"]))
        }
    }

    @Test func anEncryptedRootEncryptsItsNamedStorages() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let keys = try DatabaseKeyList(sqlcipherKeys: ["pass"])
        let center = try DataCenter(rootPath: root, databaseKeys: keys)
        try center.customStorage(named: "Contact").commonPreferences.setString("MARKER-named", forKey: "k")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: root + "/storages/Contact/common.sqlite"))
        #expect(!bytes.starts(with: Data("SQLite format 3\0".utf8)))
        #expect(try DataCenter(rootPath: root, databaseKeys: keys).customStorage(named: "Contact")
            .commonPreferences.string(forKey: "k") == "MARKER-named")
    }

    @Test func resetDeletesNamedStorages() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let center = try DataCenter(rootPath: root)
        let before = try center.customStorage(named: "Contact")
        try before.commonPreferences.setString("v", forKey: "k")
        try center.reset()
        #expect(!FileManager.default.fileExists(atPath: root + "/storages"))
        #expect(!center.databaseFilePaths().contains { $0.hasPrefix(root + "/storages/") })
        let after = try center.customStorage(named: "Contact")
        #expect(after !== before, "a storage handed out before a reset is not handed out after it")
        #expect(try after.commonPreferences.string(forKey: "k") == nil)
    }
}
