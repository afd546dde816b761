import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// The console decrypts as the grid does: a result column read straight from a crypt column
/// shows its text, `datacenter_decrypt(x)` opens any expression, and a value no key opens
/// says so instead of passing ciphertext off as the value.
@Suite struct ConsoleDecryptTests {
    /// The demo with the console open on alice's store (where the messages table is).
    static func console(_ folder: TemporaryFolder, keys: KeyRing = KeyRing([DemoStore.key])) throws -> Browser {
        let b = try browser(try makeDemo(folder), keys: keys, width: 140, height: 30)
        b.openNodeAndLoad(named: "messages")
        b.press(.character(":"))
        return b
    }

    static func run(_ sql: String, in b: Browser) {
        type(sql, into: b)
        b.press(.enter)
        b.runCommands()
    }

    @Test func aJoinShowsTheCryptColumnDecrypted() throws {
        let folder = TemporaryFolder()
        let b = try Self.console(folder)
        Self.run("select m.id, m.content as said, length(m.content) as bytes from messages m join messages n on n.id = m.id where m.id = 4", in: b)
        let grid = try #require(b.grid)
        #expect(grid.source.columns == ["id", "said", "bytes"])
        let row = try #require(grid.rows.first)
        #expect(row.cells[1].text == "Lunch tomorrow?")
        #expect(row.cells[1].encryption == .decrypted)
        #expect(row.cells[2].encryption == .plain, "an expression over the column is not the column")
    }

    @Test func datacenterDecryptOpensAnyExpression() throws {
        let folder = TemporaryFolder()
        let b = try Self.console(folder)
        Self.run("select group_concat(datacenter_decrypt(content), ' | ') as all_said from messages where conversation = 'bob'", in: b)
        let cell = try #require(b.grid?.rows.first?.cells.first)
        #expect(cell.text == "Lunch tomorrow? | Sure — 12:00 at the usual place")
    }

    /// `REGEXP` works in the console (and in a filter: the same connections), on decrypted
    /// text too; a pattern that is not one fails the query, naming it.
    @Test func regexpMatchesInTheConsoleAndABadPatternSaysSo() throws {
        let folder = TemporaryFolder()
        let b = try Self.console(folder)
        Self.run("select count(*) as n from messages where datacenter_decrypt(content) regexp '^(Lunch|Sure) '", in: b)
        #expect(b.grid?.rows.first?.cells.first?.text == "2")
        b.press(.character(":"))
        Self.run("select 'x' regexp 'a('", in: b)
        let output = (b.console?.output ?? []).joined(separator: "\n")
        #expect(output.contains("not a regular expression (ICU syntax): a("), "\(output)")
    }

    /// Rows printed as text (several statements, or a text `.mode`) decrypt crypt columns as
    /// the grid does.
    @Test func rowsPrintedAsTextAreDecryptedToo() throws {
        let folder = TemporaryFolder()
        let b = try Self.console(folder)
        Self.run("select content from messages where id = 4; select 1 as one", in: b)
        #expect(b.console?.output.contains { $0.hasPrefix("Lunch tomorrow?") } == true, "\(b.console?.output ?? [])")
        Self.run(".mode list", in: b)
        Self.run("select id, content from messages where id = 4", in: b)
        #expect(b.console?.output.last == "4|Lunch tomorrow?")
    }

    /// A query that reads a crypt column where it is ciphertext (a `WHERE`, an expression)
    /// runs as written, and the console says so, with the function that reads the text; a
    /// query that only shows the column, or opens it with `datacenter_decrypt`, gets no note.
    @Test func aQueryReadingACryptColumnAsCiphertextSaysSo() throws {
        let folder = TemporaryFolder()
        let b = try Self.console(folder)
        Self.run("select id from messages where content = 'Lunch tomorrow?'", in: b)
        #expect(b.grid?.rows.isEmpty == true, "the ciphertext equals no text")
        let note = try #require(b.message?.text)
        #expect(note.contains("reads messages.content as ciphertext") && note.contains("datacenter_decrypt(content)"), "\(note)")
        #expect(b.console?.output.contains(note) == true, "the console keeps the note with the query")

        b.press(.character(":"))
        Self.run("select id from messages where datacenter_decrypt(content) = 'Lunch tomorrow?'", in: b)
        #expect(b.grid?.rows.map { $0.cells[0].text } == ["4"])
        #expect(b.message?.text.contains("as ciphertext") != true, "\(b.message?.text ?? "")")

        b.press(.character(":"))
        Self.run("select m.* from messages m where m.id = 4", in: b)
        #expect(b.grid?.rows.first?.cells.contains { $0.text == "Lunch tomorrow?" } == true)
        #expect(b.message?.text.contains("as ciphertext") != true, "\(b.message?.text ?? "")")

        // Rows printed as text (two statements): the note follows the statement's rows.
        b.press(.character(":"))
        Self.run("select upper(content) as shouted from messages where id = 4; select 1 as one", in: b)
        let output = b.console?.output ?? []
        #expect(output.contains { $0.hasPrefix("note: this query reads messages.content as ciphertext") }, "\(output)")
    }

