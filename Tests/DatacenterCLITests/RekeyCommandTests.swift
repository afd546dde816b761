import DatacenterKit
import Foundation
import Testing

/// A demo root plus what the demo lacks — encrypted file and object services, custom storages
/// under the root and outside it, an encrypted `LIB_CACHES.` cache, an encrypted value in the
/// version storage, a plain file service whose files start like encrypted values — all under
/// the demo key: every kind of encrypted data a root holds.
struct RekeyFixture {
    let scratch = TemporaryFolder("RekeyCommand")
    let root: String
    let outside: String
    let demoKey: String
    static let newKey = TestKeys.second
    /// A plain file's bytes: format 1's tag and more than its overhead, but not encrypted.
    static let lookalike = Data([0x01] + (0..<40).map { UInt8($0) })

    init() throws {
        root = scratch.file("demo")
        outside = scratch.file("outside")
        let built = try CLI.run(["demo", root])
        #expect(built.status == 0, "\(built.stderr)")
        demoKey = try #require(built.stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        let center = try DataCenter(rootPath: root, crypt: KeyRing([try EncryptionKey(parsing: demoKey)]))
        let attachments = try FileArrayService(name: "attachments", store: center.commonStore(), encrypted: true)
        attachments.write(Data("attachment bytes".utf8), to: "a.txt")
        attachments.write(Data("second attachment".utf8), to: "b.txt")
        let plain = try FileArrayService(name: "plainlogs", store: center.commonStore())
        plain.write(Self.lookalike, to: "log.bin")
        let drafts = try ObjectArrayService<[String: String]>(name: "drafts", store: center.store(forUser: "alice"), encrypted: true)
        drafts.set(["to": "bob", "text": "draft text"], forKey: "d1")
        let inside = center.customStorage(atPath: root + "/Attachments")
        try inside.commonPreferences.setString("inside secret", forKey: "secret", encryption: .default)
        let blobs = try #require(try FileArrayService(name: "blobs", storage: inside, encrypted: true))
        blobs.write(Data("blob in a custom storage".utf8), to: "blob")
        try center.customStorage(atPath: outside).commonPreferences.setString("outside secret", forKey: "secret", encryption: .default)
        try center.currentVersionStorage.commonPreferences.setString("version secret", forKey: "vs", encryption: .default)
        let secure = try LRUDiskCache(name: "LIB_CACHES.secure", capacity: 10, encrypted: true, dataCenter: center)
        try secure.setData(Data("cached secret".utf8), forKey: "s1")
        try secure.flush()
        for service in [attachments, plain, blobs] { service.waitForPendingOperations() }
        drafts.waitForPendingOperations()
    }

    func rekey(_ extra: [String] = []) throws -> CLI.Result {
        try CLI.run(["rekey", "--root", root, "--from", demoKey, "--to", Self.newKey, "--storage", outside] + extra)
    }

    /// Every kind of encrypted data, read through the engine with `key` only: the values as
    /// written, or the first failure.
    func readEverything(with key: String) throws -> [String: String] {
        let center = try DataCenter(rootPath: root, crypt: KeyRing([try EncryptionKey(parsing: key)]))
        var read: [String: String] = [:]
        func attempt(_ name: String, _ body: () throws -> String?) {
            do { read[name] = try body() ?? "<nil>" } catch { read[name] = "<error>" }
        }
        attempt("kv") { try center.commonPreferences.string(forKey: "apiToken", business: "session") }
        attempt("kv user") { try center.preferences(forUser: "alice").string(forKey: "phone", business: "profile") }
        attempt("files") {
            try FileArrayService(name: "attachments", store: center.commonStore(), encrypted: true).read("b.txt").map { String(decoding: $0, as: UTF8.self) }
        }
        attempt("objects") {
            try ObjectArrayService<[String: String]>(name: "drafts", store: center.store(forUser: "alice"), encrypted: true)
                .object(forKey: "d1")?["text"]
        }
        attempt("custom storage") { try center.customStorage(atPath: root + "/Attachments").commonPreferences.string(forKey: "secret") }
        attempt("custom storage files") {
            let blobs = try FileArrayService(name: "blobs", storage: center.customStorage(atPath: root + "/Attachments"), encrypted: true)
            return try blobs?.read("blob").map { String(decoding: $0, as: UTF8.self) }
        }
        attempt("outside storage") { try center.customStorage(atPath: outside).commonPreferences.string(forKey: "secret") }
        attempt("version storage") { try center.currentVersionStorage.commonPreferences.string(forKey: "vs") }
        attempt("library cache") {
            let store = try Store(path: root + "/Caches/lru.sqlite", crypt: KeyRing([try EncryptionKey(parsing: key)]))
            let info = try CacheCatalog.cache(named: "LIB_CACHES.secure", in: store)
            let entry = try #require(try CacheCatalog.entry("s1", of: info, in: store))
            guard case .data(let data) = try CacheCatalog.decode(entry, of: info, crypt: store.kv.defaultCrypt) else { return nil }
            return String(decoding: data, as: UTF8.self)
        }
        attempt("plain files") {
            try FileArrayService(name: "plainlogs", store: center.commonStore()).read("log.bin") == Self.lookalike ? "same" : "changed"
        }
        return read
    }

