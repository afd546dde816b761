import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// What the console keeps between sessions and offers a sqlite3 user: its history per file
/// in the state folder, the dot-commands, and Tab completion of names and keywords.
@Suite struct ConsoleSessionTests {
    /// Opens the console of `b` and runs `sql` in it.
    func run(_ sql: String, in b: Browser) {
        if b.focus != .console { b.press(.character(":")) }
        type(sql, into: b)
        b.press(.enter)
    }

    /// With several statements in the buffer and the cursor inside them, Enter runs the one
    /// under the cursor (harlequin's run-selection) and keeps the buffer; at the end of the
    /// buffer it runs them all and clears it, as before.
    @Test func enterRunsTheStatementUnderTheCursorWhenThereAreSeveral() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder))
        b.press(.character(":"))
        b.handle(.paste("SELECT 'first; still first' AS a;\nSELECT 2 AS b; -- a comment; not a statement"))
        b.press(.up)                                      // the cursor to the first line
        b.press(.enter)
        b.runCommands()
        #expect(b.grid?.source.columns == ["a"])
        #expect(b.grid?.rows.first?.cells.first?.text == "first; still first")
        b.press(.character(":"))
        #expect(b.console?.input.text.hasPrefix("SELECT 'first; still first' AS a;\nSELECT 2") == true, "the buffer stays")
        b.press(.down, .home, .enter)                     // the second line: its statement
        b.runCommands()
        #expect(b.grid?.source.columns == ["b"])
        b.press(.character(":"))
        #expect(b.console?.history.entries.suffix(2) == ["SELECT 'first; still first' AS a;", "SELECT 2 AS b;"])
        b.press(.down, .end, .enter)                      // at the end: all of them, as text
        b.runCommands()
        #expect(b.console?.input.text == "")
        #expect(b.console?.output.contains("first; still first") == true, "\(b.console?.output ?? [])")
    }

    @Test func sqlTextSplitsAtTheSemicolonsThatEndStatements() {
        let sql = "select ';' ; /* ; */ select 2;\ncreate trigger t after insert on x begin select 1; end;  ;  select 3"
        let statements = SQLText.statements(in: sql)
        #expect(statements.map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) } == [
            "select ';' ;", "/* ; */ select 2;", "create trigger t after insert on x begin select 1; end;", "select 3",
        ])
        // Each range is where its text stands in the whole.
        for statement in statements {
            let characters = Array(sql)
            #expect(String(characters[statement.range]) == statement.text)
        }
        #expect(SQLText.statements(in: " ; ;\n").isEmpty)
    }

    @Test func theHistoryOfEachFileIsKeptForTheNextSession() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let state = URL(fileURLWithPath: folder.file("state"))
        let first = try browser(root, stateFolder: state)
        run("SELECT count(*) FROM notes", in: first)
        run("SELECT 42", in: first)
        let files = try FileManager.default.contentsOfDirectory(atPath: state.path + "/console-history")
        #expect(files.count == 1 && files[0].hasPrefix("common.sqlite-"))
        let path = state.path + "/console-history/" + files[0]
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)

        let second = try browser(root, stateFolder: state)
        second.press(.character(":"))
        second.press(.up)
        #expect(second.console?.input.text == "SELECT 42")
        second.press(.up)
        #expect(second.console?.input.text == "SELECT count(*) FROM notes")

        // Another file has a history of its own.
        let other = folder.file("other.db")
        try Database(path: other).execute("CREATE TABLE t (x)")
        let third = try browser(other, stateFolder: state)
        third.press(.character(":"))
        third.press(.up)
        #expect(third.console?.input.text == "")
    }

    /// litecli's favourites: `\\fs` saves a query by name, `\\f NAME` runs it, `\\f` lists,
    /// `\\fd` deletes; kept for the next session (0600), shared by every store's console.
    @Test func favouritesAreSavedRunListedDeletedAndKept() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let state = URL(fileURLWithPath: folder.file("state"))
        let first = try browser(root, stateFolder: state)
        run("\\fs notes select count(*) as n from notes", in: first)
        #expect(first.console?.output.last == "saved notes: select count(*) as n from notes")
        run("\\f", in: first)
        #expect(first.console?.output.last == "notes: select count(*) as n from notes")
        run("\\f nope", in: first)
        #expect(first.console?.outputIsError == true && first.console?.output.last?.contains("no favourite named nope") == true)
        run("\\fs b@d select 1", in: first)
        #expect(first.console?.outputIsError == true)
        let file = state.appendingPathComponent("console-favourites.json").path
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o600)

        let second = try browser(root, stateFolder: state)
        run("\\f notes", in: second)
        second.runCommands()
        #expect(second.console?.output.first == "> select count(*) as n from notes", "the saved query runs")
        #expect(second.grid?.rows.first?.cells.first?.text == "3")
        second.press(.character(":"))
        run("\\fd notes", in: second)
        #expect(second.console?.output.last == "deleted notes")
        #expect(try ConsoleFavourites.load(from: state).queries.isEmpty)
    }

    /// The output of earlier commands is kept above the latest: PgUp scrolls back to it.
    @Test func earlierOutputIsKeptAndScrolledBackTo() throws {
        let folder = TemporaryFolder()
        let path = folder.file("s.db")
        try Database(path: path).execute("CREATE TABLE t (x)")
        let b = try browser(path, width: 100, height: 20)
        run("SELECT 'first answer' AS a; SELECT 1", in: b)
        b.runCommands()
        run("SELECT 'second answer' AS b; SELECT 2", in: b)
        b.runCommands()
        #expect(b.screenText.contains("second answer") && !b.screenText.contains("first answer"))
        b.press(.pageUp)
        #expect(b.screenText.contains("first answer"), "\(b.screenText)")
        b.press(.pageDown)                                  // back at the top of the latest output
        #expect(b.screenText.contains("second answer") && !b.screenText.contains("first answer"))
    }

    /// Ctrl-R: the history filtered by what is typed, newest first; ↑ goes to an older
    /// match, Enter takes it into the input, Esc leaves the input as it was.
    @Test func ctrlRSearchesTheHistory() throws {
        let folder = TemporaryFolder()
        let path = folder.file("s.db")
        try Database(path: path).execute("CREATE TABLE items (x); CREATE TABLE logs (y)")
        let b = try browser(path, width: 100, height: 20)
        for sql in ["SELECT count(*) FROM items", "SELECT 1", "SELECT count(*) FROM logs", "SELECT 2"] {
            run(sql, in: b)
            b.runCommands()
            if b.focus != .console { b.press(.character(":")) }
        }
        type("draft", into: b)
        b.press(.character("\u{12}"))
        type("COUNT", into: b)
        let shown = b.screenText
        #expect(shown.contains("history search: COUNT"))
        #expect(shown.contains("SELECT count(*) FROM logs") && shown.contains("SELECT count(*) FROM items") && !shown.contains("SELECT 2"))
        b.press(.escape)
        #expect(b.console?.input.text == "draft", "Esc leaves the input as it was")
        b.press(.character("\u{12}"))
        type("count", into: b)
        b.press(.up)                                        // the older match
        b.press(.enter)
        #expect(b.console?.input.text == "SELECT count(*) FROM items")
        #expect(b.console?.historySearch == nil)
    }

    @Test func aDamagedHistoryFileIsReportedAndReplaced() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let state = URL(fileURLWithPath: folder.file("state"))
        let file = ConsoleHistoryFile(storePath: root + "/common.sqlite", stateFolder: state)
        try FileManager.default.createDirectory(at: file.url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("{not json".utf8).write(to: file.url)
        let b = try browser(root, stateFolder: state)
        b.press(.character(":"))
        #expect(b.message?.isError == true)
        #expect(b.message?.text.contains(file.url.path) == true)
        #expect(b.message?.text.contains("not a JSON list") == true)
        run("SELECT 1", in: b)
        #expect(try file.load() == ["SELECT 1"])
    }

    @Test func withoutAStateFolderNothingIsWritten() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root)
        run("SELECT 1", in: b)
        b.press(.character(":"))
        b.press(.up)
        #expect(b.console?.input.text == "SELECT 1")       // this session still has it
        #expect(b.stateFolder == nil)
    }

    @Test func dotCommandsAnswerAsTheShellDoes() throws {
        let folder = TemporaryFolder()
        let path = folder.file("s.db")
        let db = try Database(path: path)
        try db.executeScript("""
            CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT);
            CREATE INDEX items_name ON items (name);
            CREATE TABLE logs (at INTEGER);
            CREATE VIEW named AS SELECT name FROM items;
            """)
        let b = try browser(path)
        run(".tables", in: b)
        #expect(b.console?.output == ["> .tables", "items", "logs", "named"])
        run(".tables i%", in: b)
        #expect(b.console?.output == ["> .tables i%", "items"])
        run(".indexes", in: b)
        #expect(b.console?.output == ["> .indexes", "items_name"])
        run(".schema items", in: b)
        #expect(b.console?.output == ["> .schema items", "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT);",
                                      "CREATE INDEX items_name ON items (name);"])
        run(".schema nothing", in: b)
        #expect(b.console?.output.last == "(nothing matches nothing)")
        run(".nosuch", in: b)
        #expect(b.console?.outputIsError == true)
        #expect(b.console?.output.last?.contains("unknown command .nosuch") == true)
        run(".tables a b", in: b)
        #expect(b.console?.output.last == ".tables takes at most one argument: .tables ?PATTERN?")
        run(".help", in: b)
        #expect(b.console?.output.dropFirst().elementsEqual(ConsoleDotCommand.helpLines) == true)
        // Every command `.help` lists is in the help screen (H) too, and the console knows it.
        for line in ConsoleDotCommand.helpLines {
            #expect(HelpScreen.keyLines.contains { $0.hasSuffix(line) }, "H does not list \(line)")
            let name = String(line.prefix { !$0.isWhitespace })
            run(name, in: b)
            #expect(b.console?.output.contains { $0.contains("unknown command") } == false, "\(name): \(b.console?.output ?? [])")
        }
    }

    /// `.dump` shows the start of the store as SQL; `.dump FILE` writes all of it to a new
    /// file the sqlite3 shell loads into the same database, and never over a file.
    @Test func dotDumpShowsTheStartAndWritesANewFile() throws {
        let folder = TemporaryFolder()
        let path = folder.file("s.db")
        let db = try Database(path: path)
        try db.executeScript("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT); CREATE INDEX items_name ON items (name);")
        try db.inTransaction {
            for i in 0..<300 { try db.execute("INSERT INTO items(name) VALUES (?)", [.text("item \(i)")]) }
        }
        let b = try browser(path)
        run(".dump", in: b)
        let preview = b.console?.output ?? []
        #expect(preview.prefix(4) == ["> .dump", "PRAGMA foreign_keys=OFF;", "BEGIN TRANSACTION;",
                                      "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT);"])
        #expect(preview.count == ConsoleDotCommand.dumpPreviewLines + 2)
        #expect(preview.last?.contains(".dump FILE writes it all") == true)

        let file = folder.file("out.sql")
        run(".dump \(file)", in: b)
        #expect(b.console?.outputIsError == false)
        #expect(b.console?.output.dropFirst().first == "dumped 1 table, 300 rows to \(file)")
        let copy = folder.file("copy.db")
        #expect(try runProcess("/usr/bin/env", ["sqlite3", copy, ".read \(file)"]).status == 0)
        #expect(try sqlite3ShellBytes([copy, ".dump"]) == sqlite3ShellBytes([path, ".dump"]))

        run(".dump \(file)", in: b)
        #expect(b.console?.outputIsError == true)
        #expect(b.console?.output.last?.contains("exists") == true)
    }

    /// `.mode` and `.headers`: each text mode prints a SELECT's rows as the sqlite3 shell's
    /// mode of that name does (quotes, commas, line breaks, NULL, numbers in JSON); `grid`
    /// opens it in the grid again.
    @Test(arguments: ["list", "csv", "tabs", "json", "line"])
    func dotModePrintsRowsAsTheShellDoes(mode: String) throws {
        let folder = TemporaryFolder()
        let path = folder.file("m.db")
        try Database(path: path).executeScript("""
            CREATE TABLE t (a, b, c);
            INSERT INTO t VALUES (1, 'x, "q"', NULL), (2.5, ' lead', 'multi
            line'), (-3, 'AB', 'plain'), (1e20, 'row 1', ''), ('é', 'it''s', 0.1);
            """)
        let b = try browser(path)
        for headers in ["on", "off"] {
            run(".mode \(mode)", in: b)
            #expect(b.console?.output.last == "mode: \(mode)")
            run(".headers \(headers)", in: b)
            run("SELECT * FROM t", in: b)
            let shell = String(decoding: try sqlite3ShellBytes(["-cmd", ".mode \(mode)", "-cmd", ".headers \(headers)", path, "SELECT * FROM t"]),
                               as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
            var expected = shell.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            while expected.last == "" { expected.removeLast() }
            #expect(Array(b.console?.output.dropFirst() ?? []) == expected, "\(mode), headers \(headers)")
        }
        run(".mode grid", in: b)
        run("SELECT * FROM t", in: b)
        #expect(b.console?.output.last?.hasPrefix("the rows are in the grid") == true)
        #expect(b.grid?.rows.count == 5)
        run(".mode nope", in: b)
        #expect(b.console?.outputIsError == true)
        #expect(b.console?.output.last?.contains("modes: grid column list csv tabs json line") == true)
    }

    @Test func tabCompletesNamesAndKeywords() throws {
        let folder = TemporaryFolder()
        let path = folder.file("c.db")
        try Database(path: path).executeScript("""
            CREATE TABLE messages (id INTEGER PRIMARY KEY, sender TEXT, sent_at INTEGER);
            CREATE TABLE "odd name" (x);
            """)
        let b = try browser(path)
        b.press(.character(":"))
        type("sel", into: b)
        b.press(.tab)
        #expect(b.console?.input.text == "select")
        type(" * from mes", into: b)
        b.press(.tab)
        #expect(b.console?.input.text == "select * from messages")
        type(" where se", into: b)
        b.press(.tab)                                       // sender, sent_at, select: "se" stays, all listed
        #expect(b.console?.input.text == "select * from messages where se")
        #expect(b.message?.text == "sender  sent_at  select")
        type("n", into: b)
        b.press(.tab)                                       // sender, sent_at agree on "sen"
        #expect(b.console?.input.text == "select * from messages where sen")
        type("d", into: b)
        b.press(.tab)
        #expect(b.console?.input.text == "select * from messages where sender")
        b.press(.character("\u{15}"))                       // Ctrl-U: clear
        type("SELECT x FROM od", into: b)
        b.press(.tab)
        #expect(b.console?.input.text == "SELECT x FROM \"odd name\"")
        b.press(.character("\u{15}"))
        type(".sch", into: b)
        b.press(.tab)
        #expect(b.console?.input.text == ".schema")
    }

    @Test func completionCasesKeywordsAsTyped() {
        let completion = SQLCompletion(tables: ["Orders": []])
        #expect(completion.complete(Array("SEL"), cursor: 3)?.replacement == "SELECT")
        #expect(completion.complete(Array("sel"), cursor: 3)?.replacement == "select")
        // A name and a keyword: completed as far as they agree, both listed.
        #expect(completion.complete(Array("select * from ord"), cursor: 17)
                    == SQLCompletion.Result(start: 14, replacement: "Order", candidates: ["Orders", "order"]))
        #expect(completion.complete(Array("select * from orders"), cursor: 20)?.replacement == "Orders")
        #expect(completion.complete(Array("select "), cursor: 7) == nil)
        #expect(completion.complete(Array("zzz"), cursor: 3) == nil)
    }

    /// After `m.`, the columns of the table `m` stands for: a table's own name or an alias
    /// the text gives it; the aliases are offered with the names.
    @Test func completionKnowsAliases() {
        let completion = SQLCompletion(tables: ["messages": ["id", "sender", "sent_at"], "users": ["id", "name", "nickname"]])
        func complete(_ text: String) -> SQLCompletion.Result? { completion.complete(Array(text), cursor: text.count) }
        let joined = "select * from messages m join users as u on u.n"
        #expect(complete(joined) == SQLCompletion.Result(start: joined.count - 1, replacement: "n", candidates: ["name", "nickname"]))
        #expect(complete("select * from messages m, users u where m.send")?.replacement == "sender")
        #expect(complete("select * from messages m, users u where u.ni")?.replacement == "nickname")
        #expect(complete("select * from \"messages\" AS mm where mm.s")?.candidates == ["sender", "sent_at"])
        #expect(complete("select * from messages where messages.i")?.replacement == "id")
        #expect(complete("select * from messages where nope.i") == nil, "no such table or alias")
        #expect(complete("select * from messages m where m")?.candidates.contains("m") == true, "the alias is offered")
    }
}

