import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// Moving past the rows on hand asks for a page as a command; the move is done when the page
/// comes back as an event, and keys go on meanwhile.
@Suite struct GridPagingCommandTests {
    /// A browser on 5,000 numbered rows, the grid open, its row count in.
    func numbers(_ folder: TemporaryFolder) throws -> Browser {
        let db = folder.file("rows.db")
        try makeNumbersTable(at: db, rows: 5_000)
        let b = try browser(db, keys: .empty, width: 80, height: 24)
        b.openTreeNode("numbers")
        return b
    }

    func pageRequests(_ commands: [BrowserCommand]) -> [PageRequest] {
        commands.compactMap { if case let .fetchPage(_, _, _, request) = $0 { return request } else { return nil } }
    }

    func cursorKey(_ b: Browser) -> Int64? { b.grid.map { $0.rows[$0.cursor].key.first?.int64Value ?? -1 } }

    @Test func movesWithinTheRowsOnHandNeedNoCommand() throws {
        let folder = TemporaryFolder()
        let b = try numbers(folder)
        b.handle(.key(.down))
        b.handle(.key(.pageDown))
        #expect(b.takeCommands().isEmpty)
        #expect(cursorKey(b) == Int64(2 + b.visibleRowCount))
    }

    @Test func endAsksForTheLastPageAndMovesWhenItComes() throws {
        let folder = TemporaryFolder()
        let b = try numbers(folder)
        b.handle(.key(.end))
        let commands = b.takeCommands()
        let requests = pageRequests(commands)
        #expect(requests.count == 1)
        guard case .last(let limit)? = requests.first else { Issue.record("\(requests)"); return }
        #expect(limit == b.visibleRowCount * 2)
        #expect(cursorKey(b) == 1)                         // not moved yet
        #expect(b.screenText.contains("row 1\n"))
        b.handle(.key(.right))                             // a key while the page is on its way
        #expect(b.grid?.column == 1)
        b.handle(try #require(commands[0].perform()))
        #expect(cursorKey(b) == 5_000)
        #expect(b.screenText.contains("row 5000"))
        #expect(b.grid?.column == 1)
    }

    @Test func movesAskedForWhileAPageIsComingAddUp() throws {
        let folder = TemporaryFolder()
        let b = try numbers(folder)
        let onHand = try #require(b.grid?.rows.count)
        b.press(.down, times: onHand - 1)                  // the last row on hand
        #expect(cursorKey(b) == Int64(onHand))
        b.handle(.key(.down))
        let commands = b.takeCommands()
        #expect(pageRequests(commands).count == 1)
        b.handle(.key(.down))
        b.handle(.key(.down))
        #expect(b.takeCommands().isEmpty)                  // they join the page underway
        #expect(cursorKey(b) == Int64(onHand))
        b.handle(try #require(commands[0].perform()))
        #expect(cursorKey(b) == Int64(onHand + 3))
        #expect((b.grid?.rows.count ?? 0) <= b.visibleRowCount * 3)
    }

    @Test func aPageForAReplacedMoveIsDropped() throws {
        let folder = TemporaryFolder()
        let b = try numbers(folder)
        b.handle(.key(.end))
        let toEnd = b.takeCommands()
        b.handle(.key(.home))
        let toStart = b.takeCommands()
        #expect(pageRequests(toEnd).count == 1 && pageRequests(toStart).count == 1)
        b.handle(try #require(toEnd[0].perform()))        // late: home replaced it
        #expect(b.grid?.rows.last?.key.first?.int64Value != 5_000)
        #expect(b.grid?.pending != nil)
        b.handle(try #require(toStart[0].perform()))
        #expect(cursorKey(b) == 1)
        #expect(b.grid?.pending == nil)
    }

    @Test func aClickWhileAPageIsComingWins() throws {
        let folder = TemporaryFolder()
        let b = try numbers(folder)
        b.handle(.key(.end))
        let commands = b.takeCommands()
        b.handle(.click(x: b.treeWidth + 2, y: 4))          // the third row shown
        #expect(cursorKey(b) == 3)
        b.handle(try #require(commands[0].perform()))
        #expect(cursorKey(b) == 3)
        #expect(b.screenText.contains("row 1\n"))
    }

    @Test func aPageOfAnotherGridIsDropped() throws {
        let folder = TemporaryFolder()
        let b = try numbers(folder)
        b.handle(.key(.end))
        let commands = b.takeCommands()
        b.openNodeAndLoad(named: "numbers")                // a fresh grid of the same table
        b.handle(try #require(commands[0].perform()))
        #expect(cursorKey(b) == 1)
    }

    @Test func aFailedReadSaysSoAndLeavesTheRows() throws {
        let folder = TemporaryFolder()
        let b = try numbers(folder)
        b.handle(.key(.end))
        guard case let .fetchPage(gridID, requestID, _, _)? = b.takeCommands().first else { Issue.record("no page asked for"); return }
        b.handle(.pageLoaded(gridID: gridID, requestID: requestID, rows: [], error: "disk I/O error"))
        #expect(b.screenText.contains("read failed: disk I/O error"))
        #expect(cursorKey(b) == 1)
        #expect(b.grid?.pending == nil)
    }

    @Test func enterOnALeafOpensItsGridOffTheInputLoopAndOnlyTheLastOneShows() throws {
        let folder = TemporaryFolder()
        let db = folder.file("two.db")
        try makeNumbersTable(at: db, rows: 10)
        try Database(path: db).execute("CREATE TABLE other(v TEXT); INSERT INTO other VALUES ('from other')")
        let b = try browser(db, keys: .empty, width: 80, height: 24)
        let numbers = try #require(b.tree.visibleTree.firstIndex { $0.node.label == "numbers" })
        let other = try #require(b.tree.visibleTree.firstIndex { $0.node.label == "other" })
        b.tree.cursor = numbers
        b.handle(.key(.enter))
        let first = b.takeCommands()
        #expect(first.count == 1)
        guard case .openGrid? = first.first else { Issue.record("\(first)"); return }
        #expect(b.grid == nil)
        #expect(b.focus == .tree)                          // keys go on to the tree meanwhile
        b.tree.cursor = other
        b.handle(.key(.enter))
        let second = b.takeCommands()
        b.handle(try #require(second.first?.perform()))
        #expect(b.grid?.node.label == "other")
        #expect(b.focus == .grid)
        #expect(b.screenText.contains("from other"))
        b.handle(try #require(first.first?.perform()))    // the earlier one, late: dropped
        #expect(b.grid?.node.label == "other")
    }
}
