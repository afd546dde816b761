import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// `/` and `?` search forward and backward, `n` goes on the same way and `N` the other, and
/// a search that passes an end wraps round to the other, saying so; the same on a table
/// (searched in SQLite) and on a view (scanned a page at a time).
@Suite struct GridSearchTests {
    /// The key of the row under the grid's cursor.
    func cursorKey(_ b: Browser) -> Int64? { b.grid.flatMap { $0.rows.indices.contains($0.cursor) ? $0.rows[$0.cursor].cells[0].text : nil }.flatMap { Int64($0) } }

    /// A browser on `table` (`numbers`, or the view `numbers_view` over it) of 3,000 rows
    /// labelled `row N`.
    func numbers(_ table: String, in folder: TemporaryFolder) throws -> Browser {
        let db = folder.file("rows.db")
        try makeNumbersTable(at: db, rows: 3_000)
        try Database(path: db).execute("CREATE VIEW numbers_view AS SELECT * FROM numbers")
        let b = try browser(db, keys: .empty, width: 100, height: 20)
        b.openTreeNode(table)
        return b
    }

    @Test(arguments: ["numbers", "numbers_view"])
    func searchesGoBothWaysAndWrapRoundTheEnds(table: String) throws {
        let folder = TemporaryFolder()
        let b = try numbers(table, in: folder)
        func status() -> String { b.render().lines().last ?? "" }

        // Backward from the first row: nothing before it, so round the end to the bottom.
        b.press(.character("?"))
        #expect(b.prompt?.purpose == .searchBackward)
        type("row 2500", into: b)
        b.press(.enter)
        #expect(cursorKey(b) == 2500)
        #expect(status().contains("search wrapped to the bottom: found row 2500"))

        // N goes the other way: forward, round the end to the top, back to the only match.
        b.press(.character("N"))
        #expect(cursorKey(b) == 2500)
        #expect(status().contains("search wrapped to the top"))

        b.press(.character("/"))
        answer("row 1", in: b)
        #expect(cursorKey(b) == 1)                        // nothing after 2500 holds "row 1"
        #expect(status().contains("search wrapped to the top: found row 1"))
        b.press(.character("n"))
        #expect(cursorKey(b) == 10)
        #expect(!status().contains("wrapped"))
        b.press(.character("N"))
        #expect(cursorKey(b) == 1)
        b.press(.character("N"))                            // before row 1: round to the bottom
        #expect(cursorKey(b) == 1999)
        #expect(status().contains("search wrapped to the bottom"))

        // A backward search typed with ? makes n go backward, N forward.
        b.press(.character("?"))
        answer("row 19", in: b)
        #expect(cursorKey(b) == 1998)
        b.press(.character("n"))
        #expect(cursorKey(b) == 1997)
        b.press(.character("N"), .character("N"))
        #expect(cursorKey(b) == 1999)

        b.press(.character("/"))
        answer("zzz", in: b)
        #expect(status().contains("no match: zzz"))
        #expect(cursorKey(b) == 1999)
    }

    @Test func aRunningBackwardSearchSaysSoAndEscCancelsIt() throws {
        let folder = TemporaryFolder()
        let db = folder.file("rows.db")
        try makeNumbersTable(at: db, rows: 100)
        let b = try browser(db, keys: .empty, width: 100, height: 20)
        b.openTreeNode("numbers")
        b.press(.character("?"))
        type("zzz", into: b)
        b.handle(.key(.enter))                              // start, but do not run the command yet
        #expect(b.screenText.contains("searching \"zzz\" backward…"))
        b.handle(.key(.escape))
        #expect(b.screenText.contains("search cancelled"))
        for command in b.takeCommands() { if let event = command.perform() { b.handle(event) } }
        #expect(b.grid?.search == nil)
    }

    /// `/` offers the last search selected, as shells do: typing replaces it, a cursor key
    /// keeps it to edit, Backspace clears it, Enter searches it again.
    @Test func theLastSearchIsOfferedSelectedAndTypingReplacesIt() throws {
        let folder = TemporaryFolder()
        let db = folder.file("rows.db")
        try makeNumbersTable(at: db, rows: 10)
        let b = try browser(db, keys: .empty)
        b.openTreeNode("numbers")
        b.press(.character("/"))
        type("row 3", into: b)
        b.press(.enter)
        b.press(.character("/"))
        #expect(b.prompt?.text == "row 3")
        #expect(b.prompt?.selectsText == true)
        type("row 7", into: b)
        #expect(b.prompt?.text == "row 7")
        b.press(.escape, .character("/"), .end)
        type("0", into: b)
        #expect(b.prompt?.text == "row 30")
        b.press(.escape, .character("/"), .backspace)
        #expect(b.prompt?.text == "")
        b.press(.escape)
        // A first search has nothing to select.
        let fresh = try browser(db, keys: .empty)
        fresh.openTreeNode("numbers")
        fresh.press(.character("/"))
        #expect(fresh.prompt?.selectsText == false)
    }

