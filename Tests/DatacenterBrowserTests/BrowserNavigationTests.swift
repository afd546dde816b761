import DatacenterKit
import DatacenterDemo
import Foundation
import Testing
@testable import DatacenterBrowser

@Suite struct BrowserNavigationTests {
    @Test func pagingReachesTheLastRowAndBackWithoutLoadingTheTable() throws {
        let folder = TemporaryFolder()
        let db = folder.file("rows.db")
        try makeNumbersTable(at: db, rows: 5_000)
        let b = try browser(db, keys: .empty, width: 80, height: 24)
        b.openTreeNode("numbers")
        let page = b.visibleRowCount
        #expect(b.screenText.contains("row 1\n"))
        b.press(.end)
        #expect(b.grid?.rows.last?.key.first?.int64Value == 5_000)
        #expect(b.screenText.contains("row 5000"))
        #expect(b.screenText.contains("of 5,000 rows"))
        b.press(.pageUp, times: 3)
        b.press(.pageDown, times: 10)
        b.press(.home)
        #expect(b.grid?.rows.first?.key.first?.int64Value == 1)
        for _ in 0..<200 {
            b.press(.down)
            #expect((b.grid?.rows.count ?? 0) <= page * 3)
        }
        #expect(b.grid.map { $0.rows[$0.cursor].key.first?.int64Value } == 201)
        b.press(.up, times: 50)
        #expect(b.grid.map { $0.rows[$0.cursor].key.first?.int64Value } == 151)
    }

    @Test func withoutRowIDTablesPageByPrimaryKey() throws {
        let folder = TemporaryFolder()
        let db = folder.file("pk.db")
        let database = try Database(path: db)
        try database.execute("CREATE TABLE pairs(a TEXT, b INTEGER, v TEXT, PRIMARY KEY (a, b)) WITHOUT ROWID")
        try database.inTransaction {
            for a in ["x", "y"] { for n in 1...60 { try database.execute("INSERT INTO pairs VALUES (?, ?, ?)", [.text(a), .integer(Int64(n)), .text("\(a)\(n)")]) } }
        }
        let b = try browser(db, keys: .empty, width: 80, height: 12)
        b.openTreeNode("pairs")
        b.press(.end)
        #expect(b.grid?.rows.last?.key == [.text("y"), .integer(60)])
        b.press(.home)
        b.press(.down, times: 70)
        #expect(b.grid.map { $0.rows[$0.cursor].key } == [.text("y"), .integer(11)])
    }

    @Test func viewsPageByOffset() throws {
        let folder = TemporaryFolder()
        let db = folder.file("view.db")
        try makeNumbersTable(at: db, rows: 100)
        try Database(path: db).execute("CREATE VIEW evens AS SELECT n, label FROM numbers WHERE n % 2 = 0")
        let b = try browser(db, keys: .empty, width: 80, height: 12)
        b.openTreeNode("evens")
        b.press(.end)
        #expect(b.screenText.contains("row 100\n"))
        b.press(.up, times: 20)
        #expect(b.grid.map { $0.rows[$0.cursor].cells[0].text } == "60")
    }

    @Test func rowsPagedByOffsetAreNumberedFromOne() throws {
        let folder = TemporaryFolder()
        let db = folder.file("view.db")
        try makeNumbersTable(at: db, rows: 100)
        try Database(path: db).execute("CREATE VIEW evens AS SELECT n, label FROM numbers WHERE n % 2 = 0")
        let b = try browser(db, keys: .empty, width: 80, height: 12)
        b.openTreeNode("evens")
        func status() -> String { b.render().lines().last ?? "" }
        #expect(status().hasSuffix("row 1 of 50 rows "))
        b.press(.end)
        #expect(status().hasSuffix("row 50 of 50 rows "))
        b.press(.up)
        #expect(status().hasSuffix("row 49 of 50 rows "))
        // A table keeps its rowid as the key.
        b.openNodeAndLoad(named: "numbers")
        b.press(.down)
        #expect(status().hasSuffix("key 2 of 100 rows "))
    }

