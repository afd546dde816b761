import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// No key waits on SQLite for a grid's rows: `browse --table`, reading the grid again after
/// a write, and filling a taller screen all ask for rows as commands, and the grid changes
/// when their events come.
/// The grids `commands` ask for: each leaf and the page read of it.
private func openings(_ commands: [BrowserCommand]) -> [(node: TreeNode, page: PageRequest)] {
    commands.compactMap { if case let .openGrid(_, node, _, page, _, _) = $0 { return (node, page) } else { return nil } }
}

/// Runs `commands` on this thread, handing each one's events back to `b`.
private func run(_ commands: [BrowserCommand], in b: Browser) {
    for command in commands { if let event = command.perform(post: { b.handle($0) }) { b.handle(event) } }
}

@Suite struct GridLoadingCommandTests {
    func pageRequests(_ commands: [BrowserCommand]) -> [PageRequest] {
        commands.compactMap { if case let .fetchPage(_, _, _, request) = $0 { return request } else { return nil } }
    }

    func cursorKey(_ b: Browser) -> Int64? { b.grid.map { $0.rows[$0.cursor].key.first?.int64Value ?? -1 } }
    func keys(_ b: Browser) -> [Int64] { b.grid?.rows.compactMap { $0.key.first?.int64Value } ?? [] }

    /// A browser on `rows` numbered rows (`numbers(n, label)`), `height` lines tall.
    func numbers(_ folder: TemporaryFolder, rows: Int = 500, height: Int = 24) throws -> (Browser, String) {
        let db = folder.file("rows.db")
        try makeNumbersTable(at: db, rows: rows)
        return (try browser(db, keys: .empty, width: 80, height: height), db)
    }

    // MARK: browse --table

