import Foundation
import Testing

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
}
