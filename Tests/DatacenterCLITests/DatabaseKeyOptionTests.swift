import Foundation
import Testing
@testable import DatacenterKit

/// `--db-key` on the commands that open databases: an encrypted root or file opens with it,
/// is refused clearly without it, and stays encrypted when written.
@Suite struct DatabaseKeyOptionTests {
    static let demoKey = "64336d305a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
    static let passphrase = "datacenter-demo-db"

    static func encryptedDemo(_ scratch: TemporaryFolder) throws -> String {
        let root = scratch.file("demo")
        let built = try CLI.run(["demo", root, "--encrypt-db"])
        #expect(built.status == 0, "\(built.stderr)")
        return root
    }

    @Test func rootCommandsReadAnEncryptedRootWithTheKeyOnly() throws {
        let scratch = TemporaryFolder()
        let root = try Self.encryptedDemo(scratch)
        let keys = ["--root", root, "--db-key", Self.passphrase, "--key", Self.demoKey]
        let commands: [[String]] = [["overview"], ["users", "list"], ["kv", "get", "session", "apiToken"],
                                    ["cache", "get", "tokens", "last-login"], ["kv", "list"]]
        for command in commands {
            let withKey = try CLI.run(command + keys)
            #expect(withKey.status == 0, "\(command): \(withKey.stderr)")
            let without = try CLI.run(command + ["--root", root, "--key", Self.demoKey])
            #expect(without.status == 1, "\(command) opened an encrypted root without its key")
            #expect(without.stderr.contains("is encrypted") && without.stderr.contains("--db-key"), "\(command): \(without.stderr)")
        }
        let value = try CLI.run(["kv", "get", "session", "apiToken"] + keys)
        #expect(value.stdout == "sk_live_51Hdemo-secret-token\n")
        // The passphrase from the environment, and from a file.
        let fromEnv = try CLI.run(["users", "list", "--root", root], environment: ["DATACENTER_DB_KEY": Self.passphrase])
        #expect(fromEnv.status == 0, "\(fromEnv.stderr)")
        let file = scratch.file("db.key")
        try (Self.passphrase + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try CLI.run(["users", "list", "--root", root, "--db-key", "@" + file])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
    }

    @Test func writesToAnEncryptedRootStayEncrypted() throws {
        let scratch = TemporaryFolder()
        let root = try Self.encryptedDemo(scratch)
        let set = try CLI.run(["kv", "set", "notes", "plain-marker", "visible-text-42", "--root", root, "--db-key", Self.passphrase])
        #expect(set.status == 0, "\(set.stderr)")
        let switched = try CLI.run(["users", "switch", "--create", "carol", "--root", root, "--db-key", Self.passphrase])
        #expect(switched.status == 0, "\(switched.stderr)")
        let carol = try CLI.run(["kv", "set", "p", "k", "carol-text-42", "--create", "--user", "carol", "--root", root, "--db-key", Self.passphrase])
        #expect(carol.status == 0, "\(carol.stderr)")
        for file in [root + "/common.sqlite", root + "/users/carol/user.sqlite"] where FileManager.default.fileExists(atPath: file) {
            #expect(try DatabaseFileKind.of(path: file) == .encryptedOrNotADatabase, "\(file) is plain")
        }
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let name = enumerator?.nextObject() as? String {
            guard let data = FileManager.default.contents(atPath: root + "/" + name) else { continue }
            #expect(data.range(of: Data("visible-text-42".utf8)) == nil, "\(name) holds the value in plaintext")
            #expect(data.range(of: Data("carol-text-42".utf8)) == nil, "\(name) holds the value in plaintext")
        }
        let read = try CLI.run(["kv", "get", "p", "k", "--user", "carol", "--root", root, "--db-key", Self.passphrase])
        #expect(read.stdout == "carol-text-42\n", "\(read.stderr)")
    }

    @Test func aValueKeyRekeyOfAnEncryptedRootOpensItsStoresWithTheDatabaseKey() throws {
        let scratch = TemporaryFolder()
        let root = try Self.encryptedDemo(scratch)
        let newKey = String(repeating: "7", count: 64)
        let without = try CLI.run(["rekey", "--root", root, "--from", Self.demoKey, "--to", newKey])
        #expect(without.status == 1)
        let rekeyed = try CLI.run(["rekey", "--root", root, "--from", Self.demoKey, "--to", newKey, "--db-key", Self.passphrase])
        #expect(rekeyed.status == 0, "\(rekeyed.stderr)")
        let value = try CLI.run(["kv", "get", "session", "apiToken", "--root", root, "--key", newKey, "--db-key", Self.passphrase])
        #expect(value.stdout == "sk_live_51Hdemo-secret-token\n", "\(value.stderr)")
        let cache = try CLI.run(["cache", "get", "tokens", "last-login", "--root", root, "--key", newKey, "--db-key", Self.passphrase])
        #expect(cache.status == 0, "\(cache.stderr)")
        #expect(try DatabaseFileKind.of(path: root + "/common.sqlite") == .encryptedOrNotADatabase)
    }

    @Test func fileCommandsOpenCreateAndRefuseByKey() throws {
        let scratch = TemporaryFolder()
        let dump = scratch.file("dump.sql")
        try "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT);\nINSERT INTO t VALUES(1, 'secret-body-77');\n"
            .write(toFile: dump, atomically: true, encoding: .utf8)
        let db = scratch.file("new.sqlite")
        let imported = try CLI.run(["import", dump, db, "--db-key", "x'\(String(repeating: "ab", count: 32))'"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        #expect(bytes.range(of: Data("secret-body-77".utf8)) == nil)
        #expect(try DatabaseFileKind.of(path: db) == .encryptedOrNotADatabase)

        let rawKey = "x'\(String(repeating: "ab", count: 32))'"
        let query = try CLI.run(["sql", db, "SELECT body FROM t", "--db-key", "wrong", "--db-key", rawKey])
        #expect(query.stdout.contains("secret-body-77"), "\(query.stderr)")
        let exported = try CLI.run(["export", db, "t", "--db-key", rawKey])
        #expect(exported.stdout.contains("secret-body-77"), "\(exported.stderr)")

        let noKey = try CLI.run(["sql", db, "SELECT 1"])
        #expect(noKey.status == 1)
        #expect(noKey.stderr.contains("--db-key"))
        let wrongKey = try CLI.run(["sql", db, "SELECT 1", "--db-key", "wrong"])
        #expect(wrongKey.status == 1)
        #expect(wrongKey.stderr.contains("wrong key or not an encrypted database"))

        let plain = scratch.file("plain.sqlite")
        #expect(try CLI.run(["import", dump, plain]).status == 0)
        let keyedPlain = try CLI.run(["sql", plain, "SELECT 1", "--db-key", "k"])
        #expect(keyedPlain.status == 1)
        #expect(keyedPlain.stderr.contains("not encrypted"))
    }
}
