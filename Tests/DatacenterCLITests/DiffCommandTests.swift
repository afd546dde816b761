import DatacenterKit
import Foundation
import Testing

/// `datacenter snapshot` and `datacenter diff` as a script uses them: the exit statuses
/// (0 same, 1 different, 2 trouble, usage errors included), the text, the JSON shape, and
/// `--sql` writing encrypted values as their ciphertext.
@Suite struct DiffCommandTests {
    /// A root whose common store holds `settings/theme` and an encrypted `session/token`.
    func root(_ folder: TemporaryFolder) throws -> String {
        let root = folder.file("root")
        #expect(try CLI.run(["kv", "set", "settings", "theme", "dark", "--root", root]).status == 0)
        #expect(try CLI.run(["kv", "set", "session", "token", "secret-one", "--encrypt", "--root", root, "--key", TestKeys.first]).status == 0)
        return root
    }

    @Test func theExitStatusSaysWhetherTheyDiffer() throws {
        let folder = TemporaryFolder()
        let root = try root(folder)
        let snapshot = folder.file("snap")
        let taken = try CLI.run(["snapshot", root, "-o", snapshot])
        #expect(taken.status == 0, "\(taken.stderr)")
        #expect(taken.stdout.contains("1 store"))
        let same = try CLI.run(["diff", "--since", snapshot, root])
        #expect(same.status == 0 && same.stdout.contains("no changes"), "\(same.stdout)\(same.stderr)")
        #expect(try CLI.run(["kv", "set", "settings", "theme", "light", "--root", root]).status == 0)
        let changed = try CLI.run(["diff", "--since", snapshot, root])
        #expect(changed.status == 1, "\(changed.stderr)")
        #expect(changed.stdout.contains("common.sqlite\n  ~ kv settings \"theme\": \"dark\" → \"light\"\n"), "\(changed.stdout)")
        #expect(changed.stdout.hasSuffix("1 change in 1 store\n"))
        #expect(!changed.stdout.contains("\u{1b}["), "no colour when not a terminal")
        // B defaults to the root.
        #expect(try CLI.run(["diff", "--since", snapshot], environment: ["DATACENTER_ROOT": root]).status == 1)
        // Trouble is 2, usage errors too: never 1, which means "they differ".
        let missing = try CLI.run(["diff", snapshot, folder.file("nothing")])
        #expect(missing.status == 2 && missing.stderr.hasPrefix("error: ") && missing.stderr.contains("no such file or folder"))
        #expect(try CLI.run(["diff", snapshot]).status == 2, "one path without --since")
        #expect(try CLI.run(["diff", snapshot, root, "--json", "--sql"]).status == 2)
        #expect(try CLI.run(["diff", snapshot, root, "--no-such-flag"]).status == 2)
        // A snapshot is never written over a folder.
        let again = try CLI.run(["snapshot", root, "-o", snapshot])
        #expect(again.status == 1 && again.stderr.contains("exists"))
    }

