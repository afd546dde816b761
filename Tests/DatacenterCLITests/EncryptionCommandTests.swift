import Foundation
import Testing
@testable import DatacenterKit

@Suite struct EncryptionCommandTests {
    @Test func encryptedValueReadsWithTheKeyAndIsRefusedWithoutIt() throws {
        let scratch = TemporaryFolder()
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
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        _ = try CLI.run(["kv", "set", "s", "t", "v1", "--encrypt", "--root", root], environment: ["DATACENTER_KEY": TestKeys.first])
        let rotated = try CLI.run(["kv", "get", "s", "t", "--key", TestKeys.second, "--key", TestKeys.first, "--root", root])
        #expect(rotated.stdout == "v1\n")
        let fromEnv = try CLI.run(["kv", "get", "s", "t", "--key", TestKeys.second, "--root", root], environment: ["DATACENTER_KEY": TestKeys.first])
        #expect(fromEnv.stdout == "v1\n")
    }

    @Test func keyFilesAndBase64KeysWork() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        let keyFile = scratch.file("key.txt")
        try (TestKeys.first + "\n").write(toFile: keyFile, atomically: true, encoding: .utf8)
        let base64 = Data(repeating: 0xAB, count: 32).base64EncodedString()
        _ = try CLI.run(["kv", "set", "s", "t", "v", "--encrypt", "--key", "@" + keyFile, "--root", root])
        #expect(try CLI.run(["kv", "get", "s", "t", "--key", base64, "--root", root]).stdout == "v\n")
    }

    @Test func encryptWithoutAKeyIsRefused() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        let result = try CLI.run(["kv", "set", "s", "t", "v", "--encrypt", "--root", root])
        #expect(result.status == 1)
        #expect(result.stderr.contains("needs a key: pass --key or --app-key"), "\(result.stderr)")
        // An app key is a key: the value is written, encrypted.
        #expect(try CLI.run(["kv", "set", "s", "t", "v", "--encrypt", "--app-key", "the app", "--root", root]).status == 0)
        #expect(try CLI.run(["kv", "get", "s", "t", "--app-key", "the app", "--root", root]).stdout == "v\n")
        #expect(try CLI.run(["kv", "get", "s", "t", "--root", root]).status == 1)
    }

    @Test func malformedKeyIsAClearError() throws {
        let scratch = TemporaryFolder()
        let result = try CLI.run(["kv", "list", "--key", "not-a-key", "--root", scratch.file("root")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("error: --key: invalid key"), "\(result.stderr)")
        // Where the bad key came from is named, and the key itself is never printed.
        let second = try CLI.run(["kv", "list", "--key", TestKeys.first, "--key", "not-a-key", "--root", scratch.file("root")])
        #expect(second.status == 1 && second.stderr.contains("error: --key #2: invalid key"), "\(second.stderr)")
        let env = try CLI.run(["kv", "list", "--root", scratch.file("root")], environment: ["DATACENTER_KEY": "not-a-key"])
        #expect(env.status == 1 && env.stderr.contains("error: $DATACENTER_KEY: invalid key"), "\(env.stderr)")
        #expect(!(result.stderr + second.stderr + env.stderr).contains("not-a-key"))
    }

    @Test func listMarksLockedValuesAndNeverShowsCiphertext() throws {
        let scratch = TemporaryFolder()
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
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        _ = try CLI.run(["kv", "set", "s", "a", "one", "--encrypt", "--key", TestKeys.first, "--root", root])
        _ = try CLI.run(["kv", "set", "s", "b", "two", "--encrypt", "--create", "--user", "u1", "--key", TestKeys.first, "--root", root])
        let rekey = try CLI.run(["rekey", "--from", TestKeys.first, "--to", TestKeys.second, "--root", root])
        #expect(rekey.status == 0, "\(rekey.stderr)")
        #expect(rekey.stdout.contains("common: 1 value(s) re-encrypted"))
        #expect(rekey.stdout.contains("user u1: 1 value(s) re-encrypted"))
        #expect(try CLI.run(["kv", "get", "s", "a", "--key", TestKeys.second, "--root", root]).stdout == "one\n")
        #expect(try CLI.run(["kv", "get", "s", "b", "--user", "u1", "--key", TestKeys.second, "--root", root]).stdout == "two\n")
        #expect(try CLI.run(["kv", "get", "s", "a", "--key", TestKeys.first, "--root", root]).status == 1)
    }

    @Test func rekeyWithTheWrongOldKeyChangesNothing() throws {
        let scratch = TemporaryFolder()
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
        let scratch = TemporaryFolder()
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
        let entries = try #require(try CLI.json(list.stdout) as? [[String: Any]])
        let theme = try #require(entries.first { $0["key"] as? String == "theme" })
        #expect(theme["locked"] as? String == "misplaced")
        #expect(theme["value"] is NSNull)
        #expect(try CLI.run(["kv", "get", "session", "apiToken", "--key", TestKeys.first, "--root", root]).stdout == Self.token + "\n")
    }

    @Test func rekeyUpgradesOldValuesSoACopyIsRefused() throws {
        let scratch = TemporaryFolder()
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
        // The old value moves to the bound format; the other is bound under this key already.
        #expect(rekey.stdout.contains("common: 1 value(s) re-encrypted, 1 already under the new key"), "\(rekey.stdout)")
        try Self.copyTokenOverTheme(root: root)
        let get = try CLI.run(["kv", "get", "settings", "theme", "--key", TestKeys.first, "--root", root])
        #expect(get.status == 1)
        #expect(get.stderr.contains("not for this business/key"), "\(get.stderr)")
        #expect(!get.stdout.contains(Self.token))
        #expect(try CLI.run(["kv", "get", "session", "apiToken", "--key", TestKeys.first, "--root", root]).stdout == Self.token + "\n")
    }

    // MARK: Encrypted files bound to their chunks

    /// Encrypts three chunks' worth of `fill` under the first test key.
    static func sealed(_ scratch: TemporaryFolder, _ name: String, fill: UInt8) throws -> String {
        let plain = scratch.file(name + ".txt")
        #expect(FileManager.default.createFile(atPath: plain, contents: Data(repeating: fill, count: 150_000)))
        let sealed = scratch.file(name + ".enc")
        #expect(try CLI.run(["file", "encrypt", plain, sealed, "--key", TestKeys.first]).status == 0)
        return sealed
    }

    @Test func aChunkSplicedFromAnotherFileIsRefused() throws {
        let scratch = TemporaryFolder()
        let a = try Self.sealed(scratch, "a", fill: 0x41), b = try Self.sealed(scratch, "b", fill: 0x42)
        var bytes = try #require(FileManager.default.contents(atPath: a))
        let other = try #require(FileManager.default.contents(atPath: b))
        // Chunk 1 of b into a: the header's size is what the three chunks leave.
        let chunk = 65_536 + 28
        let header = bytes.count - 150_000 - 3 * 28
        bytes.replaceSubrange((header + chunk)..<(header + 2 * chunk), with: other.subdata(in: (header + chunk)..<(header + 2 * chunk)))
        #expect(FileManager.default.createFile(atPath: a, contents: bytes))
        let out = scratch.file("a.out")
        let decrypt = try CLI.run(["file", "decrypt", a, out, "--key", TestKeys.first])
        #expect(decrypt.status == 1)
        #expect(decrypt.stderr.contains(a) && decrypt.stderr.contains("chunk 1"), "\(decrypt.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let cat = try CLI.run(["file", "cat", a, "--key", TestKeys.first])
        #expect(cat.status == 1)
        #expect(!cat.stdout.contains("B"), "nothing of the other file is printed")
    }

    @Test func catRefusesAFileWhoseMagicIsDamaged() throws {
        let scratch = TemporaryFolder()
        let sealed = try Self.sealed(scratch, "m", fill: 0x41)
        var bytes = try #require(FileManager.default.contents(atPath: sealed))
        bytes[1] ^= 0x01
        #expect(FileManager.default.createFile(atPath: sealed, contents: bytes))
        let cat = try CLI.run(["file", "cat", sealed, "--key", TestKeys.first])
        #expect(cat.status == 1)
        #expect(cat.stdout.isEmpty, "ciphertext printed as plaintext")
        #expect(cat.stderr.contains(sealed) && cat.stderr.contains("damaged header"), "\(cat.stderr)")
        let decrypt = try CLI.run(["file", "decrypt", sealed, scratch.file("m.out"), "--key", TestKeys.first])
        #expect(decrypt.status == 1)
        // A plain binary file is not printed either; text still is.
        let binary = scratch.file("bin")
        #expect(FileManager.default.createFile(atPath: binary, contents: Data([0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0, 0, 0])))
        let refused = try CLI.run(["file", "cat", binary])
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("neither an encrypted file nor text"), "\(refused.stderr)")
        let text = scratch.file("t.txt")
        #expect(FileManager.default.createFile(atPath: text, contents: Data("plain\n".utf8)))
        #expect(try CLI.run(["file", "cat", text]).stdout == "plain\n")
    }

    @Test func version1FilesReadWithANoteToReEncrypt() throws {
        let scratch = TemporaryFolder()
        let path = scratch.file("old.enc")
        let writer = try EncryptedFileWriter(path: path, key: try EncryptionKey(parsing: TestKeys.first), chunkSize: 16, version: 1)
        try writer.write(Data("an old secret file".utf8))
        try writer.finish()
        let cat = try CLI.run(["file", "cat", path, "--key", TestKeys.first])
        #expect(cat.status == 0, "\(cat.stderr)")
        #expect(cat.stdout == "an old secret file")
        #expect(cat.stderr.contains("note: \(path) is format 1"), "\(cat.stderr)")
        let out = scratch.file("old.out")
        let decrypt = try CLI.run(["file", "decrypt", path, out, "--key", TestKeys.first])
        #expect(decrypt.status == 0)
        #expect(decrypt.stderr.contains("re-encrypt"))
        #expect(FileManager.default.contents(atPath: out) == Data("an old secret file".utf8))
        // A new file gets no note.
        let fresh = try Self.sealed(scratch, "fresh", fill: 0x43)
        #expect(try CLI.run(["file", "decrypt", fresh, scratch.file("fresh.out"), "--key", TestKeys.first]).stderr.isEmpty)
    }
}