    @Test func treeKeysExpandCollapseAndQuit() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder))
        let before = b.tree.visibleTree.count
        b.press(.left)   // collapse the first store
        #expect(b.tree.visibleTree.count < before)
        b.press(.right)
        #expect(b.tree.visibleTree.count == before)
        b.press(.character("q"))
        #expect(b.isFinished)
    }

    @Test func clicksOpenNodesAndTheWheelScrolls() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root)
        let index = try #require(b.tree.visibleTree.firstIndex { $0.node.label == "settings" })
        b.handle(.click(x: 2, y: index + 1))
        b.runCommands()
        #expect(b.focus == .grid)
        #expect(b.screenText.contains("fontSize"))
        b.handle(.wheel(x: 60, y: 5, delta: 1))
        #expect((b.grid?.cursor ?? 0) > 0)
    }

    @Test func tableOptionOpensThatNode() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder))
        b.openNodeAndLoad(named: "notes")
        #expect(b.screenText.contains("Welcome"))
        b.openNode(named: "no-such-thing")
        #expect(b.screenText.contains("no table, business or cache named no-such-thing"))
    }

    @Test func themesCycleAndShippedThemesParse() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../themes").standardizedFileURL.path
        let (themes, errors) = Theme.load(directory: directory)
        #expect(errors.isEmpty)
        #expect(Set(themes.map(\.name)).isSuperset(of: ["default", "light", "high-contrast"]))
        #expect(themes.first?.name == "default")
        let folder = TemporaryFolder()
        let b = Browser(catalog: try BrowserCatalog(path: try makeDemo(folder), keys: .empty), width: 80, height: 20, themes: themes)
        b.press(.character("t"))
        #expect(b.theme.name != "default")
        #expect(b.screenText.contains("theme: \(b.theme.name)"))
    }

    @Test func theHeaderNamesTheKeyDerivedFromTheAppKey() throws {
        let folder = TemporaryFolder()
        let derived = EncryptionKey.derived(fromAppKey: "my-app")
        let root = try makeDemo(folder)
        let catalog = try BrowserCatalog(path: root, keys: KeyRing([DemoStore.key, derived]),
                                         keyLabels: [derived.fingerprint: "app key"])
        // Wide enough for the keys after the root's path, wherever the temporary folder is.
        let b = Browser(catalog: catalog, width: root.count + 80, height: 20)
        let header = b.screenText.split(separator: "\n").first.map(String.init) ?? ""
        #expect(header.contains("keys: \(DemoStore.key.fingerprint),\(derived.fingerprint) (app key)"))
    }

    @Test func themeErrorsNameTheFileAndLine() {
        #expect(throws: ThemeError(file: "x.theme", line: 2, message: "unknown role 'headr' (roles: \(StyleRole.allCases.map(\.rawValue).joined(separator: ", ")))")) {
            try Theme.parse("# comment\nheadr = black cyan\n", name: "x", file: "x.theme")
        }
        #expect(throws: ThemeError.self) { try Theme.parse("header = black\n", name: "x", file: "x.theme") }
        #expect(throws: ThemeError.self) { try Theme.parse("header = black purple\n", name: "x", file: "x.theme") }
    }

    @Test(arguments: ["random", "truncated-header", "missing", "not-a-root"])
    func badPathsFailToOpenWithAClearMessage(kind: String) throws {
        let folder = TemporaryFolder()
        let path: String
        switch kind {
        case "random":
            path = folder.file("random.bin")
            try Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 13) }).write(to: URL(fileURLWithPath: path))
        case "truncated-header":
            let db = folder.file("small.db")
            try makeNumbersTable(at: db, rows: 10)
            path = folder.file("cut.db")
            try Data(try Data(contentsOf: URL(fileURLWithPath: db)).prefix(50)).write(to: URL(fileURLWithPath: path))
        case "missing": path = folder.file("nothing-here.db")
        default:
            path = folder.file("plain-folder")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        do {
            _ = try BrowserCatalog(path: path, keys: .empty)
            Issue.record("opening \(kind) should fail")
        } catch let error as BrowserOpenError {
            #expect(error.description.contains(path))
        }
    }

    @Test func browsingChangesNothingInTheFiles() throws {
        let folder = TemporaryFolder()
        let db = folder.file("journal.db")
        try makeNumbersTable(at: db, rows: 50)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let b = try browser(db, keys: .empty)
        b.openTreeNode("numbers")
        b.press(.end)
        b.press(.home)
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        #expect(try Database(path: db, mode: .readOnly).scalar("PRAGMA journal_mode")?.stringValue == "delete")
    }
}