    @Test func nBeforeAnySearchSaysHowToSearch() throws {
        let folder = TemporaryFolder()
        let db = folder.file("rows.db")
        try makeNumbersTable(at: db, rows: 10)
        let b = try browser(db, keys: .empty)
        b.openTreeNode("numbers")
        b.press(.character("n"))
        #expect(b.screenText.contains("no search yet: / searches forward, ? backward"))
    }

    @Test func questionMarkSearchesInTheGridAndHOpensTheHelpEverywhere() throws {
        let folder = TemporaryFolder()
        let db = folder.file("rows.db")
        try makeNumbersTable(at: db, rows: 10)
        let b = try browser(db, keys: .empty)
        b.press(.character("?"))                            // the tree: help, as before
        #expect(b.screenText.contains("Keys (Esc closes the help)"))
        b.press(.character("H"))
        #expect(!b.screenText.contains("Keys (Esc closes the help)"))
        b.openTreeNode("numbers")
        #expect(b.screenText.contains("H help"))
        b.press(.character("?"))
        #expect(b.prompt?.label == "?")
        #expect(!b.screenText.contains("Keys (Esc closes the help)"))
        b.press(.escape)
        b.press(.character("H"))
        #expect(b.screenText.contains("Keys (Esc closes the help)"))
    }

    @Test func theHelpScrollsWhenTallerThanTheScreen() throws {
        let folder = TemporaryFolder()
        let db = folder.file("rows.db")
        try makeNumbersTable(at: db, rows: 10)
        let b = try browser(db, keys: .empty, width: 100, height: 20)
        let last = try #require(HelpScreen.keyLines.last)
        b.press(.character("H"))
        #expect(b.screenText.contains("Keys"))
        #expect(!b.screenText.contains(last))
        b.press(.end)
        #expect(b.screenText.contains(last))
        #expect(!b.screenText.contains("Keys"))
        b.press(.home)
        #expect(b.screenText.contains("Keys"))
        b.press(.escape, .character("H"))                   // opens at the top again
        #expect(b.screenText.contains("Keys"))
    }

