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

    /// In a root that records database encryption, a store no key given opens is a key
    /// missing or wrong, never damage: overview and clean stop (exit 1) naming the file and
    /// the wrong key, and the browser, which tries the demo's published passphrase on a demo
    /// root, says so once when it has no terminal to ask on.
    @Test func aWrongDatabaseKeyIsAKeyErrorNeverDamage() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("demo")
        #expect(try CLI.run(["demo", root, "--encrypt-db"]).status == 0)
        let overview = try CLI.run(["overview", "--root", root, "--db-key", "wrong"])
        #expect(overview.status == 1, "\(overview.stdout)\(overview.stderr)")
        #expect(overview.stderr.contains("common.sqlite: wrong key"), "\(overview.stderr)")
        #expect(!(overview.stdout + overview.stderr).contains("damaged"), "\(overview.stdout)\(overview.stderr)")
        let clean = try CLI.run(["clean", "--root", root, "--db-key", "wrong", "--dry-run"])
        #expect(clean.status == 1 && clean.stderr.contains("wrong key"), "\(clean.stdout)\(clean.stderr)")
        #expect(!(clean.stdout + clean.stderr).contains("damaged"), "\(clean.stdout)\(clean.stderr)")
        // The README tour's rekey, on a demo root: its published passphrase no longer opens it.
        let rekey = try CLI.run(["rekey", "--root", root, "--db-key", "datacenter-demo-db", "--to-db-key", "another"])
        #expect(rekey.status == 0, "\(rekey.stderr)")
        let browse = try CLI.run(["browse", "--root", root])
        #expect(browse.status == 1)
        #expect(browse.stderr.components(separatedBy: "error:").count == 2 && browse.stderr.contains("wrong key"), "\(browse.stderr)")
        #expect(try CLI.run(["overview", "--root", root, "--db-key", "another"]).status == 0)
    }
}
