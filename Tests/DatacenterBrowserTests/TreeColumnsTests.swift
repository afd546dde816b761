import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// Columns under each table in the tree: `→` shows them (name, type, `pk`, `crypt`), `←`
/// hides them, Enter on one opens the table's grid on that column; Enter on a table still
/// opens it.
@Suite struct TreeColumnsTests {
    @Test func aTablesColumnsOpenUnderItAndEnterOnOneOpensItsGridThere() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), width: 120, height: 60)
        _ = b.tree.select(leafNamed: "messages")
        let before = b.tree.visibleTree.count
        b.press(.right)                                     // the columns, not the grid
        #expect(b.grid == nil && b.opening == nil)
        let shown = b.tree.visibleTree
        #expect(shown.count > before)
        let cursor = b.tree.cursor
        let columns = shown[(cursor + 1)...].prefix { $0.depth > shown[cursor].depth }.map(\.node)
        #expect(columns.map(\.label) == ["id", "conversation", "sender", "time", "content", "read", "starred"])
        #expect(columns.first?.detail == "INTEGER pk")
        #expect(columns.first { $0.label == "content" }?.detail.hasSuffix("crypt") == true)
        #expect(b.screenText.contains("▾ messages"))
        b.press(.right, .down, .down, .down, .down)         // into the columns (id), down to content
        #expect(b.tree.selectedNode?.label == "content")
        b.press(.enter)
        b.runCommands()
        let grid = try #require(b.grid)
        #expect(grid.source.title.contains("messages"))
        #expect(grid.source.columns[grid.column] == "content", "the cursor on the column chosen")
        // ← from a column goes to its table, ← again hides the columns.
        b.press(.tab, .left, .left)
        #expect(b.tree.visibleTree.count == before)
        b.press(.enter)                                     // Enter on a table: its grid, as always
        b.runCommands()
        #expect(b.grid?.source.title.contains("messages") == true)
    }
}
