import DatacenterKit
import Foundation
import Testing

@Suite struct OtherCommandTests {
    @Test func helpListsTheCommandsAndExitsZero() throws {
        let help = try CLI.run(["--help"])
        #expect(help.status == 0)
        for command in ["users", "kv", "sql", "import", "demo", "bench", "rekey", "overview"] {
            #expect(help.stdout.contains(command), "help does not mention \(command)")
        }
    }

    @Test(arguments: [["frobnicate"], ["kv", "get", "onlybusiness"], ["kv", "set", "b", "k", "v", "--type", "color"]])
    func usageErrorsExitTwo(arguments: [String]) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 2)
        #expect(!result.stderr.isEmpty)
    }

    /// The global options may stand before the subcommand, even a nested one, and keys given on
    /// both sides of it all count.
    @Test func globalOptionsMayPrecedeTheSubcommand() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("demo")
        let demo = try CLI.run(["demo", root])
        #expect(demo.status == 0, "\(demo.stderr)")
        let key = try #require(demo.stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        let after = try CLI.run(["kv", "list", "--json", "--root", root, "--key", key])
        let before = try CLI.run(["--root", root, "--key", key, "kv", "list", "--json"])
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout == after.stdout)
        #expect(before.stdout.contains("\"encrypted\""))
        // A wrong key before the subcommand and the right one after: the right one still opens.
        let split = try CLI.run(["--root=" + root, "--key", TestKeys.first, "kv", "list", "--json", "--key", key])
        #expect(split.stdout == after.stdout)
        // Without the key the same values stay locked, so the comparison above means something.
        let locked = try CLI.run(["--root", root, "kv", "list", "--json"])
        #expect(locked.stdout != after.stdout)
        // A bad global option before the subcommand is a usage error.
        let bad = try CLI.run(["--busy-timeout=-1", "--root", root, "users"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--busy-timeout"))
    }

    /// No subcommand prints the help and succeeds, as `--help` does.
    @Test func noSubcommandPrintsTheHelp() throws {
        let bare = try CLI.run([])
        #expect(bare.status == 0)
        #expect(bare.stdout.contains("SUBCOMMANDS"))
        #expect(bare.stderr.isEmpty, "\(bare.stderr)")
    }

    @Test func usersListAndSwitch() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        #expect(try CLI.run(["users", "switch", "--create", "ann", "--root", root]).status == 0)
        #expect(try CLI.run(["users", "switch", "--create", "bob/../x", "--root", root]).status == 0)
        let listed = try CLI.run(["users", "--root", root])
        #expect(listed.stdout == "* bob/../x\n  ann\n" || listed.stdout == "  ann\n* bob/../x\n")
        let json = try #require(try CLI.json(try CLI.run(["users", "list", "--json", "--root", root]).stdout) as? [[String: Any]])
        let current = json.filter { $0["current"] as? Bool == true }.compactMap { $0["id"] as? String }
        #expect(current == ["bob/../x"])
        // The odd id stays inside the root.
        let users = try FileManager.default.contentsOfDirectory(atPath: root + "/users")
        #expect(users.allSatisfy { !$0.contains("/") && !$0.hasPrefix(".") })
        #expect(!FileManager.default.fileExists(atPath: root + "/x"))
    }

    @Test func emptyUserIdIsRefused() throws {
        let scratch = TemporaryFolder()
        let result = try CLI.run(["users", "switch", "--create", "", "--root", scratch.file("root")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("user id"))
    }

    @Test func missingRootIsAClearError() throws {
        let result = try CLI.run(["kv", "list", "--root", "/nonexistent/datacenter-root"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("/nonexistent/datacenter-root"))
    }

    @Test func sqlPrintsRowsAsJSONWithBlobs() throws {
        let scratch = TemporaryFolder()
        let db = scratch.file("t.db")
        let create = try CLI.run(["import", "/dev/null", db])
        #expect(create.status == 0, "\(create.stderr)")
        let setup = try CLI.run(["sql", db, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, data BLOB, r REAL); INSERT INTO t VALUES (1, 'a''b', X'00FF', 1.5), (2, NULL, NULL, NULL)"])
        #expect(setup.status == 0, "\(setup.stderr)")
        let rows = try #require(try CLI.json(try CLI.run(["sql", db, "SELECT * FROM t ORDER BY id", "--json"]).stdout) as? [[String: Any]])
        #expect(rows.count == 2)
        #expect(rows[0]["name"] as? String == "a'b")
        #expect((rows[0]["data"] as? [String: String])?["$blob"] == "AP8=")
        #expect(rows[0]["r"] as? Double == 1.5)
        #expect(rows[1]["name"] is NSNull)
    }

    /// Statements with different columns: a table with its own header each, in order, and
    /// no crash when an earlier one has more columns than the last (it did: SIGILL, exit 132).
    @Test func sqlPrintsATableWithAHeaderPerStatement() throws {
        let scratch = TemporaryFolder()
        let db = scratch.file("t.db")
        #expect(try CLI.run(["import", "/dev/null", db]).status == 0)
        let result = try CLI.run(["sql", db, "SELECT 1 AS a, 2 AS b, 3 AS c; SELECT 4 AS d; SELECT 'x' AS e, 'y' AS f"])
        #expect(result.status == 0, "exit \(result.status): \(result.stderr.prefix(300))")
        #expect(result.stdout == "a  b  c\n-  -  -\n1  2  3\n\nd\n-\n4\n\ne  f\n-  -\nx  y\n", "\(result.stdout)")
        // JSON keeps one array of every statement's rows, each with its own columns.
        let json = try #require(try CLI.json(try CLI.run(["sql", db, "SELECT 1 AS a, 2 AS b; SELECT 4 AS d", "--json"]).stdout) as? [[String: Any]])
        #expect(json.count == 2 && json[0]["b"] as? Int == 2 && json[1]["d"] as? Int == 4 && json[1]["a"] == nil)
    }

    /// With HOME set (and no XDG_DATA_HOME), the default root and the demo live under it, not
    /// under the passwd entry's home: the demo built there is the one `overview` then finds.
    @Test func theDefaultRootAndDemoFollowHome() throws {
        let scratch = TemporaryFolder()
        let home = scratch.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let environment = ["HOME": home, "XDG_DATA_HOME": "", "XDG_STATE_HOME": "", "DATACENTER_ROOT": ""]
        let demo = try CLI.run(["demo"], environment: environment)
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(FileManager.default.fileExists(atPath: home + "/.local/share/datacenter/demo/datacenter.json"))
        let missing = try CLI.run(["overview"], environment: environment)
        #expect(missing.stderr.contains("no data-center root at \(home)/.local/share/datacenter/Preferences"), "\(missing.stderr)")
        let xdg = try CLI.run(["overview"], environment: ["HOME": home, "XDG_DATA_HOME": scratch.file("data"), "DATACENTER_ROOT": ""])
        #expect(xdg.stderr.contains("no data-center root at \(scratch.file("data"))/datacenter/Preferences"), "\(xdg.stderr)")
    }

    @Test func overviewJSONListsEveryStoreWithItsBusinessesTablesAndDamage() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("demo")
        #expect(try CLI.run(["demo", root]).status == 0)
        let bob = root + "/users/bob%40example.com/user.sqlite"
        try Data(repeating: 0x5A, count: 3000).write(to: URL(fileURLWithPath: bob))
        let result = try CLI.run(["overview", "--root", root, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try CLI.json(result.stdout) as? [String: Any])
        #expect(object["root"] as? String == root && object["currentUser"] as? String == "alice")
        let stores = try #require(object["stores"] as? [[String: Any]])
        #expect(stores.map { $0["kind"] as? String } == ["common", "user", "user", "version"], "\(stores.map { $0["name"] ?? "" })")
        let alice = try #require(stores.first { $0["user"] as? String == "alice" })
        #expect(alice["current"] as? Bool == true && alice["damaged"] is NSNull)
        let tables = try #require(alice["tables"] as? [[String: Any]])
        #expect(tables.contains { $0["name"] as? String == "messages" && $0["rows"] as? Int == 5 }, "\(tables)")
        let kv = try #require((stores.first { $0["kind"] as? String == "common" })?["kv"] as? [[String: Any]])
        #expect(kv.contains { $0["business"] as? String == "session" && $0["count"] as? Int == 3 && $0["locked"] as? Int == 2 }, "\(kv)")
        let damaged = try #require(stores.first { $0["user"] as? String == "bob@example.com" })
        #expect((damaged["damaged"] as? String)?.isEmpty == false, "\(damaged)")
        #expect(result.stderr.contains("1 damaged store(s)"))
    }

    @Test func sqlReadOnlyWritesNoFileAtAll() throws {
        let scratch = TemporaryFolder()
        let db = scratch.file("p.db")
        #expect(try CLI.run(["sql", scratch.file("none.db"), "SELECT 1"]).status == 1)
        #expect(try CLI.run(["import", "/dev/null", db]).status == 0)
        let target = scratch.file("x.db")
        let result = try CLI.run(["sql", db, "vacuum into '\(target)'", "--read-only"])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stderr.contains("is open read-only"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func theDemosExamplesArePrivateAsEveryFileTheEngineMakes() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("demo")
        #expect(try CLI.run(["demo", root]).status == 0)
        func mode(_ path: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? 0) & 0o777
        }
        #expect(try mode(root + "/examples") == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: root + "/examples")
        #expect(!files.isEmpty)
        for file in files { #expect(try mode(root + "/examples/" + file) == 0o600, "\(file)") }
    }

    @Test func aMisspelledSubcommandGetsADidYouMean() throws {
        for (arguments, expected) in [(["users", "swtich", "bob"], "unknown subcommand 'swtich' of 'datacenter users': did you mean 'switch'?"),
                                      (["dao", "lnt", "x.xml"], "did you mean 'lint'?"),
                                      (["overveiw"], "did you mean 'overview'?")] {
            let result = try CLI.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
        }
    }

    @Test func aNegativeNumberAsAValueGetsAHint() throws {
        let result = try CLI.run(["kv", "set", "s", "k", "-42", "--type", "int", "--root", TemporaryFolder().file("root")])
        #expect(result.status == 2)
        #expect(result.stderr.contains("hint: '-42' is read as an option") && result.stderr.contains("-- -42"), "\(result.stderr)")
        // Right after an option, the number is meant as that option's value: `=` is the way.
        let option = try CLI.run(["overview", "--busy-timeout", "-1", "--root", TemporaryFolder().file("root")])
        #expect(option.status == 2)
        #expect(option.stderr.contains("hint: '-1' is read as an option, not as the value of --busy-timeout; write --busy-timeout=-1"),
                "\(option.stderr)")
        #expect(!option.stderr.contains("kv set"), "\(option.stderr)")
    }

    @Test func aFolderGivenAsAFileIsNamedAsAFolder() throws {
        let scratch = TemporaryFolder()
        let folder = scratch.file("a-folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let methods = try CLI.run(["dao", "methods", folder])
        #expect(methods.status == 1 && methods.stderr.contains("\(folder):1:1: error: cannot read the config: not a regular file (a folder)"),
                "\(methods.stderr)")
        let sql = try CLI.run(["sql", folder, "SELECT 1"])
        #expect(sql.status == 1 && sql.stderr == "error: \(folder): not a regular file (a folder)\n", "\(sql.stderr)")
    }

    @Test func sqlOnAMissingOrNonDatabaseFileFails() throws {
        let scratch = TemporaryFolder()
        let missing = try CLI.run(["sql", scratch.file("none.db"), "SELECT 1"])
        #expect(missing.status == 1)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("none.db")))
        let junk = scratch.file("junk.db")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: junk))
        let result = try CLI.run(["sql", junk, "SELECT 1"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("not a SQLite database"))
        #expect(result.stderr.contains(junk))
    }

    @Test func sqlReportsTheFailingStatement() throws {
        let scratch = TemporaryFolder()
        let db = scratch.file("t.db")
        _ = try CLI.run(["import", "/dev/null", db])
        let result = try CLI.run(["sql", db, "SELECT * FROM missing_table"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no such table: missing_table"))
    }

    @Test func importStopsAtABrokenStatementNamingItsLine() throws {
        let scratch = TemporaryFolder()
        let dump = scratch.file("dump.sql")
        try """
            CREATE TABLE t(a);
            INSERT INTO t VALUES (1);
            INSERT INTO t VALUES (2

            INSERT INTO nowhere VALUES (3);
            INSERT INTO t VALUES (4);
            """.write(toFile: dump, atomically: true, encoding: .utf8)
        let db = scratch.file("t.db")
        let result = try CLI.run(["import", dump, db])
        #expect(result.status == 1)
        #expect(result.stderr.contains("dump.sql:3:"))
        #expect(result.stderr.contains("nothing was imported"))
        // The database the import created is gone again: a failed import leaves nothing.
        #expect(!FileManager.default.fileExists(atPath: db))
        #expect(!FileManager.default.fileExists(atPath: db + "-journal"))
    }

    @Test func aFailedImportIntoAnExistingDatabaseKeepsItAsItWas() throws {
        let scratch = TemporaryFolder()
        let db = scratch.file("t.db")
        _ = try CLI.run(["import", "/dev/null", db])
        #expect(try CLI.run(["sql", db, "CREATE TABLE t(a); INSERT INTO t VALUES (1)"]).status == 0)
        let dump = scratch.file("dump.sql")
        try "INSERT INTO t VALUES (2);\nROLLBACK;\nINSERT INTO t VALUES (3);\n".write(toFile: dump, atomically: true, encoding: .utf8)
        let result = try CLI.run(["import", dump, db])
        #expect(result.status == 1)
        #expect(result.stderr.contains("dump.sql:2: ROLLBACK would end the import's one transaction"))
        #expect(FileManager.default.fileExists(atPath: db))
        #expect(try CLI.run(["sql", db, "SELECT group_concat(a) AS a FROM t", "--json"]).stdout.contains(#""a":"1""#))
    }

    @Test func sqlRunsSeveralStatementsAllOrNothing() throws {
        let scratch = TemporaryFolder()
        let db = scratch.file("t.db")
        _ = try CLI.run(["import", "/dev/null", db])
        #expect(try CLI.run(["sql", db, "CREATE TABLE t(a)"]).status == 0)
        let failed = try CLI.run(["sql", db, "INSERT INTO t VALUES (1); INSERT INTO nosuch VALUES (2)"])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("no such table: nosuch"))
        #expect(try CLI.run(["sql", db, "SELECT count(*) AS n FROM t", "--json"]).stdout.contains(#""n":0"#))
        // A script that manages its own transactions runs as written; one statement runs alone.
        let own = try CLI.run(["sql", db, "BEGIN; INSERT INTO t VALUES (1); COMMIT; INSERT INTO t VALUES (2)"])
        #expect(own.status == 0, "\(own.stderr)")
        #expect(try CLI.run(["sql", db, "VACUUM"]).status == 0)
        #expect(try CLI.run(["sql", db, "SELECT count(*) AS n FROM t", "--json"]).stdout.contains(#""n":2"#))
    }

    @Test func importCanContinuePastFailures() throws {
        let scratch = TemporaryFolder()
        let dump = scratch.file("dump.sql")
        try "CREATE TABLE t(a);\nINSERT INTO t VALUES (1);\nINSERT INTO nowhere VALUES (3);\nINSERT INTO t VALUES (4);\n"
            .write(toFile: dump, atomically: true, encoding: .utf8)
        let db = scratch.file("t.db")
        let result = try CLI.run(["import", dump, db, "--continue-on-error"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("dump.sql:3:"))
        #expect(result.stdout.contains("imported 3 statement(s), skipped 1"))
        let count = try CLI.run(["sql", db, "SELECT count(*) AS n FROM t", "--json"])
        #expect(count.stdout.contains(#""n":2"#))
    }

    /// A demo built from a relative path records absolute config paths (the DAO panel finds
    /// them from any folder), and each store file holds its data without its `-wal` file.
    @Test func aDemoIsSelfContainedAndFoundFromAnywhere() throws {
        let scratch = TemporaryFolder()
        #expect(try CLI.run(["demo", "rel-demo"], directory: scratch.path).status == 0)
        let root = scratch.file("rel-demo")
        let recorded = try CLI.run(["sql", root + "/users/alice/user.sqlite", "SELECT config_path FROM datacenter_dao_tables", "--json"])
        let paths = (try CLI.json(recorded.stdout) as? [[String: Any]])?.compactMap { $0["config_path"] as? String } ?? []
        #expect(!paths.isEmpty)
        for path in paths {
            #expect(path.hasPrefix("/"), "relative config path \(path)")
            #expect(FileManager.default.fileExists(atPath: path))
        }
        // Copy the store file alone: its data comes along.
        let copy = scratch.file("copy.sqlite")
        try FileManager.default.copyItem(atPath: root + "/common.sqlite", toPath: copy)
        let notes = try CLI.run(["sql", copy, "SELECT count(*) AS n FROM notes", "--json"])
        #expect(notes.stdout.contains(#""n":3"#), "\(notes.stdout) \(notes.stderr)")
        let size = ((try? FileManager.default.attributesOfItem(atPath: root + "/common.sqlite-wal"))?[.size] as? Int) ?? 0
        #expect(size == 0)
    }

    @Test func demoBuildsEveryKindOfValueAndRefusesToOverwrite() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("demo")
        let demo = try CLI.run(["demo", root])
        #expect(demo.status == 0, "\(demo.stderr)")
        let key = try #require(demo.stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        let users = try CLI.run(["users", "--root", root])
        #expect(users.stdout.contains("* alice"))
        #expect(users.stdout.contains("bob@example.com"))
        let listed = try #require(try CLI.json(try CLI.run(["kv", "list", "--json", "--key", key, "--root", root]).stdout) as? [[String: Any]])
        let types = Set(listed.compactMap { $0["type"] as? String })
        #expect(types == ["string", "int", "double", "bool", "plist", "archive", "json"])
        #expect(listed.contains { $0["encrypted"] as? Bool == true && $0["locked"] == nil })
        #expect(listed.contains { $0["purgeable"] as? Bool == true })
        #expect(listed.contains { $0["locked"] as? String == "custom crypt" })
        let again = try CLI.run(["demo", root])
        #expect(again.status == 1)
        #expect(try CLI.run(["demo", root, "--force"]).status == 0)
        let overview = try CLI.run(["overview", "--root", root])
        #expect(overview.stdout.contains("user alice (current)"))
        #expect(overview.stdout.contains("table notes: 3 row(s)"))
    }

    /// The browser's slow paths are measured against the sqlite3 shell, whose output is
    /// thrown away without touching the null device (a run once replaced it with a file).
    @Test func benchBrowseMeasuresTheSlowPathsAgainstTheShell() throws {
        let scratch = TemporaryFolder()
        let result = try CLI.run(["bench", "browse", "--quick", "--json", "--folder", scratch.file("bench"),
                                  "--scenario", "console-cancel", "--scenario", "browse-search", "--scenario", "browse-export-csv"])
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.stdout.split(separator: "\n").map { try #require(try CLI.json(String($0)) as? [String: Any]) }
        #expect(objects.compactMap { $0["scenario"] as? String } == ["console-cancel", "browse-search", "browse-export-csv"])
        #expect(objects.allSatisfy { ($0["engine_ns"] as? Double ?? 0) > 0 })
        var status = stat()
        #expect(stat("/dev/null", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR)
    }

    @Test func benchPrintsOneJSONObjectPerScenario() throws {
        let scratch = TemporaryFolder()
        let result = try CLI.run(["bench", "kv", "--quick", "--json", "--folder", scratch.file("bench")])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        let scenarios = try lines.map { line -> String in
            let object = try #require(try CLI.json(String(line)) as? [String: Any])
            #expect(Set(object.keys) == ["scenario", "engine_ns", "baseline_ns", "ratio"])
            let engine = try #require(object["engine_ns"] as? Double)
            let baseline = try #require(object["baseline_ns"] as? Double)
            #expect(engine > 0 && baseline > 0)
            return try #require(object["scenario"] as? String)
        }
        #expect(Array(scenarios.prefix(5)) == ["kv-set", "kv-set-batch", "kv-get", "kv-get-cached", "kv-set-encrypted"])
    }

    @Test func benchScenarioMeasuresOnlyTheNamedScenarios() throws {
        let scratch = TemporaryFolder()
        // kv-get reads rows another scenario writes: they are set up even though it is left out.
        let result = try CLI.run(["bench", "kv", "--quick", "--json", "--folder", scratch.file("bench"),
                                  "--scenario", "kv-get", "--scenario", "kv-get-cached"])
        #expect(result.status == 0, "\(result.stderr)")
        let scenarios = try result.stdout.split(separator: "\n").map { line in
            try #require((try CLI.json(String(line)) as? [String: Any])?["scenario"] as? String)
        }
        #expect(scenarios == ["kv-get", "kv-get-cached"])

        let lru = try CLI.run(["bench", "lru", "--quick", "--json", "--folder", scratch.file("lru"), "--scenario", "lru-disk-get"])
        #expect(lru.status == 0, "\(lru.stderr)")
        let object = try #require(try CLI.json(lru.stdout) as? [String: Any])
        #expect(object["scenario"] as? String == "lru-disk-get")
    }

    @Test func benchUnknownScenarioExits2AndListsTheScenarios() throws {
        let result = try CLI.run(["bench", "dao", "--scenario", "dao-selct-pk"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("unknown scenario dao-selct-pk"))
        #expect(result.stderr.contains("dao-insert-foreach, dao-select-pk, dao-render"))
    }
}

extension OtherCommandTests {
    @Test func busyTimeoutIsAGlobalOptionAndALockedWriteSaysHowLongItWaited() throws {
        let scratch = TemporaryFolder()
        let db = scratch.file("t.db")
        _ = try CLI.run(["import", "/dev/null", db])
        #expect(try CLI.run(["sql", db, "CREATE TABLE t(a)"]).status == 0)
        let holder = try Database(path: db)
        try holder.execute("BEGIN EXCLUSIVE")
        let blocked = try CLI.run(["sql", db, "INSERT INTO t VALUES (1)", "--busy-timeout", "0.2"])
        try holder.execute("ROLLBACK")
        #expect(blocked.status == 1)
        #expect(blocked.stderr.contains("the busy timeout is 0.2 s"), "\(blocked.stderr)")
        let negative = try CLI.run(["sql", db, "SELECT 1", "--busy-timeout=-1"])
        #expect(negative.status == 2)
        #expect(negative.stderr.contains("--busy-timeout takes 0 or more seconds"))
    }
}