    @Test func browseTableAsksForTheGridAndShowsItWhenItsRowsCome() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder))
        b.openNode(named: "notes")
        #expect(b.grid == nil)                             // nothing read on this thread
        let commands = b.takeCommands()
        let asked = openings(commands)
        #expect(commands.count == 1)
        #expect(asked.first?.node.label == "notes")
        guard case .first(let limit)? = asked.first?.page else { Issue.record("\(commands)"); return }
        #expect(limit == b.visibleRowCount * 2)
        #expect(b.screenText.contains("Opening notes…"))   // the loading state, pane and status line
        #expect(b.render().lines().last?.contains("opening notes…") == true)
        run(commands, in: b)
        #expect(b.grid?.node.label == "notes")
        #expect(b.focus == .grid)
        #expect(b.screenText.contains("Welcome"))
        #expect(!b.screenText.contains("Opening notes…"))
    }

    /// `browse --table messages`, then `d` before the rows are in: the DAO panel opened
    /// meanwhile keeps the keys when the grid comes, and the grid shows beside it.
    @Test func aPaneOpenedWhileTheGridIsReadKeepsTheKeys() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder))
        b.openNode(named: "messages")
        let commands = b.takeCommands()
        b.handle(.key(.character("d")))
        #expect(b.focus == .dao)
        run(commands, in: b)
        #expect(b.focus == .dao)
        #expect(b.grid?.node.label == "messages")
        #expect(b.screenText.contains("listMessages("))
    }

    @Test func aGridOpenedForASmallerScreenIsFilledWhenItComes() throws {
        let folder = TemporaryFolder()
        let (b, _) = try numbers(folder, height: 12)
        b.openNode(named: "numbers")
        let opening = b.takeCommands()
        b.handle(.resize(width: 80, height: 40))           // taller while the rows were read
        #expect(b.takeCommands().isEmpty)                  // no grid yet: nothing to fill
        run(opening, in: b)
        let fill = pageRequests(b.takeCommands())
        #expect(fill.count == 1)
        guard case let .after(row, limit)? = fill.first else { Issue.record("\(fill)"); return }
        #expect(row.key.first?.int64Value == 18)           // after the two screens of 9 asked for
        #expect(limit == b.visibleRowCount)
    }

    // MARK: Resize

    @Test func aTallerScreenAsksForThePageThatFillsIt() throws {
        let folder = TemporaryFolder()
        let (b, _) = try numbers(folder, height: 12)       // 9 rows a screen, 18 on hand
        b.openTreeNode("numbers")
        b.press(.down, times: 14)                          // row 15, shown last
        #expect(keys(b).last == 18)
        b.handle(.resize(width: 80, height: 40))           // 37 rows a screen
        let commands = b.takeCommands()
        let requests = pageRequests(commands)
        #expect(requests.count == 1)
        guard case let .after(row, limit)? = requests.first else { Issue.record("\(commands)"); return }
        #expect(row.key.first?.int64Value == 18)
        #expect(limit == 37)
        #expect(keys(b).last == 18)                        // not read on this thread
        b.handle(.key(.down))                              // a move meanwhile keeps the fill asked for
        #expect(cursorKey(b) == 16)
        run(commands, in: b)
        #expect(keys(b).last == 55)
        #expect(cursorKey(b) == 16)                        // the fill moves no cursor
        #expect(b.screenText.contains("row 40\n"))
    }

    @Test func aResizeWhileAPageIsComingAsksForNothingMore() throws {
        let folder = TemporaryFolder()
        let (b, _) = try numbers(folder, height: 12)
        b.openTreeNode("numbers")
        b.handle(.key(.end))
        let end = b.takeCommands()
        b.handle(.resize(width: 80, height: 40))
        #expect(b.takeCommands().isEmpty)                  // the page on its way follows other rows
        run(end, in: b)
        #expect(cursorKey(b) == 500)
    }

    // MARK: Reading again after a write

    @Test func aCommitReadsTheGridAgainAsACommandAndTheCursorStaysOnItsRow() throws {
        let folder = TemporaryFolder()
        let (b, db) = try numbers(folder)                  // 21 rows a screen, 42 on hand
        b.openTreeNode("numbers")
        b.press(.down, times: 59)                          // row 60: past the first rows read
        #expect(cursorKey(b) == 60)
        let line = try #require(b.grid.map { $0.cursor - $0.top })
        b.press(.right)
        b.press(.character("e"))
        answer("sixty", in: b)
        b.press(.character("w"))
        b.handle(.key(.character("c")))
        let commit = b.takeCommands()
        b.handle(try #require(commit.first?.perform()))
        #expect(try Database(path: db, mode: .readOnly).scalar("SELECT label FROM numbers WHERE n = 60")?.stringValue == "sixty")
        let commands = b.takeCommands()
        let asked = openings(commands)
        #expect(asked.count == 1)
        guard case let .around(row, _, _)? = asked.first?.page else { Issue.record("\(commands)"); return }
        #expect(row.key.first?.int64Value == 60)
        #expect(!b.screenText.contains("sixty"))           // the grid shown stays until the rows come
        #expect(b.screenText.contains("row 60"))
        run(commands, in: b)
        #expect(b.screenText.contains("sixty"))
        #expect(cursorKey(b) == 60)
        #expect(b.grid.map { $0.cursor - $0.top } == line) // on the same line of the screen
        #expect(b.grid?.column == 1)
        #expect(b.focus == .grid)
        b.runCommands()                                    // the fresh grid counts its rows
        #expect(b.grid?.total == 500)
    }

    @Test func aRowDeletedByTheCommitGivesTheCursorToTheRowAfterIt() throws {
        let folder = TemporaryFolder()
        let (b, _) = try numbers(folder)
        b.openTreeNode("numbers")
        b.press(.down, times: 59)
        b.press(.character("x"))
        b.press(.character("w"), .character("c"))         // committed and read again
        #expect(b.review.staged.isEmpty)
        #expect(cursorKey(b) == 61)
        #expect(!keys(b).contains(60))
        #expect(keys(b).contains(59))
    }

    @Test func aFailedReadAgainKeepsTheGridShownAndSaysSo() throws {
        let folder = TemporaryFolder()
        let (b, _) = try numbers(folder)
        b.openTreeNode("numbers")
        b.press(.down, times: 5)
        b.reloadGrid()
        guard case let .openGrid(id, node, _, _, _, _)? = b.takeCommands().first else { Issue.record("no read asked for"); return }
        b.handle(.gridOpened(requestID: id, node: node, source: nil, rows: [], error: "disk I/O error"))
        #expect(b.message?.text == "cannot read numbers again: disk I/O error")
        #expect(cursorKey(b) == 6)
    }

    @Test func aWriteWhileAGridIsOpeningAsksForItAgain() throws {
        let folder = TemporaryFolder()
        let (b, _) = try numbers(folder)
        b.openNode(named: "numbers")
        let first = b.takeCommands()
        b.reloadGrid()                                     // e.g. a commit ended meanwhile
        let again = openings(b.takeCommands())
        #expect(again.count == 1)
        #expect(again.first?.node.label == "numbers")
        run(first, in: b)                                  // read before the write: dropped
        #expect(b.grid == nil)
    }
}

extension DAOPanelTests {
    @Test func aDAOWriteReadsTheGridAgainAndTheDAOPanelKeepsTheKeys() throws {
        let (b, folder) = try form("updateFlags")
        defer { withExtendedLifetime(folder) {} }
        type("3", into: b)
        b.press(.down)
        b.press(.character("\u{e}"))
        type("1", into: b)
        b.press(.enter)
        #expect(b.daoPanel?.stage == .confirm)
        b.handle(.key(.character("y")))
        let write = b.takeCommands()
        b.handle(try #require(write.first?.perform()))
        #expect(b.screenText.contains("ok · 1 change(s)"))
        let commands = b.takeCommands()
        let asked = openings(commands)
        #expect(asked.count == 1)
        #expect(asked.first?.node.label == "messages")
        let read = try #require(b.grid?.source.columns.firstIndex(of: "read"))
        func readFlag() -> String? { b.grid?.rows.first { $0.key.first?.int64Value == 3 }?.cells[read].text }
        #expect(readFlag() == "0")
        run(commands, in: b)
        #expect(readFlag() == "1")
        #expect(b.focus == .dao)                           // the panel stays, with the keys
        #expect(b.daoPanel != nil)
    }
}
