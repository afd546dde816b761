import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation
import Testing

/// `datacenter demo --encrypt-db`: the demo root with every SQLite file encrypted with the
/// published demo database passphrase.
@Suite struct EncryptedDemoCommandTests {
    @Test func theEncryptedDemoOpensWithTheDemoPassphraseOnly() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("demo")
        let demo = try CLI.run(["demo", root, "--encrypt-db"])
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.stdout.contains("--db-key \(DemoStore.databasePassphrase)"))
        #expect(demo.stdout.hasSuffix("--key \(DemoStore.keyHex)\n"), "the value key stays the last word printed")

        let keys = try DatabaseKeyList(sqlcipherKeys: [DemoStore.databasePassphrase])
        let center = try DataCenter(rootPath: root, crypt: KeyRing([DemoStore.key]), readOnly: true, databaseKeys: keys)
        #expect(center.databaseEncryptionFormat == .sqlcipher4)
        #expect(center.users() == ["alice", "bob@example.com"])
        #expect(try center.commonPreferences.string(forKey: "theme", business: "settings") == "dark")
        #expect(try center.preferences(forUser: "alice").string(forKey: "phone", business: "profile") == "+1 555 0100")
        #expect(try center.currentVersionStorage.commonPreferences.bool(forKey: "onboardingShown") == true)
        let messages = try center.store(forUser: "alice").queue.read { db in try db.scalar("SELECT count(*) FROM messages") }
        #expect(messages == .integer(5))

        let files = center.databaseFilePaths()
        #expect(files.count >= 4, "\(files)")
        for path in files {
            let bytes = FileManager.default.contents(atPath: path) ?? Data()
            #expect(!bytes.isEmpty && !bytes.starts(with: Data("SQLite format 3".utf8)), "\(path) is plain")
            for marker in ["Welcome", "See you at 10", "Stand-up moved", "What's new"] {
                #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(path) shows \(marker)")
            }
        }

        let error = #expect(throws: StorageError.self) { try DataCenter(rootPath: root, readOnly: true) }
        #expect(error == .encryptedRootNeedsKey(root: root, format: .sqlcipher4))
        let wrong = try DataCenter(rootPath: root, readOnly: true, databaseKeys: try DatabaseKeyList(sqlcipherKeys: ["not it"]))
        #expect(throws: DatabaseError.self) { try wrong.commonPreferences }
        let overview = try CLI.run(["overview", "--root", root])
        #expect(overview.status != 0)
        #expect(overview.stderr.contains("it needs its database key"), "\(overview.stderr)")
    }
}
