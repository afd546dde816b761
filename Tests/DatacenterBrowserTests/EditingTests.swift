import DatacenterDemo
import DatacenterDAO
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

@Suite struct EditingTests {
    @Test func aCellEditIsStagedAsSQLAndWrittenOnlyOnCommit() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let common = root + "/common.sqlite"
        let b = try browser(root, width: 120, height: 30)
        b.openNodeAndLoad(named: "notes")
        b.press(.right)                       // the title column
        b.press(.character("e"))
        #expect(b.prompt?.text == "Welcome")
        answer("Hello again", in: b)
        #expect(b.review.staged.count == 1)
        #expect(b.review.staged[0].preview == "UPDATE \"notes\" SET \"title\" = 'Hello again' WHERE \"_rowid_\" = 1")
        #expect(try Database(path: common, mode: .readOnly).scalar("SELECT title FROM notes WHERE id = 1")?.stringValue == "Welcome")
        b.press(.character("w"))
        #expect(b.focus == .review)
        try assertSnapshot(b.render(), named: "staged-edits")
        b.press(.character("c"))
        #expect(b.review.staged.isEmpty)
        #expect(try Database(path: common, mode: .readOnly).scalar("SELECT title FROM notes WHERE id = 1")?.stringValue == "Hello again")
        #expect(b.screenText.contains("Hello again"))
        #expect(b.screenText.contains("committed 1 edit(s)"))
    }

    @Test func discardWritesNothing() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let before = try Data(contentsOf: URL(fileURLWithPath: root + "/common.sqlite"))
        let b = try browser(root)
        b.openNodeAndLoad(named: "notes")
        b.press(.character("x"))
        #expect(b.review.staged.first?.preview == "DELETE FROM \"notes\" WHERE \"_rowid_\" = 1")
        b.press(.character("w"))
        b.press(.character("u"))
        #expect(b.review.staged.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/common.sqlite")) == before)
    }

    @Test func editsOfAStoreCommitTogetherOrNotAtAll() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let common = root + "/common.sqlite"
        let b = try browser(root)
        b.openNodeAndLoad(named: "notes")
        b.press(.character("x"))                                  // delete note 1
        b.press(.character("o"))
        answer("{\"title\": null, \"body\": \"no title\"}", in: b)  // violates NOT NULL at commit
        #expect(b.review.staged.count == 2)
        b.press(.character("w"))
        b.press(.character("c"))
        #expect(b.screenText.contains("commit failed"))
        #expect(b.review.staged.count == 2)
        #expect(try Database(path: common, mode: .readOnly).scalar("SELECT count(*) FROM notes")?.int64Value == 3)
        b.press(.down)
        b.press(.character("x"))                                  // drop the bad insert
        b.press(.character("c"))
        #expect(try Database(path: common, mode: .readOnly).scalar("SELECT count(*) FROM notes")?.int64Value == 2)
    }

    @Test func insertsNameUnknownColumns() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder))
        b.openNodeAndLoad(named: "notes")
        b.press(.character("o"))
        answer("{\"titel\": \"x\"}", in: b)
        #expect(b.review.staged.isEmpty)
        #expect(b.screenText.contains("notes has no column titel"))
    }

    @Test func anEncryptedKVValueStaysEncryptedWithItsType() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root)
        b.openNodeAndLoad(named: "session")
        b.press(.character("e"))
        #expect(b.prompt?.text == "sk_live_51Hdemo-secret-token")
        answer("sk_live_new", in: b)
        // The review shows what will be written, marked as encrypted on commit: a typo is caught
        // before the commit; what is written is ciphertext (below).
        #expect(b.review.staged.first?.preview.contains("'sk_live_new' /*encrypted*/") == true)
        b.press(.character("w"))
        b.press(.character("c"))
        let store = try Store(path: root + "/common.sqlite", crypt: KeyRing([DemoStore.key]))
        #expect(try store.kv.string(forKey: "apiToken", business: "session") == "sk_live_new")
        let entry = try #require(try store.kv.entry(forKey: "apiToken", business: "session"))
        #expect(entry.options.contains(.defaultEncrypted))
        #expect(entry.stored.dataValue.map { $0.range(of: Data("sk_live_new".utf8)) == nil } == true)
    }

    @Test func aKVValueMustKeepItsType() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder))
        b.openNodeAndLoad(named: "settings")
        b.press(.character("e"))          // fontSize, an int
        answer("big", in: b)
        #expect(b.review.staged.isEmpty)
        #expect(b.screenText.contains("holds an int"))
    }

    @Test func editingEncryptedDataNeedsAKey() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), keys: .empty)
        b.openNodeAndLoad(named: "session")
        b.press(.character("e"))
        #expect(b.prompt == nil)
        #expect(b.review.staged.isEmpty)
        #expect(b.screenText.contains("needs the key that opens it (--key)"))
    }

    @Test func aCryptColumnEditIsEncrypted() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, width: 140, height: 30)
        _ = try openMessagesContent(b)
        b.press(.character("e"))
        answer("rewritten", in: b)
        b.press(.character("w"))
        b.press(.character("c"))
        let db = try Database(path: root + "/users/alice/user.sqlite", mode: .readOnly)
        let stored = try #require(try db.scalar("SELECT content FROM messages WHERE id = 1")?.dataValue)
        #expect(stored.range(of: Data("rewritten".utf8)) == nil)
        #expect(try KeyRing([DemoStore.key]).decrypt(stored) == Data("rewritten".utf8))
        #expect(b.screenText.contains("rewritten"))
    }

    /// An edit of a crypt column shows the plaintext it writes, marked as encrypted on
    /// commit, and writes ciphertext (before, the review showed only "<N bytes, encrypted>").
    @Test func anEncryptedColumnEditShowsItsPlaintextMarkedAndWritesCiphertext() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, width: 160, height: 30)
        b.openNodeAndLoad(named: "messages")
        let column = try #require(b.grid?.source.columns.firstIndex(of: "content"))
        b.press(.right, times: column)
        b.press(.character("e"))
        answer("'Lunch at 1?'", in: b)
        let preview = try #require(b.review.staged.first?.preview)
        #expect(preview.contains("SET \"content\" = 'Lunch at 1?' /*encrypted*/"), "\(preview)")
        b.press(.character("w"))
        b.press(.character("c"))
        let user = try DataCenter(rootPath: root, crypt: KeyRing([DemoStore.key])).store(forUser: "alice")
        let stored = try user.queue.read { try $0.scalar("select content from messages where id = 1") }
        #expect(stored?.dataValue.map { $0.range(of: Data("Lunch at 1?".utf8)) == nil } == true, "written as ciphertext")
        #expect(try CryptColumn.plaintext(of: try #require(stored), with: KeyRing([DemoStore.key])) == .text("Lunch at 1?"))
    }

    /// A staged edit shows in its cell (a delete in its whole row), in the `staged` colours,
    /// until it is committed: not only in the count.
    @Test func aStagedEditShowsInItsCell() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), width: 120, height: 30)
        b.openNodeAndLoad(named: "notes")
        b.press(.right)                                   // title
        b.press(.character("e"))
        answer("Hello again", in: b)
        b.press(.down)
        b.press(.character("x"))                          // row 2 deleted
        b.press(.down)                                    // the cursor off both
        func roles(onLineWith text: String) throws -> [StyleRole] {
            let screen = b.render()
            let y = try #require(screen.lines().firstIndex { $0.contains(text) })
            let x = try #require(screen.lines()[y].range(of: text)).lowerBound.utf16Offset(in: screen.lines()[y])
            return (x..<(x + text.count)).map { screen[$0, y].role }
        }
        // The edited cell reads its new value, in the staged colours (VisiData's way).
        #expect(!b.screenText.contains("Welcome"))
        #expect(try roles(onLineWith: "Hello again").allSatisfy { $0 == .staged }, "the edited cell")
        #expect(try roles(onLineWith: "Quotes").allSatisfy { $0 == .staged }, "the row staged for deletion")
        #expect(try roles(onLineWith: "Unicode").allSatisfy { $0 != .staged }, "the other rows")
        b.press(.character("w"))
        b.press(.character("u"))                          // discard: the marks go
        b.press(.escape)
        #expect(try roles(onLineWith: "Welcome").allSatisfy { $0 != .staged })
    }

    /// The inspector of a staged cell shows its new value, marked staged (and to be
    /// encrypted in a crypt column); `o` shows the value it replaces, `o` again the new one.
    /// `e` on it starts from the new value, and nothing is written before the commit.
    @Test func aStagedCellInspectsAsItsNewValueAndTheOldOneKeyAway() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, width: 160, height: 30)
        let column = try openMessagesContent(b)
        let old = try #require(b.grid.map { $0.rows[$0.cursor].cells[column].text })
        b.press(.character("e"))
        answer("'Lunch at 1?'", in: b)
        #expect(b.screenText.contains("Lunch at 1?"))
        #expect(!b.screenText.contains(old))
        b.press(.enter)
        #expect(b.focus == .inspector)
        #expect(b.inspector?.summary.contains("staged, written on commit encrypted (o: the value before)") == true)
        #expect(b.screenText.contains("Lunch at 1?"))
        b.press(.character("o"))
        #expect(b.inspector?.summary.contains("the value before the staged edit") == true)
        #expect(b.screenText.contains(old))
        #expect(!b.screenText.contains("Lunch at 1?"))
        b.press(.character("o"))
        #expect(b.screenText.contains("Lunch at 1?"))
        b.press(.escape)
        b.press(.character("e"))
        #expect(b.prompt?.text == "Lunch at 1?")
        b.press(.escape)
        // Nothing was written: the file still holds the value read.
        let user = try DataCenter(rootPath: root, crypt: KeyRing([DemoStore.key])).store(forUser: "alice")
        let stored = try user.queue.read { try $0.scalar("select content from messages where id = 1") }
        #expect(try CryptColumn.plaintext(of: try #require(stored), with: KeyRing([DemoStore.key])) == .text(old))
        // A cell not staged has no value before: o says so.
        b.press(.down, .enter, .character("o"))
        #expect(b.message?.text == "o shows the value a staged edit replaces: this cell is not staged")
    }

    /// Opens alice's messages with the cursor on its crypt column `content`; its index.
    private func openMessagesContent(_ b: Browser) throws -> Int {
        b.openNodeAndLoad(named: "messages")
        let column = try #require(b.grid?.source.columns.firstIndex(of: "content"))
        b.press(.right, times: column)
        return column
    }

    /// `u` takes back staged edits one by one, newest first, and `Ctrl-R` stages them again;
    /// a new edit ends the redo chain. Nothing is written either way.
    @Test func uUndoesStagedEditsOneByOneAndCtrlRRedoesThem() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, width: 120, height: 30)
        b.openNodeAndLoad(named: "notes")
        b.press(.right)                                   // title
        b.press(.character("e"))
        answer("First", in: b)
        b.press(.down, .character("e"))
        answer("Second", in: b)
        #expect(b.review.staged.count == 2)
        b.press(.character("u"))
        #expect(b.review.staged.map(\.preview).first?.contains("'First'") == true)
        #expect(b.review.staged.count == 1)
        let grid = b.render().lines().dropLast().joined(separator: "\n")   // not the status line, which names it
        #expect(grid.contains("Quotes") && !grid.contains("Second"))
        #expect(b.message?.text.hasPrefix("undid: UPDATE \"notes\" SET \"title\" = 'Second'") == true)
        b.press(.character("u"))
        #expect(b.review.staged.isEmpty)
        #expect(b.screenText.contains("Welcome"))
        b.press(.character("u"))
        #expect(b.message?.text == "nothing staged to undo")
        b.press(.control("r"))
        #expect(b.review.staged.count == 1)
        #expect(b.screenText.contains("First") && !b.screenText.contains("Welcome"))
        // A new edit: what was taken back is not redone over it.
        b.press(.character("e"))
        answer("Third", in: b)
        b.press(.control("r"))
        #expect(b.review.staged.count == 2)
        #expect(b.message?.text == "nothing to redo: u takes back the last staged edit")
        // Nothing was written.
        let rows = try Database(path: root + "/common.sqlite").query("select title from notes order by rowid").map { $0.values[0] }
        #expect(rows.prefix(2) == [.text("Welcome"), .text("Quotes")])
    }
}