@Suite struct BrowserSearchTests {
    @Test func searchFindsARowFarDownTheTableAndNextFindsTheFollowingOne() throws {
        let folder = TemporaryFolder()
        let db = folder.file("rows.db")
        try makeNumbersTable(at: db, rows: 3_000)
        let b = try browser(db, keys: .empty, width: 80, height: 20)
        b.openTreeNode("numbers")
        b.press(.character("/"))
        for c in "row 2500" { b.press(.character(c)) }
        #expect(b.screenText.contains("/row 2500"))
        b.press(.enter)
        #expect(b.grid.map { $0.rows[$0.cursor].key.first?.int64Value } == 2500)
        #expect(b.screenText.contains("found row 2500"))
        b.press(.character("n"))   // no other row holds "row 2500": round the end, back to it
        #expect(b.grid.map { $0.rows[$0.cursor].key.first?.int64Value } == 2500)
        #expect(b.screenText.contains("search wrapped to the top"))
    }

    @Test func searchMatchesDecryptedTextCaseInsensitively() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder))
        b.openTreeNode("session")
        b.press(.character("/"))
        for c in "SK_LIVE" { b.press(.character(c)) }
        b.press(.enter)
        #expect(b.grid.map { $0.rows[$0.cursor].key.first?.stringValue } == "apiToken")
    }

    @Test func aRunningSearchShowsProgressAndEscCancelsIt() throws {
        let folder = TemporaryFolder()
        let db = folder.file("rows.db")
        try makeNumbersTable(at: db, rows: 2_000)
        let b = try browser(db, keys: .empty, width: 100, height: 20)
        b.openTreeNode("numbers")
        b.press(.character("/"))
        for c in "zzz" { b.press(.character(c)) }
        b.handle(.key(.enter))          // start, but do not run the command yet
        let commands = b.takeCommands()
        #expect(commands.count == 1)
        #expect(b.screenText.contains("searching \"zzz\""))
        b.handle(.key(.escape))
        #expect(b.screenText.contains("search cancelled"))
        // The command, run late, sees the flag and stops; its result is ignored.
        for command in commands { if let event = command.perform() { b.handle(event) } }
        #expect(b.screenText.contains("search cancelled"))
    }
}