    @Test func theJSONShapeAndTheLockedValue() throws {
        let folder = TemporaryFolder()
        let root = try root(folder)
        let snapshot = folder.file("snap")
        #expect(try CLI.run(["snapshot", root, "-o", snapshot, "--json"]).status == 0)
        #expect(try CLI.run(["kv", "set", "session", "token", "secret-two", "--encrypt", "--root", root, "--key", TestKeys.first]).status == 0)
        #expect(try CLI.run(["kv", "set", "settings", "fresh", "1", "--type", "int", "--root", root]).status == 0)
        let decrypted = try CLI.run(["diff", snapshot, root, "--json", "--key", TestKeys.first])
        #expect(decrypted.status == 1, "\(decrypted.stderr)")
        let document = try #require(try CLI.json(decrypted.stdout) as? [String: Any])
        #expect(document["a"] as? String == snapshot && document["b"] as? String == root)
        #expect(document["total"] as? Int == 2)
        #expect(decrypted.stdout.hasPrefix("{\"a\":") && decrypted.stdout.contains("\"stores\":[{\"presence\":\"both\",\"rows\":["),
                "keys in sorted order, as every --json document")
        let stores = try #require(document["stores"] as? [[String: Any]])
        #expect(stores.map { $0["store"] as? String } == ["common.sqlite"])
        #expect(stores[0]["presence"] as? String == "both")
        let rows = try #require(stores[0]["rows"] as? [[String: Any]])
        let token = try #require(rows.first { ($0["key"] as? [String: Any])?["key"] as? String == "token" })
        #expect(token["section"] as? String == "kv" && token["business"] as? String == "session" && token["change"] as? String == "changed")
        #expect((token["old"] as? [String: Any])?["value"] as? String == "secret-one", "decrypted with --key")
        #expect((token["new"] as? [String: Any])?["value"] as? String == "secret-two")
        let fresh = try #require(rows.first { ($0["key"] as? [String: Any])?["key"] as? String == "fresh" })
        #expect(fresh["change"] as? String == "added" && fresh["old"] is NSNull)
        #expect((fresh["new"] as? [String: Any])?["value"] as? Int == 1, "decoded by type")
        // Without the key: locked, never the ciphertext as text.
        let locked = try CLI.run(["diff", snapshot, root])
        #expect(locked.stdout.contains("~ kv session \"token\": <locked: no key> → <locked: no key>"), "\(locked.stdout)")
        #expect(!locked.stdout.contains("secret"))
    }

    @Test func theSQLWritesTheStoredCiphertextNeverThePlaintext() throws {
        let folder = TemporaryFolder()
        let root = try root(folder)
        let snapshot = folder.file("snap")
        #expect(try CLI.run(["snapshot", root, "-o", snapshot]).status == 0)
        #expect(try CLI.run(["kv", "set", "session", "token", "secret-two", "--encrypt", "--root", root, "--key", TestKeys.first]).status == 0)
        let sql = try CLI.run(["diff", "--since", snapshot, root, "--sql", "--key", TestKeys.first])
        #expect(sql.status == 1, "\(sql.stderr)")
        let stored = try sqlite3Shell(root + "/common.sqlite", "SELECT lower(hex(value)) FROM datacenter_kv WHERE key = 'token'")
        #expect(sql.stdout.contains("value=x'\(stored)'"), "\(sql.stdout)")
        #expect(!sql.stdout.contains("secret"))
        // Applied to the snapshot's copy, the statements give the root's store.
        let copy = folder.file("copy.sqlite")
        try FileManager.default.copyItem(atPath: snapshot + "/common.sqlite", toPath: copy)
        let applied = try runProcess("/usr/bin/env", ["sqlite3", "-bail", copy, sql.stdout])
        #expect(applied.status == 0, "\(applied.output)")
        #expect(try sqlite3Shell(copy, ".dump") == (try sqlite3Shell(root + "/common.sqlite", ".dump")))
        #expect(try CLI.run(["diff", copy, root + "/common.sqlite", "--sql"]).status == 0, "nothing left to write")
    }

    @Test func aStoreOnOneSideOnlyIsNamed() throws {
        let folder = TemporaryFolder()
        let root = try root(folder)
        let snapshot = folder.file("snap")
        #expect(try CLI.run(["snapshot", root, "-o", snapshot]).status == 0)
        #expect(try CLI.run(["kv", "set", "profile", "name", "Ann", "--create", "--user", "ann", "--root", root]).status == 0)
        let diff = try CLI.run(["diff", "--since", snapshot, root])
        #expect(diff.status == 1)
        #expect(diff.stdout.contains("+ users/ann/user.sqlite: only in B"), "\(diff.stdout)")
    }

    /// A file before and after `db encrypt` compares as any two files: each side opens with
    /// the key that opens it, the plain one with none, whichever side `--db-key` is for.
    @Test func aPlainFileAndItsEncryptedCopyCompare() throws {
        let folder = TemporaryFolder()
        let (plain, encrypted, edited) = (folder.file("plain.db"), folder.file("enc.db"), folder.file("edited.db"))
        let db = try Database(path: plain)
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
        try db.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
        db.close()
        #expect(try CLI.run(["db", "encrypt", plain, encrypted, "--db-key", "pw"]).status == 0)
        for (a, b) in [(plain, encrypted), (encrypted, plain)] {
            let same = try CLI.run(["diff", a, b, "--db-key", "pw"])
            #expect(same.status == 0 && same.stdout.contains("no changes"), "\(same.stdout)\(same.stderr)")
        }
        try FileManager.default.copyItem(atPath: plain, toPath: edited)
        try Database(path: edited).execute("UPDATE t SET v = 'B' WHERE id = 2")
        let changed = try CLI.run(["diff", encrypted, edited, "--db-key", "pw"])
        #expect(changed.status == 1 && changed.stdout.contains("~ t id=2: v \"b\" → \"B\""), "\(changed.stdout)\(changed.stderr)")
        // Without the key the encrypted side still says what it needs (exit 2).
        let keyless = try CLI.run(["diff", plain, encrypted])
        #expect(keyless.status == 2 && keyless.stderr.contains("enc.db") && keyless.stderr.contains("--db-key"), "\(keyless.stderr)")
    }

    /// A change past the columns a value is cut to shows where the two part, not two strings
    /// that read alike.
    @Test func aChangeFarIntoALongValueShowsWhereTheyPart() throws {
        let folder = TemporaryFolder()
        let (a, b) = (folder.file("a.db"), folder.file("b.db"))
        let long = String(repeating: "x", count: 100)
        let db = try Database(path: a)
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
        try db.execute("INSERT INTO t VALUES (1, ?)", [.text(long)])
        db.close()
        try FileManager.default.copyItem(atPath: a, toPath: b)
        var edited = Array(long)
        edited[90] = "Y"
        try Database(path: b).execute("UPDATE t SET v = ? WHERE id = 1", [.text(String(edited))])
        let result = try CLI.run(["diff", a, b])
        #expect(result.status == 1, "\(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.contains("~ t id=1") }.map(String.init))
        let sides = line.components(separatedBy: " → ")
        #expect(sides.count == 2 && sides[1].contains("Y") && !sides[0].contains("Y"), "\(line)")
    }
}
