import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// The DAO panel can be trusted with a write: typed values mean what `dao call --args` means,
/// encrypted columns never get plaintext, everything that will run is shown and confirmed,
/// and the file changes by the call only.
extension DAOPanelTests {
    static let userStore = "/demo/users/alice/user.sqlite"
    static let modelJSON = #"{"$model": "MessageModel", "conversation": "team", "sender": "alice", "time": 1767229200, "content": "top secret"}"#

    func rows(_ folder: TemporaryFolder, _ sql: String) throws -> [Row] {
        try Database(path: folder.path + Self.userStore, mode: .readOnly).query(sql)
    }

    // MARK: A. crypt columns

    @Test func aModelTypedInTheFormIsStoredEncrypted() throws {
        let (b, folder) = try form("insertMessage")
        type(Self.modelJSON, into: b)
        #expect(b.screenText.contains("$m: model MessageModel {content, conversation, sender, time}"))
        let bindings = try #require(b.daoPanel?.previews.first?.bindings)
        #expect(bindings.contains("<encrypted: "))
        #expect(!bindings.contains("top secret"))
        b.press(.enter)
        #expect(b.daoPanel?.stage == .confirm)
        b.press(.character("y"))
        #expect(b.screenText.contains("ok · 1 change(s) · last insert rowid 6"))
        let row = try #require(try rows(folder, "SELECT typeof(content) AS kind, content FROM messages WHERE id = 6").first)
        #expect(row["kind"]?.stringValue == "blob")
        guard case .blob(let ciphertext)? = row["content"] else { Issue.record("content is not a blob"); return }
        #expect(String(decoding: try KeyRing([DemoStore.key]).decrypt(ciphertext), as: UTF8.self) == "top secret")
    }

    @Test(arguments: [
        #"{"conversation": "team", "sender": "alice", "time": 1, "content": "top secret"}"#,
        #"{"$model": "Other", "conversation": "team", "sender": "alice", "time": 1, "content": "top secret"}"#,
    ])
    func aPlainObjectForACryptColumnIsRefusedNamingTheArgument(_ json: String) throws {
        let (b, folder) = try form("insertMessage")
        type(json, into: b)
        #expect(b.screenText.contains("column content is encrypted, but no value for it would be"))
        b.press(.enter)
        #expect(b.daoPanel?.stage == .form)
        #expect(b.screenText.contains("refused: column content is encrypted"))
        #expect(b.daoPanel?.resultLines.joined().contains(#"give $m as {"$model": "MessageModel", …}"#) == true)
        #expect(try rows(folder, "SELECT count(*) FROM messages").first?[0].int64Value == 5)
    }

    @Test func withoutAKeyACryptWriteIsRefused() throws {
        let (b, folder) = try form("insertMessage", keys: .empty)
        type(Self.modelJSON, into: b)
        #expect(b.daoPanel?.previews.first?.bindings.contains("<encrypted: no key>") == true)
        b.press(.enter)
        #expect(b.daoPanel?.stage == .form)
        #expect(b.screenText.contains("column content is encrypted and no key was given"))
        #expect(try rows(folder, "SELECT count(*) FROM messages").first?[0].int64Value == 5)
    }