@Suite struct SQLConsoleTests {
    @Test func theConsoleRunsQueriesReadOnlyAndRemembersThem() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, width: 110, height: 30)
        b.press(.character(":"))
        #expect(b.focus == .console)
        for c in "SELECT title FROM notes ORDER BY id" { b.press(.character(c)) }
        b.press(.enter)
        var screen = b.screenText
        #expect(b.focus == .grid)
        #expect(screen.contains("Welcome"))
        b.press(.character(":"))
        for c in "DELETE FROM notes" { b.press(.character(c)) }
        b.press(.enter)
        screen = b.screenText
        #expect(screen.contains("read-only") || screen.contains("readonly"))
        #expect(try Database(path: root + "/common.sqlite", mode: .readOnly).scalar("SELECT count(*) FROM notes")?.int64Value == 3)
        b.press(.up)
        #expect(b.console?.input.text == "DELETE FROM notes")
        b.press(.up)
        #expect(b.console?.input.text == "SELECT title FROM notes ORDER BY id")
        b.press(.down, times: 2)
        #expect(b.console?.input.text == "")
        b.press(.escape)
        #expect(b.focus == .grid)           // the grid of the SELECT
    }

    @Test func errorsShowInTheConsole() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), width: 110, height: 30)
        b.press(.character(":"))
        for c in "SELECT * FROM nowhere" { b.press(.character(c)) }
        b.press(.enter)
        #expect(b.screenText.contains("no such table: nowhere"))
        #expect(b.render().cells.contains { $0.role == .error })
    }

    /// A refusal stays on the status line through the keys typed after it (they wiped it
    /// before it was read); Esc clears it; Ctrl-P shows the last message whole, however long.
    @Test func anErrorStaysUntilEscAndCtrlPShowsTheLastMessageWhole() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), width: 80, height: 20)
        b.openNodeAndLoad(named: "notes")
        let long = "a refusal longer than the screen: " + String(repeating: "every word of it matters ", count: 8) + "THE END"
        b.message = (long, true)
        b.press(.down)
        b.press(.down)
        #expect(b.message?.text == long, "the keys typed after it did not wipe it")
        #expect(!b.screenText.contains("THE END"), "cut at the screen's width")
        b.press(.character("\u{10}"))
        #expect(b.focus == .inspector)
        let shown = b.inspector?.lines(width: 60).joined() ?? ""
        #expect(shown.contains("THE END"), "\(shown)")
        b.press(.escape)
        b.press(.escape)
        #expect(b.message == nil)
        b.message = ("read again", false)
        b.press(.down)
        #expect(b.message == nil, "anything else goes with the next key")
    }

    /// A typed key the pane has no use for says so, instead of nothing happening.
    @Test func anUnknownKeySaysSo() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), width: 120, height: 30)
        b.press(.character("z"))
        #expect(b.message?.text == "z does nothing in the tree: H lists the keys")
        b.openNodeAndLoad(named: "notes")
        b.press(.character("\u{2}"))
        #expect(b.message?.text == "Ctrl-B does nothing in the grid: H lists the keys")
        b.press(.down)
        #expect(b.message == nil, "a key that does something clears it")
    }
}

/// `\` hides the tree and shows it again (Tab shows it too), `<` `>` in the tree narrow and
/// widen it; the grid takes the room.
@Suite struct TreeLayoutTests {
    @Test func backslashHidesTheTreeAndTheGridTakesTheWidth() throws {
        let folder = TemporaryFolder()
        let db = folder.file("rows.db")
        try makeNumbersTable(at: db, rows: 5)
        let b = try browser(db, keys: .empty, width: 100, height: 20)
        b.press(.character("\\"))
        #expect(b.treeWidth > 0, "no grid yet: the tree stays")
        b.openTreeNode("numbers")
        let header = { b.render().lines().first { $0.contains("label") } ?? "" }
        #expect(header().contains("│n"))
        b.press(.character("\\"))
        #expect(b.treeWidth == 0 && b.paneArea.x == 0 && b.paneArea.width == 100)
        #expect(header().hasPrefix("n "), "\(header())")
        #expect(!b.render().lines().dropFirst().contains { $0.contains("│") }, "no border")
        b.press(.tab)                                             // the tree takes the keys: shown again
        #expect(b.focus == .tree && b.treeWidth > 0)
        let before = b.treeWidth
        b.press(.character(">"), .character(">"))
        #expect(b.treeWidth == before + 8)
        #expect(b.paneArea.x == b.treeWidth + 1)
        for _ in 0..<20 { b.press(.character("<")) }
        #expect(b.treeWidth == 10, "at least 10 columns")
        for _ in 0..<40 { b.press(.character(">")) }
        #expect(b.treeWidth == 80, "the pane keeps 20")
    }
}
