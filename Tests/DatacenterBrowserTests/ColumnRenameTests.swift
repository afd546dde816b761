import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// `^` renames the cursor's column on screen; `=NAME` stages `ALTER TABLE … RENAME COLUMN`,
/// reviewed and committed like any edit, refused where code names the columns.
@Suite struct ColumnRenameTests {
    private func rename(_ text: String, in b: Browser) {
        b.press(.character("^"))
        answer(text, in: b)
    }

    @Test func aNameShownChangesTheHeaderOnlyAndStaysThroughASort() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder))
        b.openNodeAndLoad(named: "notes")
        b.press(.right)                                   // title
        rename("heading", in: b)
        #expect(b.render().lines()[1].contains("heading"))
        #expect(!b.render().lines()[1].contains("title"))
        #expect(b.review.staged.isEmpty)
        #expect(b.message?.text == "title shown as heading (on screen only: nothing is written)")
        b.press(.character("["))
        b.runCommands()
        #expect(b.render().lines()[1].contains("heading"), "kept through a sort")
        rename("", in: b)
        #expect(b.render().lines()[1].contains("title"))
    }

    @Test func equalsNameStagesTheRenameAndTheCommitWritesIt() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root)
        b.openNodeAndLoad(named: "notes")
        b.press(.right)
        rename("=heading", in: b)
        let edit = try #require(b.review.staged.first)
        #expect(edit.preview == "ALTER TABLE \"notes\" RENAME COLUMN \"title\" TO \"heading\"")
        let common = root + "/common.sqlite"
        #expect(try Database(path: common).query("SELECT name FROM pragma_table_info('notes') WHERE name = 'title'").count == 1)
        b.press(.character("w"), .character("c"))
        b.runCommands()
        #expect(b.review.staged.isEmpty, "\(b.message?.text ?? "")")
        #expect(try Database(path: common).query("SELECT name FROM pragma_table_info('notes')").compactMap { $0.values[0].stringValue }
                == ["id", "heading", "body", "created"])
        #expect(b.grid?.source.columns.contains("heading") == true, "the grid read again")
    }

    @Test func aRealRenameIsRefusedWhereCodeNamesTheColumns() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder))
        b.openNodeAndLoad(named: "messages")            // a DAO table
        b.press(.right)
        rename("=who", in: b)
        #expect(b.review.staged.isEmpty)
        #expect(b.message?.text.contains("only a table of the Tables group is renamed here") == true)
        b.openNodeAndLoad(named: "notes")
        b.press(.right)
        rename("=body", in: b)
        #expect(b.message?.text == "notes has a column body already")
        let other = TemporaryFolder()
        let readOnly = try browser(try makeDemo(other), allowsWrites: false)
        readOnly.openNodeAndLoad(named: "notes")
        readOnly.press(.right)
        rename("=x", in: readOnly)
        #expect(readOnly.message?.text == "--read-only: nothing can be staged or written")
    }
}
