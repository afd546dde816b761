import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// Live refresh: while another connection writes the file (an app running beside the
/// browser), the grid notices at its next poll and reads its rows again around the cursor;
/// `r` does the same at once.
@Suite struct LiveRefreshTests {
    /// The browser's own commit is not "changed on disk": the poll after it reads the rows
    /// again but leaves the commit's message (and its `w then Z` hint), its count of rows
    /// marked said once; a write by another connection after that is announced as before.
    @Test func theBrowsersOwnCommitKeepsItsMessageThroughThePoll() throws {
        let folder = TemporaryFolder()
        let path = folder.file("live.db")
        try makeNumbersTable(at: path, rows: 10)
        let b = try browser(path, keys: .empty, width: 120, height: 24, stateFolder: URL(fileURLWithPath: folder.file("state")))
        b.openNodeAndLoad(named: "numbers")
        b.pollForChanges()
        b.runCommands()                                        // the first look
        b.press(.right, .character("e"))
        answer("edited here", in: b)
        b.press(.character("w"), .character("c"))
        b.pollForChanges()
        b.runCommands()
        #expect(b.message?.text == "committed 1 edit(s) · w then Z undoes it · 1 changed row marked", "\(b.message as Any)")
        try Database(path: path).execute("UPDATE numbers SET label = 'by the app' WHERE n = 5")
        b.pollForChanges()
        b.runCommands()
        #expect(b.message?.text.hasPrefix("numbers changed on disk: read again") == true, "\(b.message as Any)")
        #expect(b.screenText.contains("by the app"))
    }

    /// A row another connection puts back above the cursor shows, with the rows above it:
    /// the grid does not keep the cursor's screen line at the price of hiding the first rows
    /// while the screen has room (before, row 1 scrolled out of sight, and looked deleted).
    @Test func rowsInsertedAboveTheCursorDoNotHideTheFirstRows() throws {
        let folder = TemporaryFolder()
        let path = folder.file("live.db")
        try makeNumbersTable(at: path, rows: 3)
        let app = try Database(path: path)
        try app.execute("DELETE FROM numbers WHERE n = 2")
        let b = try browser(path, keys: .empty, width: 80, height: 24)
        b.openNodeAndLoad(named: "numbers")
        b.pollForChanges()
        b.runCommands()
        b.press(.down)                                         // on row 3, the screen's second line
        try app.execute("INSERT INTO numbers(n, label) VALUES (2, 'put back')")
        b.pollForChanges()
        b.runCommands()
        #expect(b.grid.map { $0.rows[$0.cursor].key } == [.integer(3)])
        #expect(b.grid?.top == 0)
        #expect(b.screenText.contains("row 1") && b.screenText.contains("put back"))
    }

    @Test func aWriteByAnotherConnectionIsReadAtTheNextPoll() throws {
        let folder = TemporaryFolder()
        let path = folder.file("live.db")
        try makeNumbersTable(at: path, rows: 300)
        let b = try browser(path, keys: .empty, width: 80, height: 24)
        b.openNodeAndLoad(named: "numbers")
        b.press(.pageDown, .pageDown, .down)
        let key = { b.grid.map { $0.rows[$0.cursor].key.first?.int64Value ?? -1 } }
        let cursorRow = try #require(key())

        b.pollForChanges()
        b.runCommands()                                        // the first look: nothing to read again
        b.pollForChanges()
        b.runCommands()
        #expect(!b.screenText.contains("changed on disk"))

        let app = try Database(path: path)
        try app.execute("UPDATE numbers SET label = 'written by the app' WHERE n = ?", [.integer(cursorRow)])
        try app.execute("DELETE FROM numbers WHERE n = 1")
        b.pollForChanges()
        b.runCommands()
        #expect(b.screenText.contains("changed on disk"))
        #expect(key() == cursorRow)                            // the cursor stays on its row
        #expect(b.screenText.contains("written by the app"))
        #expect(b.grid?.total == 299)                          // counted again

        b.pollForChanges()
        b.runCommands()
        #expect(b.screenText.contains("changed on disk"))      // the message stays until a key…
        b.press(.down, .up)
        b.pollForChanges()
        b.runCommands()
        #expect(!b.screenText.contains("changed on disk"))     // …and no change, no reading again

        try app.execute("UPDATE numbers SET label = 'again' WHERE n = ?", [.integer(cursorRow)])
        b.press(.character("r"))
        #expect(b.screenText.contains("again"))
        #expect(key() == cursorRow)
    }
}
