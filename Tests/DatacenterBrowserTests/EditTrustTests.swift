import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// Every write does exactly what the screen showed, and no edit is lost: the commit path on
/// plain files, quitting with staged edits, rows addressed by a rowid name no column hides,
/// no-op edits, refusals at the key, and the store named on every line.
@Suite struct EditTrustTests {
    /// A plain SQLite file (rollback journal, no data-center tables) made by `sql`.
    func plainFile(_ folder: TemporaryFolder, _ sql: String) throws -> String {
        let path = folder.file("plain.db")
        let db = try Database(path: path)
        try db.executeScript(sql)
        return path
    }

    func tables(_ path: String) throws -> [String] {
        try Database(path: path, mode: .readOnly)
            .query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap { $0[0].stringValue }
    }

    // MARK: 1. A commit on a plain file changes the edited row and nothing else

    @Test func aCommitOnAPlainFileAddsNoTableAndKeepsTheJournalMode() throws {
        let folder = TemporaryFolder()
        let path = try plainFile(folder, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t(v) VALUES ('a'), ('b');")
        do {
            let b = try browser(path)
            b.openNodeAndLoad(named: "t")
            b.press(.right)
            b.press(.character("e"))
            answer("changed", in: b)
            b.press(.character("w"))
            b.press(.character("c"))
            #expect(b.screenText.contains("committed 1 edit(s)"))
        }
        let db = try Database(path: path, mode: .readOnly)
        #expect(try db.query("SELECT v FROM t ORDER BY id").compactMap { $0[0].stringValue } == ["changed", "b"])
        #expect(try db.scalar("PRAGMA journal_mode")?.stringValue == "delete")
        #expect(try tables(path) == ["t"])
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
    }

    @Test func aKVCommitOnAStoreWritesOnlyTheValue() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let common = root + "/common.sqlite"
        let before = try tables(common)
        let b = try browser(root)
        b.openNodeAndLoad(named: "settings")
        b.press(.character("e"))                     // fontSize, an int
        answer("17", in: b)
        b.press(.character("w"))
        b.press(.character("c"))
        #expect(try Store(path: common, readOnly: true).kv.integer(forKey: "fontSize", business: "settings") == 17)
        #expect(try tables(common) == before)
    }

    // MARK: 3. Staged edits are never dropped unasked

    func browserWithAStagedEdit(_ folder: TemporaryFolder) throws -> (Browser, String) {
        let root = try makeDemo(folder)
        let b = try browser(root, width: 120, height: 30)
        b.openNodeAndLoad(named: "notes")
        b.press(.character("x"))
        #expect(b.review.staged.count == 1)
        return (b, root + "/common.sqlite")
    }

    func noteCount(_ path: String) throws -> Int64? {
        try Database(path: path, mode: .readOnly).scalar("SELECT count(*) FROM notes")?.int64Value
    }

    @Test func quittingWithStagedEditsAsksAndEscStays() throws {
        let folder = TemporaryFolder()
        let (b, _) = try browserWithAStagedEdit(folder)
        for quit in [Key.character("q"), .character("\u{3}")] {
            b.press(quit)
            #expect(!b.isFinished)
            #expect(b.review.confirmingQuit)
            #expect(b.screenText.contains("Quit with 1 staged edit(s) not written? c commit and quit · d discard and quit · Esc stay"))
            #expect(b.screenText.contains("DELETE FROM \"notes\""))
            b.press(.escape)
            #expect(!b.isFinished)
            #expect(!b.review.confirmingQuit)
            #expect(b.review.staged.count == 1)
        }
    }

    @Test func escNeverQuitsFromAnyPane() throws {
        let folder = TemporaryFolder()
        let (b, _) = try browserWithAStagedEdit(folder)
        b.press(.tab)
        #expect(b.focus == .tree)
        b.press(.escape)
        #expect(!b.isFinished)
        #expect(b.focus == .grid)
        b.press(.escape, .escape, .escape)
        #expect(!b.isFinished)
        #expect(b.review.staged.count == 1)
        // An empty browser too: Esc does nothing, q quits.
        let empty = try browser(try plainFile(folder, "CREATE TABLE t(v);"))
        empty.press(.escape)
        #expect(!empty.isFinished)
        empty.press(.character("q"))
        #expect(empty.isFinished)
    }

