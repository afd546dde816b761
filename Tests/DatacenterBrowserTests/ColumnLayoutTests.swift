import DatacenterKit
import Testing
@testable import DatacenterBrowser

/// `-` hides the cursor's column, `+` shows the hidden ones again, `{` `}` move a column:
/// the screen changes, the table's columns do not, and every key that works on "the
/// cursor's column" still finds the column drawn under the cursor.
@Suite struct ColumnLayoutTests {
    /// A table `t (a, b, c, d)` of three rows, open in the grid.
    func browserOnFourColumns(_ folder: TemporaryFolder) throws -> Browser {
        let path = folder.file("four.db")
        let db = try Database(path: path)
        try db.execute("create table t (a text, b text, c text, d text)")
        for i in 1...3 { try db.execute("insert into t values ('a\(i)', 'b\(i)', 'c\(i)', 'd\(i)')") }
        let b = try browser(path, keys: .empty, width: 100, height: 20)
        b.openNodeAndLoad(named: "t")
        return b
    }

    /// The grid's header line, its column names in the order drawn.
    func header(_ b: Browser) -> [String] {
        let line = b.render().lines().first { $0.contains("│a") || $0.contains("│b") || $0.contains("│c") || $0.contains("│d") } ?? ""
        return line.split(separator: "│").last.map { $0.split(separator: " ").map(String.init) } ?? []
    }

    @Test func hideShowAndMoveChangeTheScreenNotTheTable() throws {
        let folder = TemporaryFolder()
        let b = try browserOnFourColumns(folder)
        #expect(header(b) == ["a", "b", "c", "d"])
        b.press(.right, .character("-"))                           // hide b: the cursor goes to c
        #expect(header(b) == ["a", "c", "d"])
        #expect(b.grid?.column == 2)
        #expect(b.message?.text.contains("hid b") == true)
        b.press(.left)                                             // ← skips the hidden column
        #expect(b.grid?.column == 0)
        b.press(.character("}"), .character("}"))                  // a past c, then past d
        #expect(header(b) == ["c", "d", "a"])
        #expect(b.grid?.column == 0, "the cursor stays on the column moved")
        b.press(.character("$"), .character("0"))
        #expect(b.grid?.column == 2, "0 is the first column shown: c")
        b.press(.character("e"))                                   // the cursor's column is edited
        #expect(b.prompt?.label == "edit c: ")
        b.press(.escape)
        b.press(.character("+"))
        #expect(header(b) == ["b", "c", "d", "a"], "b back in its place in the order")
        #expect(try b.grid.map { try #require($0.source as? TableSource).columns } == ["a", "b", "c", "d"], "the table as it is")
    }

    @Test func theLastColumnShownStaysAndCShowsAHiddenOne() throws {
        let folder = TemporaryFolder()
        let b = try browserOnFourColumns(folder)
        b.press(.character("-"), .character("-"), .character("-"))
        #expect(header(b) == ["d"])
        b.press(.character("-"))
        #expect(header(b) == ["d"])
        #expect(b.message?.isError == true)
        b.press(.character("c"))
        answer("b", in: b)
        #expect(header(b) == ["b", "d"])
        #expect(b.grid?.column == 1)
    }

    @Test func aFilterAndAReloadKeepTheLayout() throws {
        let folder = TemporaryFolder()
        let b = try browserOnFourColumns(folder)
        b.press(.character("-"), .character("}"))                  // hide a; move b past c
        #expect(header(b) == ["c", "b", "d"])
        b.press(.character("f"))
        answer("a <> 'a2'", in: b)
        b.runCommands()
        #expect(header(b) == ["c", "b", "d"])
        #expect(b.grid?.column == 1)
        #expect(!b.screenText.contains("b2"))
        b.press(.character("r"))
        b.runCommands()
        #expect(header(b) == ["c", "b", "d"])
        // A click lands on the column drawn there.
        let lines = b.render().lines()
        let y = try #require(lines.firstIndex { $0.contains("d1") })
        let x = try #require(lines[y].distance(of: "d1"))
        b.handle(.click(x: x, y: y))
        #expect(b.grid?.column == 3)
    }
}
