import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser
import DatacenterText

@Suite struct BrowserScreenTests {
    @Test func demoTreeOnTheFirstScreen() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, width: 100, height: 30)
        try assertSnapshot(b.render(), named: "demo-tree", redact: [root: "<root>"])
        #expect(b.screenText.contains("user alice (current)"))
    }

    @Test func encryptedKVValuesShowDecryptedWithTheKey() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root)
        b.openTreeNode("session")
        try assertSnapshot(b.render(), named: "kv-session-decrypted", redact: [root: "<root>"])
        #expect(b.screenText.contains("sk_live_51Hdemo-secret-token"))
        let grid = b.render()
        // The decrypted cell is drawn in the decrypted role.
        let line = grid.lines().firstIndex { $0.contains("sk_live") }!
        let column = grid.lines()[line].distance(of: "sk_live")!
        #expect([StyleRole.decrypted, .treeSelected].contains(grid[column, line].role))
    }

    @Test(arguments: [(KeyRing.empty, "[locked: no key]"), (KeyRing([try! EncryptionKey(bytes: Array(repeating: 9, count: 32))]), "[locked: wrong key]")])
    func encryptedValuesStayLockedWithoutTheRightKey(keys: KeyRing, marker: String) throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, keys: keys)
        b.openTreeNode("session")
        let text = b.screenText
        #expect(text.contains(marker))
        #expect(!text.contains("sk_live"))
        // The ciphertext is never shown as a value: no blob preview in the value column.
        #expect(!text.contains("⟨"))
    }

    @Test func daoCryptColumnsAreDecryptedFromTheStoreMetadata() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let locked = try browser(root, keys: .empty)
        locked.openTreeNode("messages")
        #expect(locked.screenText.contains("[locked: no key]"))
        let open = try browser(root)
        open.openTreeNode("messages")
        #expect(!open.screenText.contains("[locked"))
        #expect(open.render().cells.contains { $0.role == .decrypted })
    }

    @Test func inspectorShowsJSONForPropertyListsAndHexForBlobs() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root)
        b.openTreeNode("app")
        b.press(.enter)
        let json = b.screenText
        #expect(json.contains("plist · json view"))
        #expect(json.contains("\"name\" : \"Demo App\""))
        b.press(.character("m"))
        #expect(b.screenText.contains("hex view"))
        #expect(b.screenText.contains("00000000  "))
        b.press(.escape)
        #expect(b.focus == .grid)
    }

    @Test func helpScreenListsTheKeys() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder))
        b.press(.character("?"))
        try assertSnapshot(b.render(), named: "help", redact: [b.catalog.title: "<root>"])
        #expect(b.screenText.contains("Keys (Esc closes the help)"))
        b.press(.escape)
        #expect(!b.screenText.contains("Keys (Esc closes the help)"))
    }

    @Test func aTinyTerminalStillDrawsAndATooSmallOneSaysSo() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, width: 40, height: 10)
        b.openTreeNode("settings")
        try assertSnapshot(b.render(), named: "tiny-40x10", redact: [root: "<root>"])
        b.handle(.resize(width: 20, height: 5))
        #expect(b.screenText.contains("Terminal too small"))
        // However small, the size needed is shown whole, never cut off.
        for (width, height) in [(20, 5), (12, 3), (9, 1), (4, 1)] {
            b.handle(.resize(width: width, height: height))
            let text = b.screenText
            #expect(text.contains("30×6"), "\(width)×\(height): \(text)")
            #expect(width < 9 || text.contains("need"), "\(width)×\(height): \(text)")
        }
        b.handle(.resize(width: 100, height: 30))
        #expect(b.screenText.contains("fontSize"))
    }

    @Test func resizeKeepsTheCursorRowOnScreen() throws {
        let folder = TemporaryFolder()
        let db = folder.file("rows.db")
        try makeNumbersTable(at: db, rows: 500)
        let b = try browser(db, keys: .empty, width: 80, height: 40)
        b.openTreeNode("numbers")
        b.press(.down, times: 30)
        b.handle(.resize(width: 80, height: 12))
        let cursorKey = try #require(b.grid.map { $0.rows[$0.cursor].key.first?.int64Value ?? 0 })
        #expect(cursorKey == 31)
        #expect(b.screenText.contains("row 31\n"))
    }

    @Test func aTallerWindowScrollsTheTreeBackSoNoBlankIsLeftBelow() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), width: 100, height: 10)
        let nodes = b.tree.visibleTree
        #expect(nodes.count > 8 && nodes.count < 40)               // longer than the short tree, shorter than the tall one
        b.press(.end)                                               // the last node: the tree scrolls down
        #expect(!b.screenText.contains("common common.sqlite"))
        b.handle(.resize(width: 100, height: 40))
        let treeLines = b.render().lines().dropFirst().prefix(38).map { String($0.prefix(b.treeWidth)) }
        // Every node shows, the first at the top: no node hidden above, no blank in between.
        #expect(treeLines.first?.contains("common common.sqlite") == true)
        #expect(treeLines.prefix(nodes.count).allSatisfy { !$0.trimmingCharacters(in: .whitespaces).isEmpty })
        #expect(b.tree.cursor == nodes.count - 1)                   // the cursor stays on the last node
        #expect(treeLines[nodes.count - 1].contains(nodes[nodes.count - 1].node.label))
    }

    @Test func hintsThatDoNotFitBesideThePositionEndInAnEllipsis() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), width: 80, height: 20)
        b.openNodeAndLoad(named: "notes")
        #expect(b.focus == .grid)
        let status = try #require(b.render().lines().last)
        let position = try #require(b.grid?.position)
        // The position is whole at the right; the hints stop with `…` and a blank before it.
        #expect(status.hasSuffix(position))
        let hints = status.dropLast(position.count)
        #expect(hints.hasSuffix("… "))
        #expect(hints.hasPrefix(" H help  ↑↓ g G move"))
        #expect(TerminalText.width(of: String(status)) == 80)
    }

    @Test func controlCharactersNeverReachTheScreenAndWideCharactersKeepColumns() throws {
        let folder = TemporaryFolder()
        let db = folder.file("edge.db")
        let database = try Database(path: db)
        try database.executeScript("""
            CREATE TABLE edge(id INTEGER PRIMARY KEY, kind TEXT, val);
            INSERT INTO edge VALUES (1, 'escape', 'bell' || char(7) || ' esc' || char(27) || '[31mRED' || char(27) || '[0m');
            INSERT INTO edge VALUES (2, 'wide', '日本語テキスト 😀 ok');
            INSERT INTO edge VALUES (3, 'multi', 'line one' || char(10) || 'line two');
            INSERT INTO edge VALUES (4, 'blob', X'00FF10');
            INSERT INTO edge VALUES (5, 'null', NULL);
            """)
        let b = try browser(db, keys: .empty, width: 100, height: 20)
        b.openTreeNode("edge")
        let screen = b.render()
        #expect(!screen.cells.contains { $0.text.unicodeScalars.contains { TerminalText.isControl($0) } })
        let text = screen.text
        #expect(text.contains("\\u{1b}[31mRED"))
        #expect(text.contains("line one\\nline two"))
        #expect(text.contains("⟨3 B⟩ 00 ff 10"))
        #expect(text.contains("NULL"))
        // Every line takes exactly the screen width in display columns.
        for line in screen.lines() { #expect(TerminalText.width(of: line) == 100) }
        try assertSnapshot(screen, named: "edge-cases", redact: [db: "<db>"])
    }
}

/// A table `numbers(n INTEGER PRIMARY KEY, label TEXT)` with rows 1…count.
func makeNumbersTable(at path: String, rows count: Int) throws {
    let db = try Database(path: path)
    try db.execute("CREATE TABLE numbers(n INTEGER PRIMARY KEY, label TEXT)")
    try db.inTransaction {
        for n in 1...count { try db.execute("INSERT INTO numbers(n, label) VALUES (?, ?)", [.integer(Int64(n)), .text("row \(n)")]) }
    }
}

extension String {
    /// The column (in characters) where `needle` starts.
    func distance(of needle: String) -> Int? {
        range(of: needle).map { distance(from: startIndex, to: $0.lowerBound) }
    }
}
