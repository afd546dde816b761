import Foundation
import Testing
@testable import DatacenterKit

@Suite struct EncryptionCommandTests {
    @Test func encryptedValueReadsWithTheKeyAndIsRefusedWithoutIt() throws {
        let scratch = Scratch()
        let root = scratch.file("root")
        let set = try CLI.run(["kv", "set", "s", "token", "secret-value", "--encrypt", "--key", TestKeys.first, "--root", root])
        #expect(set.status == 0, "\(set.stderr)")

        let withKey = try CLI.run(["kv", "get", "s", "token", "--json", "--key", TestKeys.first, "--root", root])
        let object = try #require(try CLI.json(withKey.stdout) as? [String: Any])
        #expect(object["encrypted"] as? Bool == true)
        #expect(object["value"] as? String == "secret-value")

        let noKey = try CLI.run(["kv", "get", "s", "token", "--root", root])
        #expect(noKey.status == 1)
        #expect(noKey.stderr.contains("no key"))
        #expect(!noKey.stdout.contains("secret"))

        let wrongKey = try CLI.run(["kv", "get", "s", "token", "--key", TestKeys.second, "--root", root])
        #expect(wrongKey.status == 1)
        #expect(wrongKey.stderr.contains("wrong key"))
        #expect(wrongKey.stdout.isEmpty)
    }

    @Test func theEnvironmentKeyAndOlderKeysAreTried() throws {
        let scratch = Scratch()
        let root = scratch.file("root")
        _ = try CLI.run(["kv", "set", "s", "t", "v1", "--encrypt", "--root", root], environment: ["DATACENTER_KEY": TestKeys.first])
        let rotated = try CLI.run(["kv", "get", "s", "t", "--key", TestKeys.second, "--key", TestKeys.first, "--root", root])
        #expect(rotated.stdout == "v1\n")
        let fromEnv = try CLI.run(["kv", "get", "s", "t", "--key", TestKeys.second, "--root", root], environment: ["DATACENTER_KEY": TestKeys.first])
        #expect(fromEnv.stdout == "v1\n")
    }

    @Test func keyFilesAndBase64KeysWork() throws {
        let scratch = Scratch()
        let root = scratch.file("root")
        let keyFile = scratch.file("key.txt")
        try (TestKeys.first + "\n").write(toFile: keyFile, atomically: true, encoding: .utf8)
        let base64 = Data(repeating: 0xAB, count: 32).base64EncodedString()
        _ = try CLI.run(["kv", "set", "s", "t", "v", "--encrypt", "--key", "@" + keyFile, "--root", root])
        #expect(try CLI.run(["kv", "get", "s", "t", "--key", base64, "--root", root]).stdout == "v\n")
    }

    @Test func encryptWithoutAKeyIsRefused() throws {
        let scratch = Scratch()
        let root = scratch.file("root")
        let result = try CLI.run(["kv", "set", "s", "t", "v", "--encrypt", "--root", root])
        #expect(result.status == 1)
        #expect(result.stderr.contains("needs a key"))
        #expect(try CLI.run(["kv", "get", "s", "t", "--root", root]).status == 1)
    }