    static let expected = [
        "kv": "sk_live_51Hdemo-secret-token", "kv user": "+1 555 0100", "files": "second attachment", "objects": "draft text",
        "custom storage": "inside secret", "custom storage files": "blob in a custom storage", "outside storage": "outside secret",
        "version storage": "version secret", "library cache": "cached secret", "plain files": "same",
    ]

    /// The demo's DAO and cache values through the CLI with `key`: the outputs, or nil for a failure.
    func cliReads(with key: String) throws -> [String?] {
        let message = try CLI.run(["dao", "call", root + "/examples/messages.xml", "getMessage", "--args", "[4]", "--create", "--user", "alice",
                                   "--json", "--root", root, "--key", key])
        let token = try CLI.run(["cache", "get", "tokens", "refresh-token", "--root", root, "--key", key])
        let login = try CLI.run(["cache", "get", "tokens", "last-login", "--root", root, "--key", key])
        let content = message.status == 0 ? (try CLI.json(message.stdout) as? [String: Any])?["content"] as? String : nil
        return [content, token.status == 0 ? token.stdout : nil, login.status == 0 ? "read" : nil]
    }
}

@Suite struct RekeyCommandTests {
    @Test func everyKindOfEncryptedDataReadsWithTheNewKeyOnly() throws {
        let fixture = try RekeyFixture()
        let readBefore = try fixture.readEverything(with: fixture.demoKey)
        #expect(readBefore == RekeyFixture.expected, "the fixture reads before: \(readBefore)")
        let before = try fixture.cliReads(with: fixture.demoKey)
        #expect(before == ["Lunch tomorrow?", "\"refresh-7f3a9c\"\n", "read"])

        let rekey = try fixture.rekey()
        #expect(rekey.status == 0, "\(rekey.stderr)")
        #expect(try fixture.readEverything(with: RekeyFixture.newKey) == RekeyFixture.expected, "\(rekey.stdout)")
        #expect(try fixture.cliReads(with: RekeyFixture.newKey) == before)
        let withOld = try fixture.readEverything(with: fixture.demoKey)
        for (kind, value) in withOld where kind != "plain files" {
            #expect(value == "<error>", "\(kind) still opens with the old key")
        }
        #expect(try fixture.cliReads(with: fixture.demoKey) == [nil, nil, nil])

        // What moved, per store and kind.
        for line in ["common: 6 value(s) re-encrypted", "  kv: 2 value(s) re-encrypted", "  cache tokens: 2 value(s) re-encrypted",
                     "  files attachments: 2 value(s) re-encrypted", "user alice: 8 value(s) re-encrypted", "  dao messages: 5 value(s) re-encrypted",
                     "  files drafts: 1 value(s) re-encrypted", "version storage: 1 value(s) re-encrypted",
                     "caches: 1 value(s) re-encrypted", "Attachments/common.sqlite: 2 value(s) re-encrypted",
                     "storage \(fixture.outside): 1 value(s) re-encrypted", "user bob@example.com: 1 value(s) re-encrypted"] {
            #expect(rekey.stdout.contains(line), "missing \(line) in \(rekey.stdout)")
        }
        #expect(!rekey.stdout.contains("plainlogs"), "a plain service is left alone")
        #expect(rekey.stdout.contains("total: 20 value(s) re-encrypted"), "\(rekey.stdout)")
    }

