import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// Live refresh marks what changed: when the grid is read again because another connection
/// wrote the file, rows whose cells differ from what was shown, and rows that are new among
/// them, are drawn in the `changed` role until the next key in the grid.
@Suite struct ChangedRowTests {
    /// The role the screen gives the grid row showing the key `n` (its first cell).
    func role(ofRow n: Int64, in b: Browser) -> StyleRole? {
        guard let grid = b.grid, let index = grid.rows.firstIndex(where: { $0.key.first?.int64Value == n }) else { return nil }
        let screen = b.render()
        return screen[b.paneArea.x, 2 + index - grid.top].role
    }

    @Test func rowsAnotherConnectionChangedAreMarkedUntilTheNextKey() throws {
        let folder = TemporaryFolder()
        let path = folder.file("live.db")
        try makeNumbersTable(at: path, rows: 10)
        let app = try Database(path: path)
        try app.execute("DELETE FROM numbers WHERE n = 4")
        let b = try browser(path, keys: .empty, width: 80, height: 24)
        b.openNodeAndLoad(named: "numbers")
        b.pollForChanges()
        b.runCommands()                                        // the first look
        #expect(role(ofRow: 2, in: b) == .grid)

        try app.execute("UPDATE numbers SET label = 'edited by the app' WHERE n = 2")
        try app.execute("INSERT INTO numbers(n, label) VALUES (4, 'inserted between'), (11, 'appended')")
        b.pollForChanges()
        b.runCommands()
        #expect(b.screenText.contains("edited by the app"))
        #expect(role(ofRow: 2, in: b) == .changed)             // changed
        #expect(role(ofRow: 4, in: b) == .changed)             // new between rows shown
        #expect(role(ofRow: 11, in: b) == .changed)            // new: every row was shown
        #expect(role(ofRow: 3, in: b) == .grid)                // unchanged
        #expect(role(ofRow: 1, in: b) == .treeSelected)       // the cursor cell stays the cursor's
        #expect(b.message?.text == "numbers changed on disk: read again · 3 changed rows marked")

        try app.execute("UPDATE numbers SET label = 'then this one' WHERE n = 6")
        b.pollForChanges()
        b.runCommands()                                        // a second change, before a key:
        #expect(role(ofRow: 6, in: b) == .changed)
        #expect(role(ofRow: 2, in: b) == .changed)             // the first ones stay marked
        #expect(b.message?.text == "numbers changed on disk: read again · 4 changed rows marked")

        b.press(.down)                                         // a key in the grid: looked at
        #expect(b.grid?.changedKeys.isEmpty == true)
        #expect(role(ofRow: 4, in: b) == .grid)
        #expect(role(ofRow: 6, in: b) == .grid)
        try app.execute("UPDATE numbers SET label = 'seen with r' WHERE n = 8")
        b.press(.character("r"))                               // r reads again and marks too
        #expect(role(ofRow: 8, in: b) == .changed)
        #expect(role(ofRow: 6, in: b) == .grid)
    }

    @Test func aRowBeyondTheRowsOnHandIsNotMarked() throws {
        let folder = TemporaryFolder()
        let path = folder.file("long.db")
        try makeNumbersTable(at: path, rows: 300)
        let b = try browser(path, keys: .empty, width: 80, height: 24)
        b.openNodeAndLoad(named: "numbers")
        let shownBefore = try #require(b.grid?.rows.count)
        let app = try Database(path: path)
        try app.execute("UPDATE numbers SET label = 'edited' WHERE n = 1")
        b.press(.character("r"))
        #expect(role(ofRow: 1, in: b) == .treeSelected)
        let marked = b.grid?.changedKeys ?? []
        #expect(marked == [[.integer(1)]])                     // not the rows read past the old window
        #expect((b.grid?.rows.count ?? 0) >= shownBefore)
    }
}