    /// `match` backward with bounds finds the row a scan of every row's texts finds last
    /// before the start and not before the stop, in any order and filter.
    @Test(arguments: [UInt64(21), 22])
    func theBackwardMatchIsTheScansLastMatchBetweenTheBounds(seed: UInt64) throws {
        let folder = TemporaryFolder()
        let store = try TableViewTests().makeMixed(at: folder.file("s.db"), seed: seed)
        var rng = SplitMix64(seed: seed)
        let base = try TableSource(store: store, table: "t", crypt: KeyRing.empty)
        for view in [TableView(), TableView(sort: .init(column: "s", descending: true), filter: "n > 1"),
                     TableView(sort: .init(column: "s", descending: false))] {
            let source = try base.viewing(view)
            let all = try allRows(of: source, limit: 100)
            let texts: [[String]] = try all.map { row in
                try store.queue.read { db in
                    try db.query("SELECT lower(CAST(s AS TEXT)), lower(CAST(n AS TEXT)), lower(CAST(b AS TEXT)) FROM t WHERE rowid = ?", StatementArguments(row.key))
                        .first!.values.map { $0.stringValue ?? "" }
                }
            }
            for _ in 0..<30 {
                let needle = ["r1", "b", "2.5", "7", "r29", "zz", "1", "%", "r_"].randomElement(using: &rng)!
                let start = Bool.random(using: &rng) ? nil : Int.random(in: 0..<all.count, using: &rng)
                let stop = Bool.random(using: &rng) ? nil : Int.random(in: 0..<(start ?? all.count), using: &rng)
                let upper = start ?? all.count
                let lower = stop ?? 0                   // the stop row itself is included
                let expected = lower < upper ? (lower..<upper).last { index in texts[index].contains { $0.contains(needle) } } : nil
                let found = try source.match(of: try SearchNeedle(needle), from: start.map { all[$0] }, to: stop.map { all[$0] }, backward: true,
                                             limit: 3, cancel: CancellationFlag())
                let context = "seed \(seed) \(view.summary) \(needle) before \(String(describing: start)) after \(String(describing: stop))"
                #expect(found?.first?.key == expected.map { all[$0].key }, "\(context)")
                if let expected { #expect(found?.map(\.key) == all[expected...].prefix(3).map(\.key), "\(context)") }
            }
        }
    }

    /// The same for rows paged by position (a view: `QuerySource`), both ways: one pass in
    /// SQLite finds what a scan of every row's texts finds between the bounds.
    @Test(arguments: [UInt64(23), 24])
    func aViewsMatchIsTheScansMatchBetweenTheBounds(seed: UInt64) throws {
        let folder = TemporaryFolder()
        let store = try TableViewTests().makeMixed(at: folder.file("v.db"), seed: seed)
        try store.queue.write { db in try db.execute("CREATE VIEW tv AS SELECT rowid AS r, s, n, b FROM t") }
        var rng = SplitMix64(seed: seed)
        let base = try TableSource(store: store, table: "tv", crypt: KeyRing.empty)
        for view in [TableView(), TableView(sort: .init(column: "s", descending: true), filter: "n > 1")] {
            let source = try base.viewing(view)
            let all = try allRows(of: source, limit: 100)
            let texts: [[String]] = try all.map { row in
                try store.queue.read { db in
                    try db.query("SELECT lower(CAST(rowid AS TEXT)), lower(CAST(s AS TEXT)), lower(CAST(n AS TEXT)), lower(CAST(b AS TEXT)) FROM t WHERE rowid = ?",
                                 [.text(row.cells[0].text)]).first!.values.map { $0.stringValue ?? "" }
                }
            }
            for _ in 0..<30 {
                let needle = ["r1", "b", "2.5", "7", "r29", "zz", "1", "%", "r_"].randomElement(using: &rng)!
                let backward = Bool.random(using: &rng)
                let start = Bool.random(using: &rng) ? nil : Int.random(in: 0..<all.count, using: &rng)
                let stop: Int? = Bool.random(using: &rng) ? nil
                    : backward ? Int.random(in: 0..<(start ?? all.count), using: &rng) : Int.random(in: ((start ?? -1) + 1)..<all.count + 1, using: &rng)
                let bounded = stop.map { min($0, all.count - 1) }
                let range = backward ? (bounded ?? 0)..<(start ?? all.count) : ((start ?? -1) + 1)..<((bounded ?? all.count - 1) + 1)
                let hits = range.filter { index in texts[index].contains { $0.contains(needle) } }
                let expected = backward ? hits.last : hits.first
                let found = try source.match(of: try SearchNeedle(needle), from: start.map { all[$0] }, to: bounded.map { all[$0] }, backward: backward,
                                             limit: 3, cancel: CancellationFlag())
                let context = "seed \(seed) \(view.summary) \(needle) \(backward ? "before" : "after") \(String(describing: start)) to \(String(describing: bounded))"
                #expect(found?.first?.key == expected.map { all[$0].key }, "\(context)")
                if let expected { #expect(found?.map(\.key) == all[expected...].prefix(3).map(\.key), "\(context)") }
            }
        }
    }

    /// A locked value shows a placeholder the browser wrote, not the value: the search never
    /// finds its words (before, `/locked` stopped on every value no key opens).
    @Test func theLockedPlaceholderIsNotSearched() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, keys: .empty, width: 120, height: 30)
        b.openNodeAndLoad(named: "vault")
        #expect(b.screenText.contains("[locked: "))
        b.press(.character("/"))
        type("locked", into: b)
        b.press(.enter)
        b.runCommands()
        let status = b.render().lines().last ?? ""
        #expect(status.contains("no match: locked"), "\(status)")
    }

    /// Ctrl-R at the search prompt: a regular expression, named so in the prompt and the
    /// messages, kept for `n` and the next `/`; a pattern that is not one is refused there.
    @Test(arguments: ["numbers", "numbers_view"])
    func ctrlRSearchesForARegularExpression(table: String) throws {
        let folder = TemporaryFolder()
        let b = try numbers(table, in: folder)
        func status() -> String { b.render().lines().last ?? "" }

        b.press(.character("/"), .character("\u{12}"))
        #expect(b.render().lines().last?.hasPrefix("regex /") == true)
        answer("^row 2[0-9]5$", in: b)
        #expect(cursorKey(b) == 205)
        #expect(status().contains("found /^row 2[0-9]5$/"))
        b.press(.character("n"))
        #expect(cursorKey(b) == 215)
        b.press(.character("N"), .character("N"))                 // before 205: round to the bottom
        #expect(cursorKey(b) == 295)

        b.press(.character("/"))                                   // the next search starts as the last one
        #expect(b.prompt?.isRegex == true && b.prompt?.text == "^row 2[0-9]5$")
        b.press(.character("\u{15}"))                             // Ctrl-U: clear the line
        answer("ROW 7$", in: b)                                   // an uppercase letter: case as written
        #expect(status().contains("no match: /ROW 7$/"))
        b.press(.character("/"), .character("\u{15}"))
        answer("row (", in: b)
        #expect(status().contains("not a regular expression"))
        #expect(b.grid?.search == nil, "nothing runs")

        b.press(.character("/"), .character("\u{12}"), .character("\u{15}"))  // back to text: a ( is a (
        #expect(b.prompt?.isRegex == false && b.render().lines().last?.hasPrefix("/") == true)
        answer("row 7", in: b)
        #expect(status().contains("found row 7"))
    }
}

