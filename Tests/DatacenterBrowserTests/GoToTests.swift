import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// `Ctrl-G` goes to the Nth row in the grid's order (sort and filter kept) or to the row
/// with a key, read off the input loop; what names no row says why.
@Suite struct GoToTests {
    static let ctrlG = Key.character("\u{7}")

    /// The first cell's text of the row under the cursor.
    func cursorText(_ b: Browser, column: Int = 0) -> String? {
        b.grid.flatMap { $0.rows.indices.contains($0.cursor) ? $0.rows[$0.cursor].cells[column].text : nil }
    }

    func status(_ b: Browser) -> String { b.render().lines().last ?? "" }

    func goTo(_ text: String, in b: Browser) {
        b.press(GoToTests.ctrlG)
        #expect(b.prompt?.purpose == .goTo)
        answer(text, in: b)
    }

    @Test(arguments: ["numbers", "numbers_view"])
    func aNumberGoesToThatRowInTheGridsOrder(table: String) throws {
        let folder = TemporaryFolder()
        let db = folder.file("rows.db")
        try makeNumbersTable(at: db, rows: 3_000)
        try Database(path: db).execute("CREATE VIEW numbers_view AS SELECT * FROM numbers")
        let b = try browser(db, keys: .empty, width: 100, height: 20)
        b.openTreeNode(table)
        goTo("2345", in: b)
        #expect(cursorText(b) == "2345")
        #expect(status(b).contains("went to row 2,345"))
        b.press(.up)                                        // the rows before it page in as usual
        #expect(cursorText(b) == "2344")

        // Sorted descending and filtered: the 10th row shown.
        b.press(.character("]"))
        b.press(.character("f"))
        answer("n % 2 = 0", in: b)
        goTo("10", in: b)
        #expect(cursorText(b) == "2982")

        goTo("1501", in: b)
        #expect(status(b).contains("row 1,501 is past the last row (1,500 rows shown)"))
        #expect(cursorText(b) == "2982")                     // the cursor stayed
    }

    @Test func aKeyGoesToThatRowAndAMissingOneSaysSo() throws {
        let folder = TemporaryFolder()
        let db = folder.file("rows.db")
        try makeNumbersTable(at: db, rows: 3_000)
        let b = try browser(db, keys: .empty, width: 100, height: 20)
        b.openTreeNode("numbers")
        goTo("key 2999", in: b)
        #expect(cursorText(b) == "2999")
        #expect(status(b).contains("went to key 2999"))
        goTo("key 4000", in: b)
        #expect(status(b).contains("no row with key 4000"))
        #expect(cursorText(b) == "2999")
        b.press(.character("f"))
        answer("n < 10", in: b)
        goTo("key 20", in: b)
        #expect(status(b).contains("no row with key 20 where n < 10"))
        goTo("soon", in: b)
        #expect(status(b).contains("type a row number (500) or key VALUE (key 42)"))
        goTo("0", in: b)
        #expect(status(b).contains("rows are numbered from 1"))
    }

    @Test func keysOfKVBusinessesAndCompositeKeysAndViews() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root)
        b.openTreeNode("settings")
        let keys = try #require(b.grid?.rows.map { $0.key[0].stringValue ?? "" })
        goTo("key \(keys[keys.count - 1])", in: b)
        #expect(cursorText(b) == keys[keys.count - 1])
        goTo("key \(keys[0])x", in: b)
        #expect(status(b).contains("no row with key \(keys[0])x"))
        goTo("2", in: b)
        #expect(cursorText(b) == keys[1])

        let db = folder.file("pk.db")
        let file = try Database(path: db)
        try file.execute("CREATE TABLE pairs(a INTEGER, b TEXT, v, PRIMARY KEY (a, b)) WITHOUT ROWID")
        try file.execute("INSERT INTO pairs VALUES (1, 'x', 'one x'), (1, 'y', 'one y'), (2, 'x', 'two x')")
        try file.execute("CREATE VIEW pairs_view AS SELECT * FROM pairs")
        let p = try browser(db, keys: .empty)
        p.openTreeNode("pairs")
        goTo("key 1, y", in: p)
        #expect(cursorText(p, column: 2) == "one y")
        goTo("key 1", in: p)
        #expect(status(p).contains("key has 2 columns (a, b)"))
        p.press(.tab)                                       // back to the tree
        p.openTreeNode("pairs_view")
        goTo("key 1", in: p)
        #expect(status(p).contains("give a row number"))
        goTo("3", in: p)
        #expect(cursorText(p, column: 2) == "two x")
    }
}