    @Test func theGuardRefusesAnyValueThatIsNotCiphertext() throws {
        let folder = TemporaryFolder()
        let db = try Database(path: folder.file("g.sqlite"))
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, content BLOB, other TEXT)")
        let keys = KeyRing([DemoStore.key])
        try CryptColumnGuard.install(table: "t", columns: ["content", "missing"], keys: keys, in: db)
        try db.execute("INSERT INTO t(content) VALUES (?)", [.blob(try keys.encrypt(Data("ok".utf8)))])
        try db.execute("INSERT INTO t(content, other) VALUES (NULL, 'plain is fine here')")
        for value: DatabaseValue in [.text("secret"), .blob(Data("secret".utf8)), .integer(7)] {
            #expect { try db.execute("INSERT INTO t(content) VALUES (?)", [value]) } throws: { "\($0)".contains("encrypted column content") }
            #expect { try db.execute("UPDATE t SET content = ? WHERE id = 1", [value]) } throws: { "\($0)".contains("encrypted column content") }
        }
        try db.execute("UPDATE t SET other = 'x'")
        #expect(try db.scalar("SELECT count(*) FROM t")?.int64Value == 2)
        #expect(try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'")?.int64Value == 0) // TEMP only
    }

    // MARK: B. strict fields

    @Test(arguments: [("flase", "a bare word"), (#"["bob""#, "an array is not closed")])
    func textThatIsNotJSONIsRefusedNextToItsField(_ text: String, _ reason: String) throws {
        let (b, folder) = try form("listMessages")
        defer { withExtendedLifetime(folder) {} }   // the store files stay while the panel opens them
        b.press(.down, times: text.hasPrefix("[") ? 1 : 2)   // senders, or unreadOnly
        type(text, into: b)
        #expect(b.screenText.contains("✗ not JSON: " + reason))
        #expect(b.daoPanel?.previews.isEmpty == true)
        b.press(.enter)
        #expect(b.screenText.contains("cannot run: "))
        #expect(!b.screenText.contains("row(s)"))
    }

    @Test func thePreviewShowsEachFieldsParsedType() throws {
        let (b, folder) = try form("updateFlags")
        defer { withExtendedLifetime(folder) {} }   // the store files stay while the panel opens them
        type("3", into: b)
        b.press(.down)
        b.press(.character("\u{e}"))
        type("true", into: b)
        let screen = b.screenText
        #expect(screen.contains("$id: int 3"))
        #expect(screen.contains("read: bool true"))
        #expect(screen.contains("starred: nil"))
    }

    @Test func anEmptyRequiredFieldIsAnError() throws {
        let (b, folder) = try form("getMessage")
        defer { withExtendedLifetime(folder) {} }   // the store files stay while the panel opens them
        #expect(b.screenText.contains("✗ empty"))
        b.press(.enter)
        #expect(b.screenText.contains("cannot run: $id: empty"))
        #expect(!b.screenText.contains("result"))
    }

    // MARK: C. preparation shown and confirmed

    /// Puts alice's messages table back at version 1.1 (no starred column): the next DAO
    /// write upgrades it.
    static func downgradeMessages(_ root: String) throws {
        let db = try Database(path: root + "/users/alice/user.sqlite")
        try db.execute("ALTER TABLE messages DROP COLUMN starred")
        try db.execute("UPDATE TableVersions SET version = '1.1' WHERE tableName = 'messages'")
    }

    @Test func pendingUpgradesAreShownAndConfirmedWithTheWrite() throws {
        let (b, folder) = try form("updateFlags", prepare: Self.downgradeMessages)
        type("3", into: b)
        b.press(.down)
        b.press(.character("\u{e}"))
        type("1", into: b)
        let preparation = try #require(b.daoPanel?.preparation)
        #expect(preparation.parts.map(\.statement.sql).contains("alter table messages add column starred integer not null default 0"))
        var screen = b.screenText
        #expect(screen.contains("Before the call, preparing table messages runs"))
        #expect(screen.contains("upgrade to 1.2: step: alter table messages add column starred"))
        b.press(.enter)
        #expect(b.daoPanel?.stage == .confirm)
        #expect(b.screenText.contains("It writes to the file and prepares the table"))
        b.press(.character("y"))
        screen = b.screenText
        #expect(screen.contains("ok · 1 change(s) · table prepared first"))
        #expect(try rows(folder, "SELECT count(*) FROM pragma_table_info('messages') WHERE name = 'starred'").first?[0].int64Value == 1)
        #expect(try rows(folder, "SELECT version FROM TableVersions WHERE tableName = 'messages'").first?[0].stringValue == "1.2")
        #expect(try rows(folder, "SELECT read FROM messages WHERE id = 3").first?[0].int64Value == 1)
    }

    @Test func aTableThatChangedSinceThePreviewIsNotWritten() throws {
        let (b, folder) = try form("updateFlags")
        type("3", into: b)
        b.press(.down)
        b.press(.character("\u{e}"))
        type("1", into: b)
        b.press(.enter)
        #expect(b.daoPanel?.preparation?.isEmpty == true)
        try Self.downgradeMessages(folder.path + "/demo")   // behind the preview's back
        b.press(.character("y"))
        #expect(b.screenText.contains("the table changed since the preview"))
        #expect(try rows(folder, "SELECT read FROM messages WHERE id = 3").first?[0].int64Value == 0)
        #expect(try rows(folder, "SELECT count(*) FROM pragma_table_info('messages') WHERE name = 'starred'").first?[0].int64Value == 0)
    }

    // MARK: D. fitting the screen, labels, counts

    @Test func aLongPreviewScrollsAndKeepsTheCursorFieldAndResultsInView() throws {
        let (b, folder) = try form("listMessages", height: 24)
        defer { withExtendedLifetime(folder) {} }   // the store files stay while the panel opens them
        b.press(.down)
        type("[" + (1...30).map { "\"sender\($0)@example.com\"" }.joined(separator: ", ") + "]", into: b)
        #expect(b.screenText.contains("▏"))          // the field being typed stays visible
        b.press(.up)
        type("\"team\"", into: b)
        #expect(b.screenText.contains("conversation : \"team\"▏"))
        b.press(.enter)
        var screen = b.screenText
        #expect(screen.contains("result [:message]: 0 row(s)"))
        #expect(screen.contains("(PgUp/PgDn)"))
        b.press(.pageUp, times: 3)
        screen = b.screenText
        #expect(screen.contains("lines 1–"))
        #expect(!screen.contains("result [:message]"))
        b.press(.pageDown, times: 10)
        #expect(b.screenText.contains("result [:message]: 0 row(s)"))
    }

    @Test func stepsAndTryPartsAreLabelledAsTheCLILabelsThem() throws {
        let (b, folder) = try form("saveTemplate", table: "templates")
        defer { withExtendedLifetime(folder) {} }   // the store files stay while the panel opens them
        type("\"n\"", into: b)
        b.press(.down)
        type("\"en\"", into: b)
        b.press(.down)
        type("\"body\"", into: b)
        let screen = b.screenText
        #expect(b.daoPanel?.previews.map(\.heading) == ["try", "except"])
        #expect(screen.contains("-- try"))
        #expect(screen.contains("-- except"))
    }

    @Test func aForeachSelectCountsTheRowsOfEveryRun() throws {
        let (b, folder) = try form("unreadIn", prepare: { root in
            let path = root + "/examples/messages.xml"
            let xml = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "</module>", with: """
                <select id="unreadIn" arguments="list" foreach="list.c" result="[{}]">select id from ${T} where conversation = #{c}</select>
                </module>
                """)
            try xml.write(toFile: path, atomically: true, encoding: .utf8)
        })
        defer { withExtendedLifetime(folder) {} }   // the store files stay while the panel opens them
        type(#"["team", "bob"]"#, into: b)
        b.press(.enter)
        let screen = b.screenText
        #expect(screen.contains("result [{}] per element, 2 element(s) (each row mapped): 5 row(s) in all"))
        #expect(screen.contains("5 row(s)\n"))                    // one table of every run's rows
    }

    /// A foreach select whose result is one row per element: the summary counts the rows
    /// that came back, and every run's rows show as one table under one count.
    @Test(arguments: [("{}", "its first row mapped"), ("int", "the first column of its first row")])
    func aForeachSelectOfOneRowPerElementCountsEveryRow(result: String, each: String) throws {
        let (b, folder) = try form("byIDs", prepare: { root in
            let path = root + "/examples/messages.xml"
            let xml = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "</module>", with: """
                <select id="byIDs" arguments="list" foreach="list.i" result="\(result)">select id from ${T} where id = #{i}</select>
                </module>
                """)
            try xml.write(toFile: path, atomically: true, encoding: .utf8)
        })
        defer { withExtendedLifetime(folder) {} }
        type("[1, 2]", into: b)
        b.press(.enter)
        let screen = b.screenText
        #expect(b.daoPanel?.resultLines.first == "result \(result) per element, 2 element(s) (\(each)): 2 row(s) in all:")
        #expect(screen.contains("2 row(s)\n"))
        #expect(!screen.contains("1 row(s)"))
        #expect(!screen.contains("the first row, mapped"))
    }

    /// The last insert rowid shows only for a call that inserted: a method of any kind whose
    /// statement inserts shows it, one that only updates does not (whatever its element).
    @Test(arguments: [
        ("insert", "update ${T} set read = 1 where id = 1", false),
        ("update", "insert into ${T} (conversation, sender, time) values ('team', 'dave', 1)", true),
        ("delete", "delete from ${T} where id = 5", false),
    ])
    func theLastInsertRowidShowsOnlyWhenTheCallInserted(kind: String, sql: String, shows: Bool) throws {
        let (b, folder) = try form("custom", prepare: { root in
            let path = root + "/examples/messages.xml"
            let xml = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "</module>", with: """
                <\(kind) id="custom">\(sql)</\(kind)>
                </module>
                """)
            try xml.write(toFile: path, atomically: true, encoding: .utf8)
        })
        defer { withExtendedLifetime(folder) {} }
        b.press(.enter)
        b.press(.character("y"))
        let screen = b.screenText
        #expect(screen.contains("ok · 1 change(s)"))
        let newest = try rows(folder, "SELECT max(id) FROM messages").first?[0].int64Value ?? -1
        #expect(screen.contains("last insert rowid") == shows)
        if shows { #expect(screen.contains("last insert rowid \(newest)")) }
    }

    @Test func resumableStepsAndForeachElementsAreLabelledAsTheCLILabelsThem() throws {
        let (b, folder) = try form("installDefaults", table: "templates")
        defer { withExtendedLifetime(folder) {} }
        #expect(b.daoPanel?.previews.map(\.heading) == ["resumable step", "resumable step", "resumable step", "step"])
        #expect(b.screenText.contains("-- resumable step"))
        #expect(b.screenText.contains("-- step"))

        let (many, manyFolder) = try form("insertMessages")
        defer { withExtendedLifetime(manyFolder) {} }
        type(#"[{"$model": "MessageModel", "conversation": "t", "sender": "s", "time": 1, "content": "a"}, "#
             + #"{"$model": "MessageModel", "conversation": "t", "sender": "s", "time": 2, "content": "b"}]"#, into: many)
        #expect(many.daoPanel?.previews.map(\.heading) == ["statement, element 0", "statement, element 1"])
        #expect(many.screenText.contains("-- statement, element 1"))
    }

    // MARK: E. the file changes by the call only

    @Test func aWriteLeavesTheJournalModeAsItWas() throws {
        let (b, folder) = try form("updateFlags", prepare: { root in
            // Leaving WAL needs the only connection: the demo builder's may still be closing.
            let db = try Database(path: root + "/users/alice/user.sqlite")
            for _ in 0..<50 where (try? db.scalar("PRAGMA journal_mode = DELETE", cached: false))?.stringValue != "delete" {
                Thread.sleep(forTimeInterval: 0.1)
            }
            #expect(try db.scalar("PRAGMA journal_mode")?.stringValue == "delete")
        })
        type("3", into: b)
        b.press(.down)
        b.press(.character("\u{e}"))
        type("1", into: b)
        b.press(.enter)
        b.press(.character("y"))
        #expect(b.screenText.contains("ok · 1 change(s)"))
        #expect(try rows(folder, "PRAGMA journal_mode").first?[0].stringValue == "delete")
        #expect(!FileManager.default.fileExists(atPath: folder.path + Self.userStore + "-wal"))
    }

    @Test func readOnlyRefusesAWriteAtTheKey() throws {
        let (b, folder) = try form("deleteMessage", allowsWrites: false)
        defer { withExtendedLifetime(folder) {} }   // the store files stay while the panel opens them
        type("1", into: b)
        b.press(.enter)
        #expect(b.daoPanel?.stage == .form)
        #expect(b.screenText.contains("--read-only: delete methods are not run"))
    }
}