    /// `datacenter_kv_value` reads a KV row's value as the KV grid shows it: decoded,
    /// decrypted, `[locked: reason]` where no key given opens it; a query reading the stored
    /// values without it gets a note naming it.
    @Test func datacenterKVValueShowsWhatTheKVGridShows() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), keys: KeyRing([DemoStore.key]), width: 140, height: 30)
        b.openNodeAndLoad(named: "notes")          // a table of the common store
        b.press(.character(":"))
        Self.run("select key, datacenter_kv_value(business, key, value, encoding, options) as v from datacenter_kv "
                 + "where business in ('session', 'vault', 'app') order by business, key", in: b)
        let rows = try #require(b.grid?.rows).map { ($0.cells[0].text, $0.cells[1].text) }
        let values = Dictionary(rows, uniquingKeysWith: { first, _ in first })
        #expect(values["apiToken"] == "sk_live_51Hdemo-secret-token", "\(rows)")
        #expect(values["list"] == "[1,2.5,\"three\"]", "a property list decoded: \(rows)")
        #expect(rows.contains { $0.1 == "[locked: custom crypt]" }, "the vault's value, under the app's own key: \(rows)")
        #expect(b.message?.text.contains("datacenter_kv.value") != true, "\(b.message?.text ?? "")")

        b.press(.character(":"))
        Self.run("select business, key, value from datacenter_kv where business = 'session'", in: b)
        let note = try #require(b.message?.text)
        #expect(note.contains("datacenter_kv_value(business, key, value, encoding, options)"), "\(note)")

        // Whole rows (all five columns, each once): the grid shows their values decoded, under
        // the query's own title, and sorts, filters and searches what it shows.
        b.press(.character(":"))
        Self.run("select * from datacenter_kv where business = 'session' order by key", in: b)
        let grid = try #require(b.grid)
        #expect(grid.source.title == "SQL: select * from datacenter_kv where business = 'session' order by key")
        let value = try #require(grid.source.columns.firstIndex(of: "value"))
        #expect(grid.rows.first { $0.cells[1].text == "apiToken" }?.cells[value].text == "sk_live_51Hdemo-secret-token")
        #expect(b.message?.text.contains("datacenter_kv.value") != true, "\(b.message?.text ?? "")")

        // Names SQL takes as one (case aside) are not read by name: the rows stay as they are,
        // each column its own, with the note.
        b.press(.character(":"))
        Self.run("select *, upper(key) as Business from datacenter_kv where key = 'apiToken'", in: b)
        let same = try #require(b.grid)
        #expect(same.rows.first?.cells.first?.text == "session")
        #expect(same.rows.first?.cells.last?.text == "APITOKEN")
        #expect(b.message?.text.contains("datacenter_kv_value(") == true, "\(b.message?.text ?? "")")

        // Without the key: locked, never the ciphertext.
        let other = TemporaryFolder()
        let locked = try browser(try makeDemo(other), keys: KeyRing([]), width: 140, height: 30)
        locked.openNodeAndLoad(named: "notes")
        locked.press(.character(":"))
        Self.run("select datacenter_kv_value(business, key, value, encoding, options) from datacenter_kv where key = 'apiToken'", in: locked)
        #expect(locked.grid?.rows.first?.cells.first?.text == "[locked: no key]")
    }

    @Test func aValueNoKeyOpensSaysSo() throws {
        let folder = TemporaryFolder()
        let wrong = KeyRing([try EncryptionKey(bytes: Array(repeating: 7, count: 32))])
        let b = try Self.console(folder, keys: wrong)
        Self.run("select datacenter_decrypt(content) from messages where id = 4", in: b)
        let output = (b.console?.output ?? []).joined(separator: "\n")
        #expect(output.contains("datacenter_decrypt: the value does not open with the keys given"), "\(output)")
        Self.run("select content from messages where id = 4", in: b)
        let cell = try #require(b.grid?.rows.first?.cells.first)
        #expect(cell.text.hasPrefix("[locked: "), "never ciphertext as if it were the value: \(cell.text)")
    }
}