    @Test func malformedKeyIsAClearError() throws {
        let scratch = Scratch()
        let result = try CLI.run(["kv", "list", "--key", "not-a-key", "--root", scratch.file("root")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("invalid key"))
    }

    @Test func listMarksLockedValuesAndNeverShowsCiphertext() throws {
        let scratch = Scratch()
        let root = scratch.file("root")
        _ = try CLI.run(["kv", "set", "s", "t", "plain-secret", "--encrypt", "--key", TestKeys.first, "--root", root])
        let listed = try #require(try CLI.json(try CLI.run(["kv", "list", "--json", "--key", TestKeys.second, "--root", root]).stdout) as? [[String: Any]])
        #expect(listed.count == 1)
        #expect(listed[0]["locked"] as? String == "wrong key")
        #expect(listed[0]["value"] is NSNull)
        let table = try CLI.run(["kv", "list", "--root", root])
        #expect(table.stdout.contains("[locked: no key]"))
    }

    @Test func rekeyMovesValuesToTheNewKey() throws {
        let scratch = Scratch()
        let root = scratch.file("root")
        _ = try CLI.run(["kv", "set", "s", "a", "one", "--encrypt", "--key", TestKeys.first, "--root", root])
        _ = try CLI.run(["kv", "set", "s", "b", "two", "--encrypt", "--user", "u1", "--key", TestKeys.first, "--root", root])
        let rekey = try CLI.run(["rekey", "--from", TestKeys.first, "--to", TestKeys.second, "--root", root])
        #expect(rekey.status == 0, "\(rekey.stderr)")
        #expect(rekey.stdout.contains("common: 1 value(s) re-encrypted"))
        #expect(rekey.stdout.contains("user u1: 1 value(s) re-encrypted"))
        #expect(try CLI.run(["kv", "get", "s", "a", "--key", TestKeys.second, "--root", root]).stdout == "one\n")
        #expect(try CLI.run(["kv", "get", "s", "b", "--user", "u1", "--key", TestKeys.second, "--root", root]).stdout == "two\n")
        #expect(try CLI.run(["kv", "get", "s", "a", "--key", TestKeys.first, "--root", root]).status == 1)
    }

    @Test func rekeyWithTheWrongOldKeyChangesNothing() throws {
        let scratch = Scratch()
        let root = scratch.file("root")
        _ = try CLI.run(["kv", "set", "s", "a", "one", "--encrypt", "--key", TestKeys.first, "--root", root])
        let rekey = try CLI.run(["rekey", "--from", TestKeys.second, "--to", TestKeys.second, "--root", root])
        #expect(rekey.status == 1)
        #expect(rekey.stderr.contains("left unchanged"))
        #expect(try CLI.run(["kv", "get", "s", "a", "--key", TestKeys.first, "--root", root]).stdout == "one\n")
    }

    // MARK: Values bound to their business and key

    /// Copies the stored value of session/apiToken over settings/theme in the common store,
    /// as someone able to write the file could.
    static func copyTokenOverTheme(root: String) throws {
        let db = try Database(path: root + "/common.sqlite", mode: .readWriteExisting)
        try db.execute("""
            UPDATE datacenter_kv SET value = (SELECT value FROM datacenter_kv WHERE business = 'session' AND key = 'apiToken')
            WHERE business = 'settings' AND key = 'theme'
            """)
    }

    static let token = "tok-8d1e55c0a7"

    @Test func aCiphertextCopiedToAnotherKeyIsRefusedAndNeverPrinted() throws {
        let scratch = Scratch()
        let root = scratch.file("root")
        #expect(try CLI.run(["kv", "set", "session", "apiToken", Self.token, "--encrypt", "--key", TestKeys.first, "--root", root]).status == 0)
        #expect(try CLI.run(["kv", "set", "settings", "theme", "dark", "--encrypt", "--key", TestKeys.first, "--root", root]).status == 0)
        try Self.copyTokenOverTheme(root: root)
        for extra in [[], ["--json"]] {
            let get = try CLI.run(["kv", "get", "settings", "theme", "--key", TestKeys.first, "--root", root] + extra)
            #expect(get.status == 1)
            #expect(get.stderr.contains("settings/theme"), "\(get.stderr)")
            #expect(get.stderr.contains("not for this business/key"), "\(get.stderr)")
            #expect(!get.stdout.contains(Self.token) && !get.stderr.contains(Self.token))
        }
        let list = try CLI.run(["kv", "list", "--json", "--key", TestKeys.first, "--root", root])
        #expect(list.stdout.components(separatedBy: Self.token).count <= 2, "the token shows once at most, where it belongs")
        #expect(try CLI.run(["kv", "get", "session", "apiToken", "--key", TestKeys.first, "--root", root]).stdout == Self.token + "\n")
    }

    @Test func rekeyUpgradesOldValuesSoACopyIsRefused() throws {
        let scratch = Scratch()
        let root = scratch.file("root")
        #expect(try CLI.run(["kv", "set", "session", "apiToken", "placeholder", "--encrypt", "--key", TestKeys.first, "--root", root]).status == 0)
        #expect(try CLI.run(["kv", "set", "settings", "theme", "dark", "--encrypt", "--key", TestKeys.first, "--root", root]).status == 0)
        // The token as versions before binding wrote it: format 1, unbound.
        let key = try EncryptionKey(parsing: TestKeys.first)
        let old = try AESGCMCrypt(key: key).encrypt(Data(Self.token.utf8))
        do {
            let db = try Database(path: root + "/common.sqlite", mode: .readWriteExisting)
            try db.execute("UPDATE datacenter_kv SET value = ? WHERE business = 'session' AND key = 'apiToken'", [.blob(old)])
        }
        #expect(try CLI.run(["kv", "get", "session", "apiToken", "--key", TestKeys.first, "--root", root]).stdout == Self.token + "\n",
                "an old value still reads")
        // Re-encrypting under the same key upgrades every value to the bound format.
        let rekey = try CLI.run(["rekey", "--from", TestKeys.first, "--to", TestKeys.first, "--root", root])
        #expect(rekey.status == 0, "\(rekey.stderr)")
        #expect(rekey.stdout.contains("common: 2 value(s) re-encrypted"))
        try Self.copyTokenOverTheme(root: root)
        let get = try CLI.run(["kv", "get", "settings", "theme", "--key", TestKeys.first, "--root", root])
        #expect(get.status == 1)
        #expect(get.stderr.contains("not for this business/key"), "\(get.stderr)")
        #expect(!get.stdout.contains(Self.token))
        #expect(try CLI.run(["kv", "get", "session", "apiToken", "--key", TestKeys.first, "--root", root]).stdout == Self.token + "\n")
    }
}
