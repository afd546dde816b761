import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// `<` `>` `_` set the cursor column's width by hand, `0` `$` go to the first and last
/// column, and widths set by hand survive reading the grid again.
@Suite struct ColumnWidthTests {
    @Test func widthsSetByHandAndColumnJumps() throws {
        let folder = TemporaryFolder()
        let path = folder.file("w.db")
        let db = try Database(path: path)
        try db.execute("CREATE TABLE w (a INTEGER, long TEXT, z TEXT)")
        try db.execute("INSERT INTO w VALUES (1, ?, 'end')", [.text(String(repeating: "x", count: 90))])
        let b = try browser(path, keys: .empty, width: 160, height: 20)
        b.openNodeAndLoad(named: "w")
        let widths = { b.grid?.columnWidths(rowCount: 10) ?? [] }
        #expect(widths() == [3, 40, 3])                        // fitted, at most 40
        b.press(.character("$"))
        #expect(b.grid?.column == 2)
        b.press(.character("0"))
        #expect(b.grid?.column == 0)
        b.press(.character(">"), .character(">"))
        #expect(widths()[0] == 7)
        b.press(.character("<"))
        #expect(widths()[0] == 5)
        b.press(.character("<"), .character("<"), .character("<"))
        #expect(widths()[0] == 3)                              // never under 3
        b.press(.right, .character("_"))
        #expect(widths()[1] == 90)                             // fits the whole value shown
        #expect(b.screenText.contains(String(repeating: "x", count: 90)))
        b.press(.character("r"))
        #expect(widths() == [3, 90, 3])                        // kept when read again
    }
}
