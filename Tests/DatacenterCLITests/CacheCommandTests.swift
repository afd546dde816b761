import Foundation
import Testing

/// A demo root for one test, with the demo key it prints.
private struct Demo {
    let scratch = TemporaryFolder("CacheCommandDemo")
    let root: String
    let key: String

    init() throws {
        root = scratch.file("demo")
        let built = try CLI.run(["demo", root])
        #expect(built.status == 0, "\(built.stderr)")
        key = try #require(built.stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
    }

    /// Runs `datacenter ARGS --root ROOT`.
    func run(_ arguments: [String]) throws -> CLI.Result { try CLI.run(arguments + ["--root", root]) }

    /// Runs and parses the JSON it prints, expecting success.
    func json(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
        let result = try run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        return try CLI.json(result.stdout)
    }

    /// `cache list --json` as name → object.
    func caches(_ extra: [String] = []) throws -> [String: [String: Any]] {
        let list = try #require(try json(["cache", "list", "--json"] + extra) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as? String ?? "", $0) })
    }
}

@Suite struct CacheCommandTests {
    // MARK: cache

    @Test func listShowsTheDemoCaches() throws {
        let demo = try Demo()
        let list = try #require(try demo.json(["cache", "list", "--json"]) as? [[String: Any]])
        for object in list {
            #expect(Set(object.keys) == ["name", "entries", "bytes", "capacity", "crypted", "userDependent", "store"])
        }
        let caches = try demo.caches()
        #expect(Set(caches.keys) == ["thumbnails", "tokens"])
        let thumbnails = try #require(caches["thumbnails"])
        #expect(thumbnails["entries"] as? Int == 8)
        #expect(thumbnails["capacity"] as? Int == 100)
        #expect(thumbnails["crypted"] as? Bool == false)
        #expect(thumbnails["userDependent"] as? Bool == false)
        #expect((thumbnails["bytes"] as? Int ?? 0) > 6 * 8)
        #expect(thumbnails["store"] as? String == demo.root + "/common.sqlite")
        let tokens = try #require(caches["tokens"])
        #expect(tokens["entries"] as? Int == 2 && tokens["crypted"] as? Bool == true && tokens["capacity"] as? Int == 20)

        let alice = try demo.caches(["--user", "alice"])
        #expect(Set(alice.keys) == ["recentChats"])
        #expect(alice["recentChats"]?["userDependent"] as? Bool == true)
        #expect(alice["recentChats"]?["entries"] as? Int == 2)
        #expect((alice["recentChats"]?["store"] as? String)?.hasPrefix(demo.root + "/users/") == true)
        #expect(try demo.caches(["--user", "bob@example.com"]).isEmpty)

        let unknown = try demo.run(["cache", "list", "--user", "nobody"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("nobody"))

        let table = try demo.run(["cache", "list"])
        #expect(table.status == 0)
        #expect(table.stdout.contains("thumbnails") && table.stdout.contains("NAME"))
    }

    @Test func getPrintsValuesAsJSON() throws {
        let demo = try Demo()
        let size = try #require(try demo.json(["cache", "get", "thumbnails", "avatar-size", "--json"]) as? [String: Any])
        #expect(Set(size.keys) == ["cache", "key", "encoding", "expires", "value"])
        #expect(size["cache"] as? String == "thumbnails")
        #expect(size["key"] as? String == "avatar-size")
        #expect(size["encoding"] as? String == "archive")
        #expect(size["expires"] is NSNull)
        let value = try #require(size["value"] as? [String: Any])
        #expect(value["width"] as? Int == 64 && value["height"] as? Int == 64)

        let banner = try #require(try demo.json(["cache", "get", "thumbnails", "banner.txt", "--json"]) as? [String: Any])
        #expect(banner["encoding"] as? String == "data")
        let expires = try #require(banner["expires"] as? String)
        let date = try #require(ISO8601DateFormatter().date(from: expires))
        #expect(date > Date().addingTimeInterval(29 * 86_400))
        let bytes = try #require((banner["value"] as? [String: Any])?["$data"] as? String)
        #expect(Data(base64Encoded: bytes) == Data("expires in a month".utf8))

        let plain = try demo.run(["cache", "get", "thumbnails", "avatar-size"])
        #expect(plain.status == 0)
        #expect(plain.stdout.contains("64"))

        let missing = try demo.run(["cache", "get", "thumbnails", "no-such-key"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no-such-key"))
        #expect(try demo.run(["cache", "get", "no-such-cache", "k"]).status == 1)
        // recentChats is alice's, not in the common store.
        #expect(try demo.run(["cache", "get", "recentChats", "chat-1"]).status == 1)
        let chat = try #require(try demo.json(["cache", "get", "recentChats", "chat-2", "--json", "--user", "alice"]) as? [String: Any])
        #expect((chat["value"] as? [String: Any])?["with"] as? String == "team")
    }

    @Test func encryptedEntriesNeedTheDemoKey() throws {
        let demo = try Demo()
        let token = try #require(try demo.json(["cache", "get", "tokens", "refresh-token", "--json", "--key", demo.key]) as? [String: Any])
        #expect(token["value"] as? String == "refresh-7f3a9c")
        let login = try #require(try demo.json(["cache", "get", "tokens", "last-login", "--json", "--key", demo.key]) as? [String: Any])
        #expect((login["value"] as? [String: Any])?["device"] as? String == "Pixel 9")

        for keys in [[], ["--key", TestKeys.first]] {
            let refused = try demo.run(["cache", "get", "tokens", "refresh-token"] + keys)
            #expect(refused.status == 1)
            #expect(!refused.stdout.contains("refresh-7f3a9c"))
            #expect(refused.stderr.contains("cannot decrypt"))
        }
    }

    @Test func rmAndClear() throws {
        let demo = try Demo()
        let removed = try demo.run(["cache", "rm", "thumbnails", "avatar-1.png"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try demo.run(["cache", "rm", "thumbnails", "avatar-1.png"]).status == 1)
        #expect(try demo.run(["cache", "get", "thumbnails", "avatar-1.png"]).status == 1)
        #expect(try demo.caches()["thumbnails"]?["entries"] as? Int == 7)

        let cleared = try demo.run(["cache", "clear", "tokens"])
        #expect(cleared.status == 0)
        #expect(cleared.stdout == "removed 2 entries from tokens\n")
        #expect(try demo.caches()["tokens"]?["entries"] as? Int == 0)
        #expect(try demo.run(["cache", "clear", "tokens"]).stdout == "removed 0 entries from tokens\n")
        #expect(try demo.run(["cache", "clear", "nope"]).status == 1)

        let alice = try demo.run(["cache", "clear", "recentChats", "--user", "alice"])
        #expect(alice.stdout == "removed 2 entries from recentChats\n")
        #expect(try demo.caches()["thumbnails"]?["entries"] as? Int == 7, "clearing alice's cache touched the common store")
    }

    // MARK: clean and purge

    @Test func cleanReportsAndADryRunDeletesNothing() throws {
        let demo = try Demo()
        let images = demo.root + "/Caches/images"
        let dry = try #require(try demo.json(["clean", "--json", "--dry-run"]) as? [String: Any])
        #expect(Set(dry.keys) == ["dryRun", "tasks", "megabytesFreed", "sizeBefore", "sizeAfter"])
        #expect(dry["dryRun"] as? Bool == true)
        let tasks = try #require(dry["tasks"] as? [[String: Any]])
        #expect(tasks.map { $0["task"] as? String } == ["cleanPurgeableValues", "cleanPurgeablePaths"])
        #expect(tasks[0]["items"] as? Int == 5, "the demo's five purgeable posts")
        #expect(tasks[1]["items"] as? Int == 2)
        #expect(tasks[1]["bytes"] as? Int == 90_000)
        for name in ["fresh.jpg", "recent.jpg", "old.jpg", "ancient.jpg"] {
            #expect(FileManager.default.fileExists(atPath: images + "/" + name), "the dry run deleted \(name)")
        }
        #expect(try demo.run(["kv", "get", "feed-cache", "post-1"]).status == 0)

        let real = try #require(try demo.json(["clean", "--json"]) as? [String: Any])
        #expect(real["dryRun"] as? Bool == false)
        let realTasks = try #require(real["tasks"] as? [[String: Any]])
        #expect(realTasks.map { $0["items"] as? Int } == [5, 2])
        #expect(!FileManager.default.fileExists(atPath: images + "/old.jpg"))
        #expect(!FileManager.default.fileExists(atPath: images + "/ancient.jpg"))
        #expect(FileManager.default.fileExists(atPath: images + "/fresh.jpg"))
        #expect(try demo.run(["kv", "get", "feed-cache", "post-1"]).status == 1)
        #expect((real["megabytesFreed"] as? Double ?? 0) > 0.08)

        let table = try demo.run(["clean", "--dry-run"])
        #expect(table.status == 0)
        #expect(table.stdout.contains("would free"))
    }

    @Test func cleanWithATaskFile() throws {
        let demo = try Demo()
        let tasks = demo.scratch.file("tasks.json")
        #expect(FileManager.default.createFile(atPath: demo.root + "/Caches/a.cache", contents: Data(count: 10)))
        #expect(FileManager.default.createFile(atPath: tasks, contents: Data(#"{"tasks": [{"path": "Caches", "entries": ["*.cache"]}]}"#.utf8)))
        let report = try #require(try demo.json(["clean", "--json", "--tasks", tasks]) as? [String: Any])
        let list = try #require(report["tasks"] as? [[String: Any]])
        #expect(list.count == 1)
        #expect(list.first?["task"] as? String == "Caches [*.cache]")
        #expect(list.first?["items"] as? Int == 1 && list.first?["bytes"] as? Int == 10)
        #expect(!FileManager.default.fileExists(atPath: demo.root + "/Caches/a.cache"))

        #expect(FileManager.default.createFile(atPath: tasks, contents: Data("{\"tasks\": [\n  {\"path\": \"x\"}\n  {\"path\": \"y\"}\n]}".utf8)))
        let bad = try demo.run(["clean", "--tasks", tasks])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains(tasks + ":3:"), "\(bad.stderr)")

        #expect(FileManager.default.createFile(atPath: tasks, contents: Data(#"[{"path": "../outside"}]"#.utf8)))
        let escaping = try demo.run(["clean", "--tasks", tasks])
        #expect(escaping.status == 1)
        #expect(escaping.stderr.contains("task 1"))
    }

    @Test func purgeRegisterRunAndList() throws {
        let demo = try Demo()
        let listed = try demo.run(["purge", "list"])
        #expect(listed.status == 0)
        #expect(listed.stdout.contains(demo.root + "/Caches/images"))
        #expect(listed.stdout.contains("7 days"))

        let dry = try #require(try demo.json(["purge", "run", "--json", "--dry-run"]) as? [String: Any])
        #expect(Set(dry.keys) == ["files", "bytes", "paths"])
        #expect(dry["files"] as? Int == 2)
        #expect(dry["bytes"] as? Int == 90_000)
        let paths = try #require(dry["paths"] as? [String])
        #expect(Set(paths.map { ($0 as NSString).lastPathComponent }) == ["old.jpg", "ancient.jpg"])
        #expect(FileManager.default.fileExists(atPath: demo.root + "/Caches/images/ancient.jpg"))

        let register = try demo.run(["purge", "register", "Caches/tmp", "--type", "manual", "--max-mb", "0"])
        #expect(register.status == 0, "\(register.stderr)")
        #expect(register.stdout.contains(demo.root + "/Caches/tmp"))
        let old = demo.root + "/Caches/tmp/old.bin"
        #expect(FileManager.default.createFile(atPath: old, contents: Data(count: 5)))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-400 * 86_400)], ofItemAtPath: old)
        #expect(try demo.run(["purge", "list"]).stdout.contains("manual"))

        let run = try #require(try demo.json(["purge", "run", "--json"]) as? [String: Any])
        #expect(run["files"] as? Int == 2, "a manual folder is never purged by age")
        #expect(FileManager.default.fileExists(atPath: old))
        #expect(!FileManager.default.fileExists(atPath: demo.root + "/Caches/images/ancient.jpg"))
        #expect(FileManager.default.fileExists(atPath: demo.root + "/Caches/images/recent.jpg"))
        #expect(try demo.json(["purge", "run", "--json"]) as? [String: Any] != nil)

        let reset = try demo.run(["purge", "reset"])
        #expect(reset.status == 0)
        #expect(reset.stdout.contains("deleted 3 file(s)"))
        #expect(!FileManager.default.fileExists(atPath: old))

        #expect(try demo.run(["purge", "register", "x", "--type", "5"]).status == 2)
        #expect(try demo.run(["purge", "register", "x", "--type", "7", "--max-mb", "-1"]).status == 2)
    }

    // MARK: file

    @Test func fileEncryptDecryptAndCat() throws {
        let scratch = TemporaryFolder()
        let plain = scratch.file("plain.txt")
        let text = String(repeating: "line of secret text\n", count: 5000)
        #expect(FileManager.default.createFile(atPath: plain, contents: Data(text.utf8)))
        let sealed = scratch.file("sealed.dcef")

        let encrypt = try CLI.run(["file", "encrypt", plain, sealed, "--key", TestKeys.first])
        #expect(encrypt.status == 0, "\(encrypt.stderr)")
        let bytes = FileManager.default.contents(atPath: sealed) ?? Data()
        #expect(bytes.prefix(4) == Data("DCEF".utf8))
        #expect(bytes.range(of: Data("secret".utf8)) == nil)

        let cat = try CLI.run(["file", "cat", sealed, "--key", TestKeys.first])
        #expect(cat.status == 0)
        #expect(cat.stdout == text)
        let rotated = try CLI.run(["file", "cat", sealed, "--key", TestKeys.second, "--key", TestKeys.first])
        #expect(rotated.stdout == text)
        #expect(try CLI.run(["file", "cat", plain]).stdout == text, "a plain file prints as it is")

        let out = scratch.file("out.txt")
        let decrypt = try CLI.run(["file", "decrypt", sealed, out], environment: ["DATACENTER_KEY": TestKeys.first])
        #expect(decrypt.status == 0, "\(decrypt.stderr)")
        #expect(FileManager.default.contents(atPath: out) == Data(text.utf8))

        let noKey = try CLI.run(["file", "encrypt", plain, scratch.file("nokey.dcef")])
        #expect(noKey.status == 1)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("nokey.dcef")))
    }

    @Test func wrongKeysAndTamperedFilesAreRefused() throws {
        let scratch = TemporaryFolder()
        let plain = scratch.file("plain.bin")
        #expect(FileManager.default.createFile(atPath: plain, contents: Data((0..<200_000).map { UInt8(65 + $0 % 26) })))
        let sealed = scratch.file("sealed.dcef")
        #expect(try CLI.run(["file", "encrypt", plain, sealed, "--key", TestKeys.first]).status == 0)

        let wrongOut = scratch.file("wrong.out")
        let wrong = try CLI.run(["file", "decrypt", sealed, wrongOut, "--key", TestKeys.second])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("wrong key"))
        #expect(!FileManager.default.fileExists(atPath: wrongOut))
        #expect(try CLI.run(["file", "cat", sealed, "--key", TestKeys.second]).status == 1)

        // Flip a byte in the second chunk (past the first 64 KiB).
        var bytes = try #require(FileManager.default.contents(atPath: sealed))
        bytes[28 + 65_536 + 28 + 100] ^= 0x01   // header 28, chunk 0 of 64 KiB + 28
        let tampered = scratch.file("tampered.dcef")
        #expect(FileManager.default.createFile(atPath: tampered, contents: bytes))
        let tamperedOut = scratch.file("tampered.out")
        let refused = try CLI.run(["file", "decrypt", tampered, tamperedOut, "--key", TestKeys.first])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("altered"))
        #expect(!FileManager.default.fileExists(atPath: tamperedOut))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains("partial") }
        #expect(leftovers.isEmpty)
        // cat prints the authenticated first chunk at most, then fails.
        let cat = try CLI.run(["file", "cat", tampered, "--key", TestKeys.first])
        #expect(cat.status == 1)
        #expect(cat.stdout.utf8.count <= 65_536)

        // Truncated.
        let truncated = scratch.file("truncated.dcef")
        #expect(FileManager.default.createFile(atPath: truncated, contents: bytes.prefix(28 + 65_536 + 28)))
        let cut = try CLI.run(["file", "decrypt", truncated, scratch.file("cut.out"), "--key", TestKeys.first])
        #expect(cut.status == 1)
        #expect(cut.stderr.contains("truncated"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("cut.out")))
    }
}