    @Test func aRerunIsANoOpThatSaysSo() throws {
        let fixture = try RekeyFixture()
        let first = try fixture.rekey(["--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let summary = try #require(try CLI.json(first.stdout) as? [String: Any])
        let moved = try #require(summary["moved"] as? Int)
        #expect(moved == 20 && summary["alreadyDone"] as? Int == 0 && summary["failed"] as? Int == 0)
        let common = try #require((summary["stores"] as? [[String: Any]])?.first)
        #expect(Set(common.keys) == ["name", "path", "moved", "alreadyDone", "error", "kinds"])
        #expect(common["name"] as? String == "common" && common["error"] is NSNull)
        let kinds = try #require(common["kinds"] as? [[String: Any]])
        #expect(kinds.first.map { Set($0.keys) } == ["kind", "name", "moved", "alreadyDone"])
        #expect(kinds.first?["kind"] as? String == "kv" && kinds.first?["name"] is NSNull)

        let files = try Self.storeFiles(fixture)
        let second = try fixture.rekey()
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("nothing to do: every value is under the new key already (\(moved) value(s)"), "\(second.stdout)")
        #expect(second.stdout.contains("common: 0 value(s) re-encrypted, 6 already under the new key"), "\(second.stdout)")
        #expect(try Self.storeFiles(fixture) == files, "a rerun writes nothing")
        let third = try #require(try CLI.json(try fixture.rekey(["--json"]).stdout) as? [String: Any])
        #expect(third["moved"] as? Int == 0 && third["alreadyDone"] as? Int == moved)
        #expect(try fixture.readEverything(with: RekeyFixture.newKey) == RekeyFixture.expected)
    }

    /// The encrypted bytes of the common store, as a fingerprint of what a rerun might rewrite.
    static func storeFiles(_ fixture: RekeyFixture) throws -> [String] {
        let db = try Database(path: fixture.root + "/common.sqlite", mode: .readOnly)
        return try db.query("SELECT hex(value) FROM datacenter_kv WHERE options & 1 UNION ALL SELECT hex(data) FROM files_attachments")
            .compactMap { $0[0].stringValue }
    }

    @Test func aStoreThatFailsIsLeftUnchangedAndTheOthersMove() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        #expect(try CLI.run(["kv", "set", "s", "a", "one", "--encrypt", "--key", TestKeys.first, "--root", root]).status == 0)
        #expect(try CLI.run(["kv", "set", "s", "b", "two", "--encrypt", "--create", "--user", "u1", "--key", TestKeys.first, "--root", root]).status == 0)
        let third = String(repeating: "ef", count: 32)
        #expect(try CLI.run(["kv", "set", "s", "c", "three", "--encrypt", "--key", third, "--root", root]).status == 0)
        let before = try Database(path: root + "/common.sqlite", mode: .readOnly).query("SELECT hex(value) FROM datacenter_kv ORDER BY key")
            .compactMap { $0[0].stringValue }
        let rekey = try CLI.run(["rekey", "--from", TestKeys.first, "--to", TestKeys.second, "--root", root])
        #expect(rekey.status == 1)
        #expect(rekey.stderr.contains("error: common (") && rekey.stderr.contains("kv s/c: wrong key"), "\(rekey.stderr)")
        #expect(rekey.stderr.contains("left unchanged"))
        #expect(rekey.stdout.contains("user u1: 1 value(s) re-encrypted"), "\(rekey.stdout)")
        let after = try Database(path: root + "/common.sqlite", mode: .readOnly).query("SELECT hex(value) FROM datacenter_kv ORDER BY key")
            .compactMap { $0[0].stringValue }
        #expect(after == before, "the failed store is byte for byte as it was")
        #expect(try CLI.run(["kv", "get", "s", "b", "--user", "u1", "--key", TestKeys.second, "--root", root]).stdout == "two\n")
        // Given the missing key, a rerun finishes: the user store is done, the common one moves.
        let rerun = try CLI.run(["rekey", "--from", TestKeys.first, "--from", third, "--to", TestKeys.second, "--root", root])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stdout.contains("common: 2 value(s) re-encrypted"), "\(rerun.stdout)")
        #expect(rerun.stdout.contains("user u1: 0 value(s) re-encrypted, 1 already under the new key"), "\(rerun.stdout)")
        #expect(try CLI.run(["kv", "get", "s", "c", "--key", TestKeys.second, "--root", root]).stdout == "three\n")
    }

    /// A store that fails is named as the user named the root (a relative root stays
    /// relative), its path once, not the absolute path twice.
    @Test func aFailedStoreIsNamedUnderTheRootAsGiven() throws {
        let scratch = TemporaryFolder()
        #expect(try CLI.run(["kv", "set", "s", "k", "v", "--encrypt", "--key", TestKeys.first, "--root", scratch.file("root")]).status == 0)
        #expect(try CLI.run(["users", "switch", "--create", "alice", "--root", scratch.file("root")]).status == 0)
        try FileManager.default.createDirectory(atPath: scratch.file("root/users/alice"), withIntermediateDirectories: true)
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: scratch.file("root/users/alice/user.sqlite")))
        let result = try CLI.run(["rekey", "--root", "root", "--to", TestKeys.second, "--key", TestKeys.first], directory: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("error: user alice (root/users/alice/user.sqlite): not a SQLite database"), "\(result.stderr)")
        #expect(!result.stderr.contains(scratch.path), "\(result.stderr)")
    }
}
