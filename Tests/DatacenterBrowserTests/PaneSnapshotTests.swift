import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// Each pane drawn alone (`Pane.draw`) into a screen of its own, in its main states: what a
/// pane draws depends on its state and area only, not on the frame around it.
@Suite struct PaneSnapshotTests {
    static let area = PaneArea(x: 0, y: 0, width: 72, height: 14)

    /// `pane` drawn alone into a 72 × 14 screen.
    static func drawn(_ pane: some Pane, focused: Bool = true) -> ScreenGrid {
        var screen = ScreenGrid(width: area.width, height: area.height)
        pane.draw(into: &screen, area: area, focused: focused)
        return screen
    }

    /// The demo root in a browser, with its root path for redaction.
    static func demo(_ folder: TemporaryFolder) throws -> (Browser, String) {
        let root = try makeDemo(folder)
        return (try browser(root, width: 120, height: 30), root)
    }

    /// The demo in a browser with the console open on the `notes` table's store.
    static func consoleOnNotes(_ folder: TemporaryFolder) throws -> Browser {
        let (b, _) = try demo(folder)
        b.openNodeAndLoad(named: "notes")
        b.press(.character(":"))
        return b
    }

    @Test func theTreeAndTheGrid() throws {
        let folder = TemporaryFolder()
        let (b, root) = try Self.demo(folder)
        try assertSnapshot(Self.drawn(b.tree), named: "pane-tree", redact: [root: "<root>"])
        b.openTreeNode("settings")
        let grid = try #require(b.grid)
        try assertSnapshot(Self.drawn(grid), named: "pane-grid-kv")
        b.openNodeAndLoad(named: "notes")
        try assertSnapshot(Self.drawn(try #require(b.grid)), named: "pane-grid-table")
    }

    @Test func theInspectorInEachView() throws {
        let folder = TemporaryFolder()
        let (b, _) = try Self.demo(folder)
        b.openTreeNode("app")
        b.press(.enter)
        let json = try #require(b.inspector)
        try assertSnapshot(Self.drawn(json), named: "pane-inspector-json")
        b.press(.character("m"))
        try assertSnapshot(Self.drawn(try #require(b.inspector)), named: "pane-inspector-hex")
    }

    @Test func theDAOPanelsMethodsAndForm() throws {
        let folder = TemporaryFolder()
        let (b, _) = try Self.demo(folder)
        b.openNodeAndLoad(named: "messages")
        b.press(.character("d"))
        try assertSnapshot(Self.drawn(try #require(b.daoPanel)), named: "pane-dao-methods")
        let index = try #require(b.daoPanel?.config.methods.firstIndex { $0.id == "getMessage" })
        b.press(.down, times: index)
        b.press(.enter)
        type("4", into: b)
        try assertSnapshot(Self.drawn(try #require(b.daoPanel)), named: "pane-dao-form")
    }

    @Test func theConsoleAndTheStagedEdits() throws {
        let folder = TemporaryFolder()
        let b = try Self.consoleOnNotes(folder)
        type("select count(*) from notes", into: b)
        b.press(.enter)
        b.runCommands()
        try assertSnapshot(Self.drawn(try #require(b.console)), named: "pane-console")
        b.press(.escape)
        b.openNodeAndLoad(named: "notes")
        b.press(.right)
        b.press(.character("e"))
        answer("Hello again", in: b)
        b.press(.character("w"))
        try assertSnapshot(Self.drawn(b.review), named: "pane-review")
    }

    /// The console with a second tab holding a statement over three lines.
    @Test func theConsoleWithTabsAndLines() throws {
        let folder = TemporaryFolder()
        let b = try Self.consoleOnNotes(folder)
        type(".mode list", into: b)
        b.press(.enter)
        b.press(.control("t"))
        for (index, line) in ["select title,", "  length(body) as chars", "from notes"].enumerated() {
            if index > 0 { b.press(.control("j")) }
            type(line, into: b)
        }
        try assertSnapshot(Self.drawn(try #require(b.console)), named: "pane-console-tabs")
    }
}
