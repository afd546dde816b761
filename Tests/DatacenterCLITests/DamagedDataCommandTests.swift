import DatacenterKit
import Foundation
import Testing

/// One damaged row or store never hides the rest: `kv list` marks the row, `overview` and
/// `clean` report the store and carry on (exit status 0, a warning on stderr).
@Suite struct DamagedDataCommandTests {
    /// A root with a common store holding `a`, a row of unknown encoding and `c`.
    private func rootWithADamagedRow(_ scratch: TemporaryFolder) throws -> String {
        let root = scratch.file("root")
        #expect(try CLI.run(["kv", "set", "b", "a", "one", "--root", root]).status == 0)
        #expect(try CLI.run(["kv", "set", "b", "c", "three", "--root", root]).status == 0)
        let db = try Database(path: root + "/common.sqlite", mode: .readWriteExisting)
        try db.execute("INSERT INTO datacenter_kv VALUES ('b', 'b-weird', 'x', 'no-such-encoding', 0, 0)")
        try db.execute("INSERT INTO datacenter_kv VALUES ('b', 'b2-plist', X'0badbeef', 'plist', 0, 0)")
        return root
    }

    @Test func kvListMarksADamagedRowAndListsTheOthers() throws {
        let scratch = TemporaryFolder()
        let root = try rootWithADamagedRow(scratch)
        let list = try CLI.run(["kv", "list", "--root", root])
        #expect(list.status == 0, "\(list.stderr)")
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 6, "\(list.stdout)")
        #expect(lines.contains { $0.hasPrefix("b ") && $0.contains(" a ") && $0.hasSuffix("one") }, "\(list.stdout)")
        #expect(lines.contains { $0.contains("b-weird") && $0.hasSuffix("<damaged: unknown encoding 'no-such-encoding'>") },
                "\(list.stdout)")
        #expect(lines.contains { $0.contains("b2-plist") && $0.contains("<damaged: not a valid property list") }, "\(list.stdout)")
        #expect(lines.contains { $0.contains(" c ") && $0.hasSuffix("three") }, "\(list.stdout)")
        #expect(list.stderr == "warning: 2 damaged entries listed as <damaged: reason> (the others are intact)\n")

        let json = try CLI.run(["kv", "list", "--json", "--root", root])
        #expect(json.status == 0, "\(json.stderr)")
        let array = try #require(try CLI.json(json.stdout) as? [[String: Any]])
        #expect(array.map { $0["key"] as? String } == ["a", "b-weird", "b2-plist", "c"])
        #expect(array[1]["damaged"] as? String == "unknown encoding 'no-such-encoding'")
        #expect(array[1]["type"] as? String == "no-such-encoding")
        #expect(array[1]["value"] is NSNull)
        #expect((array[2]["damaged"] as? String)?.hasPrefix("not a valid property list") == true)
        #expect(array[2]["locked"] == nil)

        let get = try CLI.run(["kv", "get", "b", "b2-plist", "--root", root])
        #expect(get.status == 1)
        #expect(get.stderr.contains("not a valid property list"), "\(get.stderr)")
        #expect(!get.stderr.contains("NSCocoaErrorDomain") && !get.stderr.contains("couldn"), "\(get.stderr)")
    }

    /// A root with users alice and bob, bob's store overwritten with text.
    private func rootWithADamagedUserStore(_ scratch: TemporaryFolder) throws -> (root: String, bob: String) {
        let root = scratch.file("root")
        #expect(try CLI.run(["kv", "set", "b", "k", "v", "--purgeable", "--root", root]).status == 0)
        #expect(try CLI.run(["kv", "set", "b", "k", "v", "--purgeable", "--create", "--user", "alice", "--root", root]).status == 0)
        #expect(try CLI.run(["kv", "set", "b", "k", "v", "--create", "--user", "bob", "--root", root]).status == 0)
        let bob = root + "/users/bob/user.sqlite"
        try Data(String(repeating: "garbage, not a database\n", count: 200).utf8).write(to: URL(fileURLWithPath: bob))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: bob + suffix) }
        return (root, bob)
    }

    @Test func overviewListsADamagedStoreWithItsReason() throws {
        let scratch = TemporaryFolder()
        let (root, bob) = try rootWithADamagedUserStore(scratch)
        let overview = try CLI.run(["overview", "--root", root])
        #expect(overview.status == 0, "\(overview.stderr)")
        #expect(overview.stdout.contains("user alice: "), "\(overview.stdout)")
        #expect(overview.stdout.contains("user bob: \(bob)\n  damaged: not a SQLite database, or damaged"), "\(overview.stdout)")
        #expect(overview.stderr.hasPrefix("warning: 1 damaged store"), "\(overview.stderr)")
    }

    @Test func cleanSkipsADamagedStoreAndCleansTheOthers() throws {
        let scratch = TemporaryFolder()
        let (root, bob) = try rootWithADamagedUserStore(scratch)
        let clean = try CLI.run(["clean", "--json", "--root", root])
        #expect(clean.status == 0, "\(clean.stderr)")
        let object = try #require(try CLI.json(clean.stdout) as? [String: Any])
        let tasks = try #require(object["tasks"] as? [[String: Any]])
        #expect(tasks.first?["items"] as? Int == 2)
        #expect((object["damagedStores"] as? [[String: Any]])?.first?["path"] as? String == bob)
        #expect(clean.stderr.contains("warning: \(bob): damaged, skipped: not a SQLite database"), "\(clean.stderr)")
        #expect(try CLI.run(["kv", "get", "b", "k", "--user", "alice", "--root", root]).status == 1)
    }
}
