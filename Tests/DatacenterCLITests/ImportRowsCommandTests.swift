import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation
import Testing

/// `datacenter import FILE DB --csv/--jsonl --table T`: rows into a table, checked against
/// the sqlite3 shell's `.import` of the same file; a bad record writes nothing.
@Suite struct ImportRowsCommandTests {
    /// A CSV the shell and we must read alike: a byte-order mark, CRLF, quoted commas,
    /// a line break and a doubled quote inside quotes, an empty field, non-ASCII text.
    static let tricky = "\u{FEFF}id,name,amount\r\n1,\"a, b\",2.5\r\n2,\"multi\nline\",10\r\n3,\"quo\"\"te\",\r\n4,héllo 日本,-1\r\n"

    @Test func csvGivesTheRowsTheShellsImportGives() throws {
        let folder = TemporaryFolder()
        let csv = folder.file("t.csv")
        try Self.tricky.write(toFile: csv, atomically: true, encoding: .utf8)
        let ours = folder.file("ours.db"), theirs = folder.file("theirs.db")
        let result = try CLI.run(["import", csv, ours, "--csv", "--table", "t"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "imported 4 rows into t\n")
        _ = try sqlite3Shell(theirs, ".import --csv \(csv) t")
        let query = "select quote(id), quote(name), quote(amount) from t order by rowid"
        #expect(try sqlite3Shell(ours, query) == (try sqlite3Shell(theirs, query)))
        #expect(try sqlite3Shell(ours, "select count(*) from t") == "4")
        // The same columns, typed as the shell types them (TEXT).
        #expect(try sqlite3Shell(ours, "select group_concat(name || ' ' || type, ', ') from pragma_table_info('t')")
                == (try sqlite3Shell(theirs, "select group_concat(name || ' ' || type, ', ') from pragma_table_info('t')")))
    }

    @Test func typesAndAnExistingTableMapTheHeaderByName() throws {
        let folder = TemporaryFolder()
        let csv = folder.file("t.csv")
        try "amount,id\n2.5,1\n10,2\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let db = folder.file("t.db")
        #expect(try CLI.run(["import", csv, db, "--csv", "--table", "t", "--types", "id:INTEGER,amount:REAL"]).status == 0)
        #expect(try sqlite3Shell(db, "select id, typeof(id), amount, typeof(amount) from t order by id") == "1|integer|2.5|real\n2|integer|10.0|real")
        // Into the table that exists now: by name, whatever the order.
        try "id,amount\n3,7\n".write(toFile: csv, atomically: true, encoding: .utf8)
        #expect(try CLI.run(["import", csv, db, "--csv", "--table", "t"]).status == 0)
        #expect(try sqlite3Shell(db, "select amount from t where id = 3") == "7.0")
        // A header naming what the table lacks is refused, naming it.
        try "id,colour\n4,red\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let refused = try CLI.run(["import", csv, db, "--csv", "--table", "t"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("t has no column colour (its columns: amount, id)"), "\(refused.stderr)")
    }

