import DatacenterDAO
import DatacenterDemo
import Foundation
import Testing

/// The repository's `examples/` folder.
private let examplesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples").path

private func example(_ name: String) -> String { examplesFolder + "/" + name }

/// A small config written into a scratch folder.
private func writeConfig(_ scratch: TemporaryFolder, _ xml: String, name: String = "t.xml") throws -> String {
    let path = scratch.file(name)
    try xml.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

private let itemsXML = """
    <module name="Items" initializer="createTable" tableName="items" version="1.0">
      <update id="createTable">create table if not exists ${T} (id integer primary key, name text, data blob)</update>
      <insert id="add" arguments="name, data">insert into ${T} (name, data) values (#{name}, #{data})</insert>
      <insert id="addAll" arguments="names" foreach="names.n">insert into ${T} (name) values (#{n})</insert>
      <select id="get" arguments="$id" result="{}">select id, name, data from ${T} where id = #{id}</select>
      <select id="names" result="[string]">select name from ${T} order by id</select>
      <update id="rename" arguments="$id, name">
        update ${T} <set onVoid="quit"><if true="name != nil">name = #{name},</if></set> where id = #{id}
      </update>
    </module>
    """

@Suite struct DAOCommandTests {
    // MARK: methods

    @Test func methodsListsSignaturesAndJSON() throws {
        let text = try CLI.run(["dao", "methods", example("messages.xml")])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("select listMessages(conversation, senders, unreadOnly, limit) -> [:message]\n"))
        #expect(text.stdout.contains("insert insertMessages(list) foreach list.m\n"))

        let json = try CLI.run(["dao", "methods", example("messages.xml"), "--json"])
        let methods = try #require(try CLI.json(json.stdout) as? [[String: Any]])
        let get = try #require(methods.first { $0["id"] as? String == "getMessage" })
        #expect(get["kind"] as? String == "select")
        #expect(get["result"] as? String == ":message")
        let arguments = try #require(get["arguments"] as? [[String: Any]])
        #expect(arguments.count == 1)
        #expect(arguments.first?["name"] as? String == "id")
        #expect(arguments.first?["required"] as? Bool == true)
        #expect(methods.compactMap { $0["id"] as? String }.contains("createTable"))
    }

    // MARK: render

    @Test func renderPrintsExactlySQLBindingsAndPreview() throws {
        let scratch = TemporaryFolder()
        let config = try writeConfig(scratch, itemsXML)
        let result = try CLI.run(["dao", "render", config, "add", "--args", #"["ann", {"$blob": "AP8="}]"#, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try CLI.json(result.stdout) as? [String: Any])
        #expect(Set(object.keys) == ["sql", "bindings", "preview"])
        #expect(object["sql"] as? String == "insert into items (name, data) values (?, ?)")
        let bindings = try #require(object["bindings"] as? [Any])
        #expect(bindings.first as? String == "ann")
        #expect((bindings.last as? [String: String])?["$blob"] == "AP8=")
        #expect(object["preview"] as? String == "insert into items (name, data) values ('ann', X'00FF')")
        // No database was touched.
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["t.xml"])
    }

    @Test func renderReportsSkippedWhenOnVoidQuitApplies() throws {
        let result = try CLI.run(["dao", "render", example("messages.xml"), "updateFlags", "--args", "[1, null, null]", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "{\"skipped\":true}\n")
    }

    @Test func renderOfSeveralStatementsListsThem() throws {
        let result = try CLI.run(["dao", "render", example("templates.xml"), "saveTemplate",
                                  "--args", #"["hi", "en", "Hello", 5]"#, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try CLI.json(result.stdout) as? [String: Any])
        #expect(Set(object.keys) == ["statements"])
        let statements = try #require(object["statements"] as? [[String: Any]])
        #expect(statements.map { $0["part"] as? String } == ["try", "except"])
        #expect((statements[0]["sql"] as? String)?.hasPrefix("insert into templates") == true)
        #expect((statements[1]["sql"] as? String)?.hasPrefix("update templates") == true)

        let foreach = try CLI.run(["dao", "render", example("conversation.xml"), "appendAll", "--table", "c1",
                                   "--args", #"[[{"sender": "a", "text": "x", "sent": 1}, {"sender": "b", "text": "y", "sent": 2}]]"#, "--json"])
        let runs = try #require((try CLI.json(foreach.stdout) as? [String: Any])?["statements"] as? [[String: Any]])
        #expect(runs.map { $0["run"] as? Int } == [0, 1])
        #expect(runs.map { ($0["bindings"] as? [Any])?.first as? String } == ["a", "b"])
        #expect((runs[0]["sql"] as? String)?.contains("insert into c1 ") == true)
    }

    @Test func renderErrorsExitOneNamingTheThing() throws {
        let scratch = TemporaryFolder()
        let config = try writeConfig(scratch, itemsXML)
        let unknown = try CLI.run(["dao", "render", config, "gett", "--args", "[1]"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.hasPrefix("error: "))
        #expect(unknown.stderr.contains("unknown method 'gett'") && unknown.stderr.contains("did you mean 'get'"))

        let arity = try CLI.run(["dao", "render", config, "get", "--args", "[1, 2]"])
        #expect(arity.status == 1)
        #expect(arity.stderr.contains("method 'get' takes 1 argument(s), 2 given"))

        let badJSON = try CLI.run(["dao", "render", config, "get", "--args", "[1,"])
        #expect(badJSON.status == 1)
        #expect(badJSON.stderr.contains("--args is not valid JSON: an array is not closed"))
        let placed = try CLI.run(["dao", "render", config, "get", "--args", "[\n  \"hunter2\", 01]"])
        #expect(placed.status == 1)
        #expect(placed.stderr == "error: --args is not valid JSON: line 2, column 15: a number with a leading zero\n")

        let notArray = try CLI.run(["dao", "render", config, "get", "--args", "{}"])
        #expect(notArray.status == 1)
        #expect(notArray.stderr.contains("--args must be a JSON array"))

        let missing = try CLI.run(["dao", "render", scratch.file("nope.xml"), "get"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: no config file at \(scratch.file("nope.xml"))\n")

        let broken = try writeConfig(scratch, "<module name=\"m\">\n  <select id=\"a\"><fi true=\"x\">1</fi></select>\n</module>\n", name: "bad.xml")
        let faulty = try CLI.run(["dao", "render", broken, "a"])
        #expect(faulty.status == 1)
        #expect(faulty.stderr.hasPrefix("\(broken):2:18: error: unknown element <fi>"), "\(faulty.stderr)")

        let usage = try CLI.run(["dao", "render", config])
        #expect(usage.status == 2)
    }

    // MARK: call

    @Test func callRunsOnTheCommonStoreAndPrintsJSON() throws {
        let scratch = TemporaryFolder()
        let config = try writeConfig(scratch, itemsXML)
        let root = scratch.file("root")
        let add = try CLI.run(["dao", "call", config, "add", "--args", #"["ann", {"$blob": "AP8="}]"#, "--json", "--root", root])
        #expect(add.status == 0, "\(add.stderr)")
        let written = try #require(try CLI.json(add.stdout) as? [String: Any])
        #expect(Set(written.keys) == ["ok", "changes", "lastInsertRowId"])
        #expect(written["ok"] as? Bool == true)
        #expect(written["changes"] as? Int == 1)
        #expect(written["lastInsertRowId"] as? Int == 1)

        let get = try CLI.run(["dao", "call", config, "get", "--args", "[1]", "--json", "--root", root])
        let row = try #require(try CLI.json(get.stdout) as? [String: Any])
        #expect(row["name"] as? String == "ann")
        #expect((row["data"] as? [String: String])?["$blob"] == "AP8=")
        #expect(row["id"] as? Int == 1)

        let many = try CLI.run(["dao", "call", config, "addAll", "--args", #"[["b", "c"]]"#, "--json", "--root", root, "--common"])
        #expect((try CLI.json(many.stdout) as? [String: Any])?["changes"] as? Int == 2)
        let names = try CLI.run(["dao", "call", config, "names", "--json", "--root", root])
        #expect(try CLI.json(names.stdout) as? [String] == ["ann", "b", "c"])

        let skipped = try CLI.run(["dao", "call", config, "rename", "--args", "[1, null]", "--json", "--root", root])
        let skippedObject = try #require(try CLI.json(skipped.stdout) as? [String: Any])
        #expect(skippedObject["skipped"] as? Bool == true)
        #expect(skippedObject["changes"] as? Int == 0)

        let missingRow = try CLI.run(["dao", "call", config, "get", "--args", "[99]", "--json", "--root", root])
        #expect(missingRow.stdout == "null\n")

        // In words: an insert says its rowid; an update does not, as the rowid is not its own.
        let inserted = try CLI.run(["dao", "call", config, "add", "--args", #"["dee", null]"#, "--root", root])
        #expect(inserted.stdout == "ok: 1 change(s), last insert rowid 4\n")
        let renamed = try CLI.run(["dao", "call", config, "rename", "--args", #"[1, "anne"]"#, "--root", root])
        #expect(renamed.stdout == "ok: 1 change(s)\n", "\(renamed.stderr)")
    }

    @Test func callSelectsTheStore() throws {
        let scratch = TemporaryFolder()
        let config = try writeConfig(scratch, itemsXML)
        let root = scratch.file("root")
        let db = scratch.file("other.sqlite")
        #expect(try CLI.run(["dao", "call", config, "add", "--args", #"["u", null]"#, "--create", "--user", "ann", "--root", root]).status == 0)
        #expect(try CLI.run(["dao", "call", config, "add", "--args", #"["d", null]"#, "--db", db]).status == 0)
        let user = try CLI.run(["dao", "call", config, "names", "--json", "--user", "ann", "--root", root])
        #expect(try CLI.json(user.stdout) as? [String] == ["u"])
        let common = try CLI.run(["dao", "call", config, "names", "--json", "--root", root])
        #expect(try CLI.json(common.stdout) as? [String] == [])
        let file = try CLI.run(["dao", "call", config, "names", "--json", "--db", db])
        #expect(try CLI.json(file.stdout) as? [String] == ["d"])
        let both = try CLI.run(["dao", "call", config, "names", "--db", db, "--user", "ann"])
        #expect(both.status == 2)
    }

    @Test func callEncryptsModelsAndUsesTheTableOption() throws {
        let scratch = TemporaryFolder()
        let db = scratch.file("m.sqlite")
        let message = #"[{"$model": "MessageModel", "conversation": "c", "sender": "s", "time": 1, "content": "secret text"}]"#
        let insert = try CLI.run(["dao", "call", example("messages.xml"), "insertMessage", "--args", message, "--db", db,
                                  "--key", TestKeys.first])
        #expect(insert.status == 0, "\(insert.stderr)")
        let stored = try CLI.run(["sql", db, "select typeof(content) as t, instr(content, 'secret') as found from messages", "--json"])
        let row = try #require((try CLI.json(stored.stdout) as? [[String: Any]])?.first)
        #expect(row["t"] as? String == "blob")
        #expect(row["found"] as? Int == 0)
        let read = try CLI.run(["dao", "call", example("messages.xml"), "getMessage", "--args", "[1]", "--json", "--db", db,
                                "--key", TestKeys.first])
        #expect((try CLI.json(read.stdout) as? [String: Any])?["content"] as? String == "secret text")

        let noTable = try CLI.run(["dao", "call", example("conversation.xml"), "count", "--db", db])
        #expect(noTable.status == 1)
        #expect(noTable.stderr.contains("no table name"))
        #expect(try CLI.run(["dao", "call", example("conversation.xml"), "append", "--args", #"["a", "x", 1]"#,
                             "--db", db, "--table", "chat_1"]).status == 0)
        let count = try CLI.run(["dao", "call", example("conversation.xml"), "count", "--db", db, "--table", "chat_1"])
        #expect(count.stdout == "1\n")
    }

    @Test func callFailuresExitOne() throws {
        let scratch = TemporaryFolder()
        let config = try writeConfig(scratch, itemsXML)
        let root = scratch.file("root")
        let nilArgument = try CLI.run(["dao", "call", config, "get", "--args", "[null]", "--root", root])
        #expect(nilArgument.status == 1)
        #expect(nilArgument.stderr.contains("argument '$id' must not be nil"))
        let unknown = try CLI.run(["dao", "call", config, "nope", "--root", root])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("unknown method 'nope'") && unknown.stderr.contains(config))
    }

    // MARK: lint

    @Test func lintOfTheExamplesIsClean() throws {
        let result = try CLI.run(["dao", "lint", example("messages.xml"), example("templates.xml"), example("conversation.xml")])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout == "0 error(s), 0 warning(s) in 3 config(s)\n")
    }

    @Test func lintReportsWarningsWithLocations() throws {
        let scratch = TemporaryFolder()
        let config = try writeConfig(scratch, """
            <module name="w" tableName="t">
              <const id="7"/>
              <select id="a" arguments="id, unused" result="Thing">select * from ${T} where id = ${id}</select>
              <select id="b" arguments="name">select * from ${T} where name = @{name} and x = #{other}</select>
              <select id="c" arguments="k" result="[Thing]">select * from ${T} where k = #{k}</select>
            </module>
            """)
        let result = try CLI.run(["dao", "lint", config])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("\(config):3:3: warning: argument 'unused' of method 'a' is never used"))
        #expect(lines.contains("\(config):3:3: warning: argument 'id' of method 'a' is never used"))
        #expect(lines.contains { $0.hasPrefix("\(config):3:3: warning: result type 'Thing' of method 'a' is not registered") })
        #expect(lines.contains { $0.hasPrefix("\(config):3:") && $0.contains("warning: ${id} splices the const 'id'") && $0.contains("#{id}") })
        #expect(lines.contains { $0.hasPrefix("\(config):4:") && $0.contains("warning: @{name} writes the value into the SQL text") })
        #expect(lines.contains { $0.hasPrefix("\(config):4:") && $0.contains("warning: 'other' is not an argument of method 'b'") })
        #expect(lines.last == "0 error(s), 7 warning(s) in 1 config(s)")

        let registered = try CLI.run(["dao", "lint", config, "--model", "Thing"])
        #expect(!registered.stdout.contains("result type"))
        #expect(registered.stdout.hasSuffix("0 error(s), 5 warning(s) in 1 config(s)\n"))
    }

    @Test func lintErrorsExitOne() throws {
        let scratch = TemporaryFolder()
        let bad = try writeConfig(scratch, "<module name=\"m\">\n  <select id=\"a\">select ${nope}</select>\n</module>\n", name: "bad.xml")
        let result = try CLI.run(["dao", "lint", bad, example("templates.xml")])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("\(bad):2:25: error: unknown name ${nope}"), "\(result.stdout)")
        #expect(result.stdout.contains("1 error(s), 0 warning(s) in 2 config(s)"))
        #expect(result.stderr.hasPrefix("error: "))
    }

    // MARK: limits

    @Test(arguments: [("not ", 50_000, ""), ("-", 50_000, ""), ("a + ", 100_000, "a")])
    func lintAndRenderOfADeepExpressionReportTheLimitInsteadOfCrashing(_ piece: String, _ count: Int, _ tail: String) throws {
        let scratch = TemporaryFolder()
        let expression = String(repeating: piece, count: count) + (tail.isEmpty ? "a" : tail)
        let config = try writeConfig(scratch, "<module name=\"m\" tableName=\"t\">\n"
            + "  <select id=\"s\" arguments=\"a\"><if true=\"\(expression)\">x</if></select>\n</module>\n")
        let lint = try CLI.run(["dao", "lint", config])
        #expect(lint.status == 1, "exit \(lint.status): \(lint.stderr.prefix(300))")
        #expect(lint.stdout.hasPrefix("\(config):2:"), "\(lint.stdout.prefix(300))")
        #expect(lint.stdout.contains("more than 256 levels"), "\(lint.stdout.prefix(300))")
        #expect(lint.stdout.split(separator: "\n").allSatisfy { $0.count < 400 })

        let render = try CLI.run(["dao", "render", config, "s", "--args", "[1]"])
        #expect(render.status == 1, "exit \(render.status): \(render.stderr.prefix(300))")
        #expect(render.stderr.contains("\(config):2:") && render.stderr.contains("more than 256 levels"), "\(render.stderr.prefix(300))")
    }

    @Test func lintOfDoublingConstsStopsAtTheSizeLimit() throws {
        let scratch = TemporaryFolder()
        var lines = ["<module name=\"m\" tableName=\"t\">", "<const c0=\"abcd\"/>"]
        for level in 1...28 { lines.append("<const c\(level)=\"${c\(level - 1)}${c\(level - 1)}\"/>") }
        lines += ["<select id=\"s\">select '${c28}'</select>", "</module>"]
        let config = try writeConfig(scratch, lines.joined(separator: "\n"))
        // How little work it takes to stop is pinned by ConfigLimitsTests (counted, not timed).
        let lint = try CLI.run(["dao", "lint", config])
        #expect(lint.status == 1)
        #expect(lint.stdout.hasPrefix("\(config):21:"), "\(lint.stdout)")
        #expect(lint.stdout.contains("${c19}") && lint.stdout.contains("1048576 bytes"), "\(lint.stdout)")
    }

    // MARK: examples and demo

    @Test func embeddedExamplesEqualTheFiles() throws {
        #expect(DAOExamples.all.map(\.name).sorted()
                == (try FileManager.default.contentsOfDirectory(atPath: examplesFolder)).filter { $0.hasSuffix(".xml") }.sorted())
        for (name, xml) in DAOExamples.all {
            let file = try String(contentsOfFile: example(name), encoding: .utf8)
            #expect(file == xml, "examples/\(name) differs from DAOExamples")
        }
    }

    @Test func demoHasDAOTablesWithTheirConfigs() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("demo")
        let built = try CLI.run(["demo", root])
        #expect(built.status == 0, "\(built.stderr)")
        let alice = root + "/users/alice/user.sqlite"
        let meta = try CLI.run(["sql", alice, "select table_name, config_path, encrypted_columns from datacenter_dao_tables order by table_name", "--json"])
        let rows = try #require(try CLI.json(meta.stdout) as? [[String: Any]])
        #expect(rows.compactMap { $0["table_name"] as? String } == ["conversation_bob", "conversation_team", "messages"])
        for row in rows {
            let path = try #require(row["config_path"] as? String)
            #expect(path.hasPrefix(root + "/examples/"))
            #expect(FileManager.default.fileExists(atPath: path))
        }
        #expect(rows.last?["encrypted_columns"] as? String == #"["content"]"#)
        let content = try CLI.run(["sql", alice, "select count(*) as n from messages where typeof(content) = 'blob'", "--json"])
        #expect((try CLI.json(content.stdout) as? [[String: Any]])?.first?["n"] as? Int == 5)
        let withKey = try CLI.run(["dao", "call", root + "/examples/messages.xml", "getMessage", "--args", "[4]", "--create", "--user", "alice",
                                   "--json", "--root", root, "--key", "64336d305a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"])
        let message = try #require(try CLI.json(withKey.stdout) as? [String: Any])
        #expect(message["content"] as? String == "Lunch tomorrow?")
        #expect(message["starred"] as? Int == 1)
        let templates = try CLI.run(["dao", "call", root + "/examples/templates.xml", "getTemplate", "--args", #"["welcome", "de"]"#,
                                     "--root", root])
        #expect(templates.stdout == "Willkommen, {name}!\n")
    }

    /// The argument-file scenario runs the command as a child and says its peak memory.
    @Test func benchDAOMeasuresTheArgumentFileCallsMemory() throws {
        let scratch = TemporaryFolder()
        let result = try CLI.run(["bench", "dao", "--quick", "--scenario", "dao-call-args-file", "--folder", scratch.file("bench")])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("dao-call-args-file") })
        #expect(line.contains("peak RSS <= 200 MB (") && line.contains(" MB for 20000 elements") && line.hasSuffix("ok"), "\(line)")
    }

    @Test func benchDAOQuickPrintsEveryScenario() throws {
        let scratch = TemporaryFolder()
        let result = try CLI.run(["bench", "dao", "--quick", "--json", "--folder", scratch.file("bench")])
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.stdout.split(separator: "\n").map { try #require(try CLI.json(String($0)) as? [String: Any]) }
        #expect(objects.compactMap { $0["scenario"] as? String } == ["dao-insert-foreach", "dao-select-pk", "dao-render", "dao-call-args-file",
                                                                 "dao-messages-insert", "dao-messages-get", "dao-messages-get-decodable",
                                                                 "dao-messages-get-values", "dao-messages-list",
                                                                 "dao-messages-list-decodable", "dao-messages-list-values"])
        for object in objects {
            #expect(Set(object.keys) == ["scenario", "engine_ns", "baseline_ns", "ratio"])
            #expect((object["engine_ns"] as? Double ?? 0) > 0)
        }
    }
}

extension DAOCommandTests {
    /// A plain object whose property a `<crypt>` rule names is written as it is (crypt rules
    /// apply to models): `dao call` says so, and says how to have it encrypted.
    @Test func aPlainObjectWithACryptPropertyIsWarnedAbout() throws {
        let scratch = TemporaryFolder()
        let db = scratch.file("m.sqlite")
        let messages = example("messages.xml")
        let plain = #"[{"conversation": "c", "sender": "s", "time": 1, "content": "in clear"}]"#
        let warned = try CLI.run(["dao", "call", messages, "insertMessage", "--args", plain, "--db", db, "--key", TestKeys.first])
        #expect(warned.status == 0, "\(warned.stderr)")
        #expect(warned.stderr.contains(#"warning: argument 1 holds a plain object whose "content" is written as it is"#), "\(warned.stderr)")
        #expect(warned.stderr.contains(#"give the object "$model": "MessageModel""#))
        let stored = try CLI.run(["sql", db, "SELECT typeof(content) FROM messages", "--json"])
        #expect(stored.stdout.contains("text"), "the warning told the truth: \(stored.stdout)")

        let model = #"[{"$model": "MessageModel", "conversation": "c", "sender": "s", "time": 2, "content": "sealed"}]"#
        let quiet = try CLI.run(["dao", "call", messages, "insertMessage", "--args", model, "--db", db, "--key", TestKeys.first])
        #expect(quiet.status == 0 && !quiet.stderr.contains("warning"), "\(quiet.stderr)")
        let list = #"[[{"conversation": "c", "sender": "s", "time": 3, "content": "a"}]]"#
        let many = try CLI.run(["dao", "call", messages, "insertMessages", "--args", list, "--db", db, "--key", TestKeys.first])
        #expect(many.stderr.contains("argument 1 holds a plain object"), "inside an array too: \(many.stderr)")
    }

    /// `dao call --db` on a plain file keeps its journal mode, and a select writes nothing.
    @Test func callOnAPlainFileKeepsItAsItIsAndSelectsWriteNothing() throws {
        let scratch = TemporaryFolder()
        let db = scratch.file("plain.sqlite")
        let messages = example("messages.xml")
        let message = #"[{"$model": "MessageModel", "conversation": "c", "sender": "s", "time": 1, "content": "x"}]"#
        #expect(try CLI.run(["dao", "call", messages, "insertMessage", "--args", message, "--db", db, "--key", TestKeys.first]).status == 0)
        let mode = try CLI.run(["sql", db, "PRAGMA journal_mode", "--json"])
        #expect(mode.stdout.contains(#""journal_mode":"delete""#), "\(mode.stdout)")
        #expect(!FileManager.default.fileExists(atPath: db + "-wal"))

        // A select on the file changes no byte of it, even with the config found elsewhere.
        let copy = scratch.file("copy-of-messages.xml")
        try FileManager.default.copyItem(atPath: messages, toPath: copy)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let read = try CLI.run(["dao", "call", copy, "getMessage", "--args", "[1]", "--json", "--db", db, "--key", TestKeys.first])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)

        // A select on a file the DAO never touched adds no bookkeeping table.
        let fresh = scratch.file("fresh.sqlite")
        #expect(try CLI.run(["import", "/dev/null", fresh]).status == 0)
        #expect(try CLI.run(["sql", fresh, "CREATE TABLE messages(id INTEGER PRIMARY KEY, conversation, sender, time, content, read, starred)"]).status == 0)
        let list = try CLI.run(["dao", "call", messages, "listMessages", "--args", "[null, [], false, 5]", "--json", "--db", fresh])
        #expect(list.status == 0, "\(list.stderr)")
        let tables = try CLI.run(["sql", fresh, "SELECT group_concat(name) AS n FROM sqlite_master", "--json"])
        #expect(tables.stdout.contains(#""n":"messages""#), "\(tables.stdout)")
    }
}

extension DAOCommandTests {
    /// A database file with `items` (two rows) and a `victim` table.
    private func databaseWithVictim(_ scratch: TemporaryFolder) throws -> String {
        let db = scratch.file("victim.sqlite")
        #expect(try CLI.run(["import", "/dev/null", db]).status == 0)
        #expect(try CLI.run(["sql", db, "CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT)"]).status == 0)
        #expect(try CLI.run(["sql", db, "INSERT INTO items(name) VALUES ('a'), ('b')"]).status == 0)
        #expect(try CLI.run(["sql", db, "CREATE TABLE victim(x)"]).status == 0)
        return db
    }

    private func victimExists(_ db: String) throws -> Bool {
        let tables = try CLI.run(["sql", db, "SELECT count(*) AS n FROM sqlite_master WHERE name = 'victim'", "--json"])
        return tables.stdout.contains(#""n":1"#)
    }

    /// The reported attack: a `@{}` inside a quoted identifier let a value close the quotes
    /// and stack a DROP, and `dao call` exited 0. The form loads again, as the references
    /// document it, and the value stays one identifier: its `"` is doubled.
    @Test func aValueInsideAQuotedIdentifierStaysOneIdentifier() throws {
        let scratch = TemporaryFolder()
        let db = try databaseWithVictim(scratch)
        let config = try writeConfig(scratch, """
            <module name="Items" tableName="items">
              <select id="pick" arguments="col" result="[{}]">select "@{col}" from ${T}</select>
            </module>
            """)
        let payload = #"["x\" from items; drop table victim; --"]"#
        let render = try CLI.run(["dao", "render", config, "pick", "--args", payload])
        #expect(render.status == 0, "\(render.stderr)")
        #expect(render.stdout.contains(#"select "x"" from items; drop table victim; --" from items"#), "\(render.stdout)")
        let result = try CLI.run(["dao", "call", config, "pick", "--args", payload, "--db", db])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try victimExists(db))
        let lint = try CLI.run(["dao", "lint", config])
        #expect(lint.status == 0)
        #expect(lint.stdout.contains("\(config):2:") && lint.stdout.contains("warning: @{col} inside a quoted identifier"), "\(lint.stdout)")
    }

    /// A raw `@{x no ""}` value that stacks a statement is refused when prepared, naming the
    /// method; nothing of it runs.
    @Test func callRefusesARenderedStatementHoldingMoreThanOne() throws {
        let scratch = TemporaryFolder()
        let db = try databaseWithVictim(scratch)
        let config = try writeConfig(scratch, """
            <module name="Items" tableName="items">
              <select id="filtered" arguments="filter" result="[string]">select name from ${T} where @{filter no ""}</select>
              <update id="rename" arguments="id, name">update ${T} set name = #{name} where id = @{id no ""}</update>
            </module>
            """)
        let fine = try CLI.run(["dao", "call", config, "filtered", "--args", #"["id = 1"]"#, "--db", db])
        #expect(fine.status == 0, "\(fine.stderr)")
        for (method, payload) in [("filtered", #"["1; drop table victim; --"]"#), ("rename", #"["1; drop table victim", "z"]"#)] {
            let result = try CLI.run(["dao", "call", config, method, "--args", payload, "--db", db])
            #expect(result.status != 0, "\(result.stdout)")
            #expect(result.stderr.contains("method '\(method)'") && result.stderr.contains("more than one SQL statement"), "\(result.stderr)")
            #expect(result.stderr.hasPrefix("\(config):"), "\(result.stderr)")
            #expect(try victimExists(db))
        }
        let names = try CLI.run(["dao", "call", config, "filtered", "--args", #"["1"]"#, "--db", db, "--json"])
        #expect(names.stdout.contains("a") && names.stdout.contains("b") && !names.stdout.contains("z"), "\(names.stdout)")
    }

    // MARK: Arguments from files and standard input, globals on call

    @Test func callTakesGlobalsAndArgumentsFromAFileOrStandardInput() throws {
        let scratch = TemporaryFolder()
        let config = try writeConfig(scratch, """
            <module name="Items" initializer="create" tableName="items">
              <update id="create">create table if not exists ${T} (id integer primary key, name text, score real)</update>
              <insert id="insertAll" arguments="rows" foreach="rows.r">insert into ${T} (name, score) values (#{r.name}, #{r.score})</insert>
              <select id="scaled" arguments="x" result="[{}]">select name, score * #{factor} as s from ${T} where id = #{x}</select>
            </module>
            """)
        let db = scratch.file("items.db")
        // 20,000 rows: an argument of about 800 KB, over what one command-line argument may hold.
        let rows = (0..<20_000).map { "{\"name\": \"item \($0)\", \"score\": \($0)}" }.joined(separator: ",")
        let file = scratch.file("args.json")
        try Data("[[\(rows)]]".utf8).write(to: URL(fileURLWithPath: file))
        let insert = try CLI.run(["dao", "call", config, "insertAll", "--db", db, "--args", "@" + file])
        #expect(insert.status == 0, "\(insert.stderr)")
        #expect(insert.stdout.contains("ok: 20000 change(s)"), "\(insert.stdout)")
        // --args from standard input, --global on call as on render.
        let call = try CLI.run(["dao", "call", config, "scaled", "--db", db, "--args", "-", "--global", "{\"factor\": 3}", "--json"],
                               input: "[11]")
        #expect(call.status == 0, "\(call.stderr)")
        let result = try #require(try CLI.json(call.stdout) as? [[String: Any]])
        #expect(result.count == 1 && result[0]["name"] as? String == "item 10" && result[0]["s"] as? Double == 30, "\(call.stdout)")
        // What cannot be read is named.
        let missing = try CLI.run(["dao", "call", config, "scaled", "--db", db, "--args", "@" + scratch.file("none.json")])
        #expect(missing.status == 1 && missing.stderr.contains("--args: cannot read \(scratch.file("none.json"))"), "\(missing.stderr)")
    }
}
