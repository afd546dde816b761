import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// Rows paged by position (`QuerySource`): a console SELECT and a view read page by page
/// give SQLite's own rows in its order, sorted and filtered as asked, and `/` finds the
/// match SQLite's `LIKE` finds, in one pass.
@Suite struct QuerySourceTests {
    /// A store whose table `m` holds `count` rows `(n, word)`, and a view `v` over it.
    func makeStore(at path: String, count: Int) throws -> Store {
        let db = try Database(path: path)
        try db.execute("CREATE TABLE m (n INTEGER, word TEXT)")
        try db.inTransaction {
            for i in 0..<count {
                try db.execute("INSERT INTO m VALUES (?, ?)", [.integer(Int64(i)), .text(["alpha", "Bravo", "charlie", "50%_off"][i % 4] + "\(i)")])
            }
        }
        try db.execute("CREATE VIEW v AS SELECT word, n FROM m WHERE n % 3 <> 0")
        return try Store(existingAt: path)
    }

    func words(_ sql: String, in store: Store) throws -> [String] {
        try store.queue.read { db in try db.query(sql).compactMap { $0[0].stringValue } }
    }

    @Test(arguments: [1, 7, 40])
    func aSelectPagesAsSQLiteReadsIt(limit: Int) throws {
        let folder = TemporaryFolder()
        let store = try makeStore(at: folder.file("q.db"), count: 203)
        let sql = "SELECT word, n * 2 AS twice FROM m WHERE n > 5 ORDER BY word DESC"
        let source = try QuerySource(store: store, select: sql, crypt: KeyRing.empty)
        let expected = try words("SELECT word FROM m WHERE n > 5 ORDER BY word DESC", in: store)
        let (forward, backward) = try walk(source, column: "word", limit: limit)
        #expect(forward == expected)
        #expect(backward == expected)
        #expect(try source.count() == expected.count)
        #expect(source.position(of: try source.firstPage(limit: 1)[0]) == "row 1")
    }

    @Test func aSelectSortsAndFiltersByItsOwnColumnsEvenWhenTheirNamesRepeat() throws {
        let folder = TemporaryFolder()
        let store = try makeStore(at: folder.file("q.db"), count: 50)
        let source = try QuerySource(store: store, select: "SELECT n, n % 5, word, n % 5 FROM m", crypt: KeyRing.empty)
        // SQLite names the repeated column of the subquery `n % 5:1`.
        #expect(source.columns == ["n", "n % 5", "word", "n % 5:1"])
        let sorted = try source.viewing(TableView(sort: .init(column: "n % 5:1", descending: true), filter: "n < 20"))
        let rows = try sorted.firstPage(limit: 100)
        #expect(rows.count == 20)
        let fives = rows.map { Int($0.cells[3].text)! }
        #expect(fives == fives.sorted(by: >))
        #expect(throws: TableViewError.self) { try source.viewing(TableView(sort: .init(column: "nope", descending: false))) }
        #expect(throws: TableViewError.self) { try source.viewing(TableView(filter: "n >")) }
    }

    @Test func aViewPagesByPositionAndSearchesInSQLite() throws {
        let folder = TemporaryFolder()
        let store = try makeStore(at: folder.file("v.db"), count: 120)
        let view = try TableSource(store: store, table: "v", crypt: KeyRing.empty)
        let expected = try words("SELECT word FROM v", in: store)
        let (forward, backward) = try walk(view, column: "word", limit: 9)
        #expect(forward == expected && backward == expected)
        // `%` and `_` in the needle are themselves, not LIKE's wildcards; case does not matter.
        for needle in ["50%_off1", "bravo10", "CHARLIE"] {
            let lowered = needle.lowercased()
            let first = try #require(try view.firstMatch(of: try SearchNeedle(lowered), after: nil, limit: 5, cancel: CancellationFlag()))
            let index = try #require(expected.firstIndex { $0.lowercased().contains(lowered) })
            #expect(first.first?.cells[0].text == expected[index])
            #expect(view.position(of: try #require(first.first)) == "row \(index + 1)")
            // From the row after the match on, the next one.
            let next = try #require(try view.firstMatch(of: try SearchNeedle(lowered), after: first[0], limit: 5, cancel: CancellationFlag()))
            let nextIndex = expected[(index + 1)...].firstIndex { $0.lowercased().contains(lowered) }
            #expect(next.first?.cells[0].text == nextIndex.map { expected[$0] })
        }
        #expect(try view.firstMatch(of: try SearchNeedle("zulu"), after: nil, limit: 5, cancel: CancellationFlag())?.isEmpty == true)
        // Non-ASCII needles are left to the browser's page scan.
        #expect(try view.firstMatch(of: try SearchNeedle("é"), after: nil, limit: 5, cancel: CancellationFlag()).map(\.count) == nil)
    }

    @Test func aCancelledFirstPageStops() throws {
        let folder = TemporaryFolder()
        let store = try makeStore(at: folder.file("c.db"), count: 1)
        let source = try QuerySource(store: store, select: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n WHERE i < 0",
                                     crypt: KeyRing.empty)
        let cancel = CancellationFlag()
        cancel.cancel()
        #expect { try source.firstPage(limit: 10, cancel: cancel) } throws: { ($0 as? DatabaseError)?.isInterrupted == true }
        // The store's connection is left usable.
        #expect(try store.queue.read { db in try db.scalar("SELECT count(*) FROM m")?.int64Value } == 1)
    }

    /// A count that would never end (a console query over an endless CTE) stops once the
    /// grid lets the source go; the browser lets it go when another grid takes its place.
    @Test func aRetiredSourceStopsCounting() throws {
        let folder = TemporaryFolder()
        let path = folder.file("c.db")
        _ = try makeStore(at: path, count: 3)
        let b = try browser(path, keys: .empty)
        b.press(.character(":"))
        type("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n", into: b)
        b.handle(.key(.enter))
        // Only the query: its count (which would run for ever) is left unrun.
        let query = try #require(b.takeCommands().first)
        b.handle(try #require(query.perform()))
        let endless = try #require(b.grid?.source as? QuerySource)
        #expect(b.takeCommands().contains { if case .countRows = $0 { return true } else { return false } })
        b.press(.character(":"))
        type("SELECT 1", into: b)
        b.press(.enter)
        #expect(b.grid?.source !== endless)
        #expect(endless.isRetired)          // its count, were it running, is interrupted (below)

        // From another thread, while it runs.
        let source = try QuerySource(store: try Store(existingAt: path), select: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n",
                                     crypt: KeyRing.empty)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { source.retire() }
        #expect { try source.count() } throws: { ($0 as? DatabaseError)?.isInterrupted == true }
    }
}