    @Test func aBadRecordWritesNothingAndNamesFileLineAndColumn() throws {
        let folder = TemporaryFolder()
        let db = folder.file("t.db")
        _ = try sqlite3Shell(db, "create table t(a, b); insert into t values ('kept', 1)")
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let cases: [(String, String)] = [
            ("a,b\n1,2\n3\n", "bad.csv:3:1: 1 field where the header has 2"),
            ("a,b\n1,\"open\n2,3\n", "bad.csv:2:3: a quoted field is not closed"),
            ("a,b\n1,\"x\"y\n", "bad.csv:2:6: text after a closing quote"),
        ]
        for (text, message) in cases {
            let csv = folder.file("bad.csv")
            try text.write(toFile: csv, atomically: true, encoding: .utf8)
            let result = try CLI.run(["import", csv, db, "--csv", "--table", "t"])
            #expect(result.status == 1)
            #expect(result.stderr.contains(message) && result.stderr.contains("(nothing was imported)"), "\(result.stderr)")
            #expect(try sqlite3Shell(db, "select count(*) from t") == "1")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before, "the file is as it was")
        // A database the import would have created is not left behind.
        let fresh = folder.file("fresh.db")
        #expect(try CLI.run(["import", folder.file("bad.csv"), fresh, "--csv", "--table", "t"]).status == 1)
        #expect(!FileManager.default.fileExists(atPath: fresh))
    }

    @Test func jsonLinesKeepTheFirstObjectsKeyOrderAndTypes() throws {
        let folder = TemporaryFolder()
        let file = folder.file("rows.jsonl")
        try "{\"name\": \"a\", \"n\": 1, \"tags\": [\"x\"]}\n\n{\"n\": 2.5, \"name\": null}\n".write(toFile: file, atomically: true, encoding: .utf8)
        let db = folder.file("t.db")
        let result = try CLI.run(["import", file, db, "--jsonl", "--table", "t", "--types", "n:NUMERIC"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try sqlite3Shell(db, "select group_concat(name, ',') from pragma_table_info('t')") == "name,n,tags")
        #expect(try sqlite3Shell(db, "select quote(name), quote(n), quote(tags) from t order by rowid") == "'a'|1|'[\"x\"]'\nNULL|2.5|NULL")
        try "{\"n\": 3, \"other\": 1}\n".write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try CLI.run(["import", file, db, "--jsonl", "--table", "t"])
        #expect(refused.stderr.contains("rows.jsonl:1:1: t has no column other (its columns: name, n, tags)"), "\(refused.stderr)")
        // A later line with a key the first line has not: refused at its line, nothing written.
        try "{\"n\": 3}\n{\"n\": 4, \"name\": \"z\"}\n".write(toFile: file, atomically: true, encoding: .utf8)
        let later = try CLI.run(["import", file, db, "--jsonl", "--table", "t"])
        #expect(later.stderr.contains("rows.jsonl:2:1: the key name is not a column of the first line's (n)"), "\(later.stderr)")
        #expect(try sqlite3Shell(db, "select count(*) from t") == "2")
    }

    /// JSON numbers are stored as written, as SQLite's own JSON functions read them: `1.0`
    /// and `1e3` reals, `1` and 2^53 + 1 exact integers, past 64 bits a real (before, `1.0` was
    /// stored as 1 and 2^53 + 1 as the real next to it).
    @Test func jsonNumbersAreStoredAsSQLitesJSONReadsThem() throws {
        let folder = TemporaryFolder()
        let file = folder.file("numbers.jsonl")
        let line = #"{"a": 1.0, "b": 1, "c": 9007199254740993, "d": 1e3, "e": 12345678901234567890, "f": -0.5}"#
        try (line + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let db = folder.file("n.db")
        let result = try CLI.run(["import", file, db, "--jsonl", "--table", "t", "--types", "a:BLOB,b:BLOB,c:BLOB,d:BLOB,e:BLOB,f:BLOB"])
        #expect(result.status == 0, "\(result.stderr)")
        let stored = try sqlite3Shell(db, "SELECT typeof(a), quote(a), typeof(b), quote(b), typeof(c), quote(c), typeof(d), quote(d), typeof(e), typeof(f), quote(f) FROM t")
        let json = "'" + line + "'"
        let read = ["a", "b", "c", "d"].map { "typeof(json_extract(\(json), '$.\($0)')), quote(json_extract(\(json), '$.\($0)'))" }
            + ["typeof(json_extract(\(json), '$.e'))", "typeof(json_extract(\(json), '$.f'))", "quote(json_extract(\(json), '$.f'))"]
        let sqlite = try sqlite3Shell(db, "SELECT " + read.joined(separator: ", "))
        #expect(stored == sqlite, "stored \(stored), SQLite's JSON reads \(sqlite)")
        #expect(stored.hasPrefix("real|1.0|integer|1|integer|9007199254740993|real|1000.0|real|real|-0.5"), "\(stored)")
    }

    @Test func theFlagsGoTogetherOrAreRefused() throws {
        let folder = TemporaryFolder()
        let db = folder.file("t.db")
        #expect(try CLI.run(["import", "/dev/null", db, "--csv"]).stderr.contains("--csv needs --table NAME"))
        #expect(try CLI.run(["import", "/dev/null", db, "--table", "t"]).stderr.contains("--table, --types and --config go with --csv or --jsonl"))
        #expect(try CLI.run(["import", "/dev/null", db, "--csv", "--jsonl", "--table", "t"]).status == 2)
        #expect(try CLI.run(["import", "/dev/null", db, "--csv", "--table", "t", "--types", "nope"]).stderr.contains("NAME:TYPE pairs"))
    }

    /// With `--config`, the crypt columns of the table's DAO config are encrypted on the way
    /// in, with the first key; never stored as plaintext.
    @Test func cryptColumnsOfTheConfigAreEncryptedOnTheWayIn() throws {
        let folder = TemporaryFolder()
        let config = folder.file("messages.xml")
        try DAOExamples.messages.write(toFile: config, atomically: true, encoding: .utf8)
        let csv = folder.file("m.csv")
        try "conversation,sender,time,content\nteam,alice,1,top secret\nteam,bob,2,\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let db = folder.file("m.db")
        _ = try sqlite3Shell(db, "create table messages (id integer primary key, conversation, sender, time, content, read default 0, starred default 0)")
        let key = DemoStore.key
        let keyHex = key.hexString
        let withoutKey = try CLI.run(["import", csv, db, "--csv", "--table", "messages", "--config", config])
        #expect(withoutKey.status == 1 && withoutKey.stderr.contains("importing needs a --key"), "\(withoutKey.stderr)")
        let result = try CLI.run(["import", csv, db, "--csv", "--table", "messages", "--config", config, "--key", keyHex])
        #expect(result.status == 0, "\(result.stderr)")
        let stored = try Database(path: db).query("select content from messages order by id").map { $0.values[0] }
        #expect(stored.count == 2)
        // CSV has no NULL: an empty field is the empty text, as the shell reads it, encrypted too.
        #expect(try CryptColumn.plaintext(of: stored[1], with: KeyRing([key])) == .text(""))
        guard case .blob(let ciphertext) = stored[0] else { Issue.record("stored as \(stored[0])"); return }
        #expect(ciphertext.range(of: Data("top secret".utf8)) == nil, "never plaintext")
        #expect(try CryptColumn.plaintext(of: stored[0], with: KeyRing([key])) == .text("top secret"))
    }
}
