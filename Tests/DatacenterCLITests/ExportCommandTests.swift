import DatacenterKit
import Foundation
import Testing

/// `datacenter export` on the demo root, whose `messages` DAO table (alice's store) keeps
/// its `content` column encrypted.
@Suite struct ExportCommandTests {
    static let key = BrowseTmuxTests.demoKey

    private func demo(_ scratch: TemporaryFolder) throws -> String {
        let root = scratch.file("demo")
        #expect(try CLI.run(["demo", root]).status == 0)
        return root
    }

    @Test func encryptedColumnsAreDecryptedOrRefused() throws {
        let scratch = TemporaryFolder()
        let root = try demo(scratch)
        let refused = try CLI.run(["export", root, "messages", "--user", "alice"])
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("encrypted columns (content)") && refused.stderr.contains("--key") && refused.stderr.contains("--raw"))

        let csv = try CLI.run(["export", root, "messages", "--user", "alice", "--key", Self.key,
                               "--where", "conversation = 'team'", "--order-by", "id DESC"])
        #expect(csv.status == 0)
        let lines = csv.stdout.split(separator: "\n")
        #expect(lines.first == "id,conversation,sender,time,content,read,starred")
        #expect(lines.count == 4)
        #expect(lines[1].hasPrefix("3,team,carol,") && lines[1].contains("\"I'll bring the slides\""))

        let wrongKey = try CLI.run(["export", root, "messages", "--user", "alice", "--key", String(repeating: "7", count: 64)])
        #expect(wrongKey.status == 1)
        #expect(wrongKey.stderr.contains("row 1: column content does not decrypt"))
        #expect(!wrongKey.stdout.contains("bring the slides"))

        let raw = try CLI.run(["export", root, "messages", "--user", "alice", "--raw", "--format", "jsonl"])
        #expect(raw.status == 0)
        #expect(raw.stdout.contains(#""content":{"$blob":"#))
    }

    /// `-o` writes the whole file, private, in the format its name says; a failed export
    /// leaves the file that was there untouched.
    @Test func anOutputFileIsWrittenWholeOrNotAtAll() throws {
        let scratch = TemporaryFolder()
        let root = try demo(scratch)
        let out = scratch.file("messages.jsonl")
        let done = try CLI.run(["export", root, "messages", "--user", "alice", "--key", Self.key, "-o", out])
        #expect(done.status == 0)
        #expect(done.stderr.contains("exported 5 row(s) of messages to \(out)"))
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 5)
        #expect(text.contains(#""content":"I'll bring the slides""#))
        let mode = try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let failed = try CLI.run(["export", root, "messages", "--user", "alice", "--key", String(repeating: "7", count: 64), "-o", out])
        #expect(failed.status == 1)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == text)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func badArgumentsSayWhatIsWrong() throws {
        let scratch = TemporaryFolder()
        let root = try demo(scratch)
        let format = try CLI.run(["export", root, "notes", "-o", scratch.file("notes.txt")])
        #expect(format.status == 2)
        #expect(format.stderr.contains("cannot tell the format from"))
        let table = try CLI.run(["export", root, "nope"])
        #expect(table.status == 1)
        #expect(table.stderr.contains("has no table or view nope") && table.stderr.contains("notes"))
        let filter = try CLI.run(["export", root, "notes", "--where", "1; DROP TABLE notes"])
        #expect(filter.status == 1)
        #expect(filter.stderr.contains("cannot export with"))
        #expect(try CLI.run(["export", root, "notes"]).stdout.split(separator: "\n").count > 1)
        let user = try CLI.run(["export", root, "notes", "--user", "zed"])
        #expect(user.status == 1)
        #expect(user.stderr.contains("no user 'zed'"))
    }

    /// A table or column name holding escape sequences reaches the terminal escaped, as a
    /// value does: in `sql`'s header, in `export`'s list of tables and in its note.
    @Test func namesWithControlCharactersAreEscapedLikeValues() throws {
        let scratch = TemporaryFolder()
        let path = scratch.file("names.db")
        let table = "t\u{1B}[31mred", column = "c\u{07}ol"
        let db = try Database(path: path)
        try db.execute("CREATE TABLE \"\(table)\"(\"\(column)\" TEXT)")
        try db.execute("INSERT INTO \"\(table)\" VALUES ('v')")
        let query = try CLI.run(["sql", path, "SELECT * FROM \"\(table)\""])
        #expect(query.status == 0, "\(query.stderr)")
        #expect(query.stdout.hasPrefix("c\\u{7}ol\n"), "\(query.stdout.debugDescription)")
        let missing = try CLI.run(["export", path, "nope"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("(it has: t\\u{1b}[31mred)"), "\(missing.stderr.debugDescription)")
        let exported = try CLI.run(["export", path, table, "-o", scratch.file("out.csv")])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stderr.contains("of t\\u{1b}[31mred to"), "\(exported.stderr.debugDescription)")
        for output in [query.stdout, query.stderr, missing.stderr, exported.stderr] {
            #expect(!output.contains("\u{1B}") && !output.contains("\u{07}"), "\(output.debugDescription)")
        }
    }
}