    @Test func discardAndQuitWritesNothing() throws {
        let folder = TemporaryFolder()
        let (b, path) = try browserWithAStagedEdit(folder)
        b.press(.character("q"), .character("d"))
        #expect(b.isFinished)
        #expect(try noteCount(path) == 3)
    }

    @Test func commitAndQuitWritesThenQuits() throws {
        let folder = TemporaryFolder()
        let (b, path) = try browserWithAStagedEdit(folder)
        b.press(.character("q"), .character("c"))
        #expect(b.isFinished)
        #expect(try noteCount(path) == 2)
    }

    @Test func aFailedCommitOnQuitStays() throws {
        let folder = TemporaryFolder()
        let (b, path) = try browserWithAStagedEdit(folder)
        b.press(.character("o"))
        answer("{\"title\": null}", in: b)             // NOT NULL fails at commit
        #expect(b.review.staged.count == 2)
        b.press(.character("q"), .character("c"))
        #expect(!b.isFinished)
        #expect(b.review.staged.count == 2)
        #expect(b.screenText.contains("commit failed"))
        #expect(try noteCount(path) == 3)
    }

    @Test func quittingWithNothingStagedQuitsAtOnce() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder))
        b.openNodeAndLoad(named: "notes")
        b.press(.character("q"))
        #expect(b.isFinished)
    }

    /// An app holding the store's write lock past the busy timeout: the commit fails, says
    /// how long it waited, and keeps every edit staged.
    @Test func aCommitBlockedByAnotherWriterKeepsItsEditsAndSaysHowLongItWaited() throws {
        let folder = TemporaryFolder()
        let path = try plainFile(folder, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t(v) VALUES ('a');")
        let b = try browser(path, busyTimeout: 0.2)
        b.openNodeAndLoad(named: "t")
        b.press(.character("x"))
        let app = try Database(path: path)
        try app.execute("BEGIN EXCLUSIVE")
        b.press(.character("w"), .character("c"))
        try app.execute("ROLLBACK")
        #expect(b.review.staged.count == 1)
        #expect(b.message?.text.contains("commit failed, that store is unchanged") == true)
        #expect(b.message?.text.contains("the busy timeout is 0.2 s") == true, "\(b.message?.text ?? "")")
        b.press(.character("c"))
        #expect(b.review.staged.isEmpty)
        #expect(try Database(path: path, mode: .readOnly).scalar("SELECT count(*) FROM t")?.int64Value == 0)
    }

    // MARK: 4. Rows are addressed by a rowid name the table does not shadow

    @Test func aColumnNamedRowidDoesNotBreakPagingOrEdits() throws {
        let folder = TemporaryFolder()
        // The user column `_rowid_` runs against the real rowid and repeats a value.
        let path = try plainFile(folder, """
            CREATE TABLE t(_rowid_ INT, v TEXT);
            INSERT INTO t VALUES (9, 'first'), (1, 'second'), (1, 'third');
            """)
        let b = try browser(path)
        b.openNodeAndLoad(named: "t")
        #expect(b.grid?.rows.map { $0.cells[1].text } == ["first", "second", "third"])
        b.press(.down)                            // 'second', whose _rowid_ column 1 is shared
        b.press(.right)
        b.press(.character("e"))
        answer("edited", in: b)
        #expect(b.review.staged.first?.preview == "UPDATE \"t\" SET \"v\" = 'edited' WHERE \"rowid\" = 2")
        b.press(.character("w"), .character("c"))
        let values = try Database(path: path, mode: .readOnly).query("SELECT v FROM t ORDER BY rowid").compactMap { $0[0].stringValue }
        #expect(values == ["first", "edited", "third"])
    }

    @Test func aTableHidingEveryRowidNameRefusesEditsAtTheKey() throws {
        let folder = TemporaryFolder()
        let path = try plainFile(folder, """
            CREATE TABLE t(_rowid_ INT, RowID INT, oid INT, v TEXT);
            INSERT INTO t VALUES (1, 1, 1, 'a'), (1, 1, 1, 'b');
            """)
        let b = try browser(path)
        b.openNodeAndLoad(named: "t")
        #expect(b.grid?.rows.count == 2)
        for key in [Key.character("e"), .character("x")] {
            b.press(key)
            #expect(b.prompt == nil)
            #expect(b.review.staged.isEmpty)
            #expect(b.message?.text.contains("hide its rowid") == true)
        }
    }

    // MARK: 6. A no-op edit changes nothing

    @Test func anUnchangedValueStagesNothingWhateverItsType() throws {
        let folder = TemporaryFolder()
        let path = try plainFile(folder, """
            CREATE TABLE t(id INTEGER PRIMARY KEY, v);
            INSERT INTO t(v) VALUES ('NULL'), ('X''00ff'''), ('42'), (42), (1.0), (X'00ff'), (NULL), ('it''s'), (''), ('''q'''), (-0.5e-3);
            """)
        let stored = try Database(path: path, mode: .readOnly).query("SELECT v FROM t ORDER BY id").map { $0[0] }
        let b = try browser(path, height: 40)
        b.openNodeAndLoad(named: "t")
        b.press(.right)
        for (index, value) in stored.enumerated() {
            b.press(.character("e"))
            let shown = try #require(b.prompt?.text)
            #expect(TypedValue.parse(shown) == value, "row \(index + 1): \(shown) reads back as another value than \(value)")
            b.press(.enter)
            #expect(b.review.staged.isEmpty, "row \(index + 1) (\(value)) staged an edit")
            #expect(b.message?.text == "unchanged: nothing staged")
            b.press(.down)
        }
        #expect(try Database(path: path, mode: .readOnly).query("SELECT v FROM t ORDER BY id").map { $0[0] } == stored)
    }

    @Test func thePromptQuotesTextThatWouldReadAsAnotherType() throws {
        #expect(TypedValue.literal(.text("NULL")) == "'NULL'")
        #expect(TypedValue.literal(.text("42")) == "'42'")
        #expect(TypedValue.literal(.text("X'00ff'")) == "'X''00ff'''")
        #expect(TypedValue.literal(.text("hello")) == "hello")
        #expect(TypedValue.literal(.real(1)) == "1.0")
        #expect(TypedValue.parse("'NULL'") == .text("NULL"))
        #expect(TypedValue.parse("'it''s'") == .text("it's"))
        #expect(TypedValue.parse("'a'b'") == .text("'a'b'"))
    }

    /// A quote followed by a combining mark is one Swift `Character` but a quote to SQLite:
    /// the prompt's literal must still read back as the same bytes.
    @Test func aQuoteBeforeACombiningMarkReadsBackByteForByte() {
        for text in ["'a'\u{301}'", "'\u{301}", "x'\u{301}'y", "'\u{301}'"] {
            let shown = TypedValue.literal(.text(text))
            guard case .text(let back) = TypedValue.parse(shown) else {
                Issue.record("\(shown.debugDescription) reads back as \(TypedValue.parse(shown))")
                continue
            }
            #expect(Array(back.utf8) == Array(text.utf8), "\(text.debugDescription) shown as \(shown.debugDescription)")
        }
    }

    @Test func everyValueReadsBackAsItself() {
        // Seeded, printed: a failure names the seed and the value.
        let seed: UInt64 = 0x5eed_0010
        var random = SplitMix64(seed: seed)
        let pieces = ["NULL", "X'", "'", "''", "00ff", "42", "-", ".", "e5", " ", "é", "🚀", "\n", "abc", "0x1", "+1", "inf", "nan"]
        for _ in 0..<2_000 {
            let value: DatabaseValue
            switch random.next() % 5 {
            case 0: value = .integer(Int64(bitPattern: random.next()))
            case 1: value = .real(Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF) * (random.next() % 2 == 0 ? 1 : -1))
            case 2: value = .blob(Data((0..<Int(random.next() % 6)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
            case 3: value = .null
            default: value = .text((0..<Int(random.next() % 4)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined())
            }
            #expect(TypedValue.parse(TypedValue.literal(value)) == value, "seed \(seed): \(value) shown as \(TypedValue.literal(value))")
        }
    }

    @Test func anUnchangedKVValueOrCryptColumnStagesNothing() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, width: 140, height: 30)
        for business in ["settings", "session"] {
            b.openNodeAndLoad(named: business)
            b.press(.character("e"))
            b.press(.enter)
            #expect(b.review.staged.isEmpty, "\(business)")
            #expect(b.message?.text == "unchanged: nothing staged")
        }
        b.openNodeAndLoad(named: "messages")
        let column = try #require(b.grid?.source.columns.firstIndex(of: "content"))
        b.press(.right, times: column)
        b.press(.character("e"))
        b.press(.enter)
        #expect(b.review.staged.isEmpty)
    }

    // MARK: 8. Refusals come at the key

    @Test func readOnlyRefusesStagingAtTheKey() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), allowsWrites: false)
        b.openNodeAndLoad(named: "notes")
        for key in [Key.character("e"), .character("x"), .character("o")] {
            b.press(key)
            #expect(b.prompt == nil)
            #expect(b.review.staged.isEmpty)
            #expect(b.message?.text == "--read-only: nothing can be staged or written")
        }
    }

    @Test func aViewRefusesEditsAtTheKey() throws {
        let folder = TemporaryFolder()
        let path = try plainFile(folder, "CREATE TABLE t(v); INSERT INTO t VALUES (1); CREATE VIEW w AS SELECT v FROM t;")
        let b = try browser(path)
        b.openNodeAndLoad(named: "w")
        for key in [Key.character("e"), .character("x"), .character("o")] {
            b.press(key)
            #expect(b.prompt == nil)
            #expect(b.message?.text.contains("w is a view") == true)
            // It names what can write, not the console, which cannot.
            #expect(b.message?.text.contains("`datacenter sql` can write them: the console here is read-only") == true)
        }
    }

    @Test func aLockedValueRefusesEditsAtTheKey() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), keys: .empty, width: 140)
        b.openNodeAndLoad(named: "messages")
        let column = try #require(b.grid?.source.columns.firstIndex(of: "content"))
        b.press(.right, times: column)
        b.press(.character("e"))
        #expect(b.prompt == nil)
        #expect(b.message?.text.contains("content is encrypted and locked (no key)") == true)
        b.openNodeAndLoad(named: "session")
        b.press(.character("e"))
        #expect(b.prompt == nil)
        #expect(b.message?.text.contains("locked (no key)") == true)
        b.press(.left)
        b.press(.character("e"))
        #expect(b.message?.text == "only the VALUE column of a KV entry can be edited")
    }

    // MARK: 9. Every grid, review line and console names its store

    @Test func theStoreIsNamedInTheHeaderTheReviewAndTheConsole() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, width: 160, height: 30)
        let settings = b.tree.visibleTree.filter {
            if case .kvBusiness(_, "settings") = $0.node.kind { return true } else { return false }
        }
        #expect(settings.count == 2)
        var headers: [String] = []
        for entry in settings {
            b.tree.cursor = try #require(b.tree.visibleTree.firstIndex { $0.node.id == entry.node.id })
            b.focus = .tree
            b.press(.enter)
            headers.append(b.render().lines()[0])
            // Stage the same change in both: theme=blue.
            let row = try #require(b.grid?.rows.firstIndex { $0.key.first?.stringValue == "theme" })
            b.press(.down, times: row)
            b.press(.character("e"))
            answer("blue", in: b)
        }
        #expect(headers[0].contains("kv: settings · common · common.sqlite"))
        #expect(headers[1].contains("kv: settings · user bob@example.com · user.sqlite"))
        #expect(b.review.staged.count == 2)
        b.press(.character("w"))
        let review = b.screenText
        #expect(review.contains("1. [common · common.sqlite] INSERT OR REPLACE INTO datacenter_kv"))
        #expect(review.contains("2. [user bob@example.com · user.sqlite] INSERT OR REPLACE INTO datacenter_kv"))
        b.press(.escape)
        b.press(.character(":"))
        #expect(b.render().lines()[1].contains("SQL · user bob@example.com · user.sqlite (read-only)"))
    }
}
