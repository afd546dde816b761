import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// Sorted and filtered grids (`[`, `]`, `f`, `F`): paging by the sort column's value and
/// the key gives exactly SQLite's `ORDER BY` of the filtered rows, forwards and backwards,
/// NULLs, ties and mixed types included.
@Suite struct TableViewTests {
    /// A table whose `s` column holds NULLs, ties, integers, reals, text and blobs.
    func makeMixed(at path: String, seed: UInt64, withoutRowID: Bool = false) throws -> Store {
        var rng = SplitMix64(seed: seed)
        let db = try Database(path: path)
        if withoutRowID {
            try db.execute("CREATE TABLE t (a INTEGER NOT NULL, b TEXT NOT NULL, s, n INTEGER, PRIMARY KEY (b, a)) WITHOUT ROWID")
        } else {
            try db.execute("CREATE TABLE t (s, n INTEGER, b TEXT)")
        }
        for i in 0..<300 {
            let s: DatabaseValue
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: s = .null
            case 1: s = .integer(Int64.random(in: 0..<8, using: &rng))
            case 2: s = .real(Double(Int.random(in: 0..<8, using: &rng)) + 0.5)
            case 3: s = .text(["a", "b", "B", "ab", ""].randomElement(using: &rng)!)
            case 4: s = .blob(Data([UInt8.random(in: 0...2, using: &rng)]))
            default: s = .integer(3)
            }
            let n = DatabaseValue.integer(Int64.random(in: 0..<10, using: &rng))
            if withoutRowID {
                try db.execute("INSERT INTO t (a, b, s, n) VALUES (?, ?, ?, ?)", [.integer(Int64(i % 7)), .text("k\(i)"), s, n])
            } else {
                try db.execute("INSERT INTO t (s, n, b) VALUES (?, ?, ?)", [s, n, .text("r\(i)")])
            }
        }
        return try Store(existingAt: path)
    }

    @Test(arguments: [(UInt64(1), false), (2, false), (3, true), (4, true)])
    func pagesGiveSQLitesOrder(seed: UInt64, withoutRowID: Bool) throws {
        let folder = TemporaryFolder()
        let path = folder.file("t.db")
        let store = try makeMixed(at: path, seed: seed, withoutRowID: withoutRowID)
        let key = withoutRowID ? ["b", "a"] : ["rowid"]
        let source = try TableSource(store: store, table: "t", crypt: KeyRing.empty)
        for descending in [false, true] {
            for filter in [nil, "n < 5", "s IS NULL OR n = 1"] {
                let view = TableView(sort: .init(column: "s", descending: descending), filter: filter)
                let sorted = try source.viewing(view)
                let direction = descending ? " DESC" : " ASC"
                let expected = try store.queue.read { db in
                    try db.query("SELECT b FROM t" + (filter.map { " WHERE " + $0 } ?? "")
                                 + " ORDER BY s\(direction), " + key.map { $0 + direction }.joined(separator: ", "))
                        .compactMap { $0[0].stringValue }
                }
                #expect(expected.count > 20)
                let (forward, backward) = try walk(sorted, column: "b", limit: 7)
                #expect(forward == expected, "seed \(seed) \(view.summary)")
                #expect(backward == expected, "seed \(seed) \(view.summary)")
                #expect(try sorted.count() == expected.count)
            }
        }
    }

    /// A view (paged by offset) sorts and filters too.
    @Test func aViewSortsAndFilters() throws {
        let folder = TemporaryFolder()
        let path = folder.file("v.db")
        let store = try makeMixed(at: path, seed: 9)
        try store.queue.write { db in try db.execute("CREATE VIEW v AS SELECT n, b FROM t") }
        let view = try TableSource(store: store, table: "v", crypt: KeyRing.empty)
            .viewing(TableView(sort: .init(column: "n", descending: true), filter: "n > 2"))
        let rows = try view.firstPage(limit: 1000)
        let numbers = rows.compactMap { Int($0.cells[0].text) }
        #expect(!numbers.isEmpty && numbers.allSatisfy { $0 > 2 })
        #expect(numbers == numbers.sorted(by: >))
    }

    /// What cannot be sorted or filtered says why, before any row is read.
    @Test func refusals() throws {
        let folder = TemporaryFolder()
        let store = try makeMixed(at: folder.file("r.db"), seed: 5)
        let source = try TableSource(store: store, table: "t", encryptedColumns: ["b"], crypt: KeyRing.empty)
        func refusal(_ view: TableView) -> String {
            do { _ = try source.viewing(view); return "accepted" } catch { return "\(error)" }
        }
        // An encrypted column of a keyed table is sorted in memory (`InMemoryOrderTests`).
        #expect(refusal(TableView(sort: .init(column: "b", descending: false))) == "accepted")
        #expect(refusal(TableView(sort: .init(column: "zz", descending: false))).contains("no column zz"))
        #expect(refusal(TableView(filter: "nope > 1")).contains("no such column: nope"))
        #expect(refusal(TableView(filter: "1); DROP TABLE t; --")).hasPrefix("filter"))
        #expect(try store.queue.read { db in try db.scalar("SELECT count(*) FROM t") }?.int64Value == 300)
    }

    /// The keys: `]` sorts the cursor's column descending (read as a command), `]` again
    /// puts the grid back in its own order, `f` filters and the status line says so, `F`
    /// clears it, a bad filter leaves the grid as it was and says why.
    @Test func keysSortAndFilterTheGrid() throws {
        let folder = TemporaryFolder()
        let path = folder.file("k.db")
        _ = try makeMixed(at: path, seed: 6)
        let b = try browser(path, keys: .empty, width: 120, height: 30)
        b.openNodeAndLoad(named: "t")
        b.press(.right)                                     // the n column
        b.press(.character("]"))
        let numbers = { b.grid?.rows.compactMap { Int($0.cells[1].text) } ?? [] }
        #expect(b.grid?.source.view.sort == .init(column: "n", descending: true))
        #expect(numbers().first == 9 && numbers() == numbers().sorted(by: >))
        #expect(b.screenText.contains("sorted by n ↓"))
        b.press(.character("]"))
        #expect(b.grid?.source.view.sort == nil)

        b.press(.character("f"))
        for c in "n = 4" { b.press(.character(c)) }
        b.press(.enter)
        #expect(b.grid?.source.view.filter == "n = 4")
        #expect(!numbers().isEmpty && numbers().allSatisfy { $0 == 4 })
        #expect(b.screenText.contains("where n = 4"))
        let shown = numbers().count

        b.press(.character("f"), .control("u"))
        for c in "nope = 1" { b.press(.character(c)) }
        b.press(.enter)
        #expect(b.screenText.contains("no such column: nope"))
        #expect(b.grid?.source.view.filter == "n = 4")
        #expect(numbers().count == shown)

        b.press(.character("f"), .control("u"), .enter)   // an empty filter clears it
        #expect(b.grid?.source.view.isDefault == true)
        #expect(numbers().count > shown)
    }
}

/// The search a table runs in SQLite finds the row a scan of every row's column texts
/// finds first, after any row, in any order and filter; encrypted columns are searched
/// decrypted; a cancel stops the query.
@Suite struct TableSearchTests {
    @Test(arguments: [UInt64(11), 12])
    func theFirstMatchIsTheScansFirstMatch(seed: UInt64) throws {
        let folder = TemporaryFolder()
        let store = try TableViewTests().makeMixed(at: folder.file("s.db"), seed: seed)
        var rng = SplitMix64(seed: seed)
        let base = try TableSource(store: store, table: "t", crypt: KeyRing.empty)
        for view in [TableView(), TableView(sort: .init(column: "s", descending: true), filter: "n > 1")] {
            let source = try base.viewing(view)
            // Every row in the grid's order, and the text SQLite gives each of its columns.
            let all = try allRows(of: source, limit: 100)
            let texts: [[String]] = try all.map { row in
                try store.queue.read { db in
                    try db.query("SELECT lower(CAST(s AS TEXT)), lower(CAST(n AS TEXT)), lower(CAST(b AS TEXT)) FROM t WHERE rowid = ?", StatementArguments(row.key))
                        .first!.values.map { $0.stringValue ?? "" }
                }
            }
            for _ in 0..<30 {
                let needle = ["r1", "b", "2.5", "7", "r29", "zz", "1", "%", "r_", "\\"].randomElement(using: &rng)!
                let start = Bool.random(using: &rng) ? nil : Int.random(in: 0..<all.count, using: &rng)
                let from = (start ?? -1) + 1
                let expected = all.indices.dropFirst(from).first { index in texts[index].contains { $0.contains(needle) } }
                let found = try source.firstMatch(of: try SearchNeedle(needle), after: start.map { all[$0] }, limit: 5, cancel: CancellationFlag())
                #expect(found?.first?.key == expected.map { all[$0].key }, "seed \(seed) \(view.summary) \(needle) after \(String(describing: start))")
                if let expected { #expect(found?.count == min(5, all.count - expected)) }
            }
        }
    }

    /// The search skips columns that hold only numbers for a needle no number holds, and
    /// tests only text in the others: it still finds what a scan of every column's text
    /// finds, text stored in an INTEGER column, an INT primary key holding text, a real
    /// written `1.0e+20` or `Inf`, in rowid, STRICT and keyed tables alike.
    @Test(arguments: ["CREATE TABLE u (id INTEGER PRIMARY KEY, n INTEGER, r REAL, t TEXT)",
                      "CREATE TABLE u (id INTEGER PRIMARY KEY, n INTEGER, r REAL, t TEXT) STRICT",
                      "CREATE TABLE u (id INT PRIMARY KEY, n INTEGER, r REAL, t TEXT)",
                      "CREATE TABLE u (id INTEGER PRIMARY KEY DESC, n INTEGER, r REAL, t TEXT)"])
    func skippingNumbersFindsWhatTheScanFinds(schema: String) throws {
        let folder = TemporaryFolder()
        let path = folder.file("n.db")
        let db = try Database(path: path)
        try db.execute(schema)
        let strict = schema.hasSuffix("STRICT")
        var rng = SplitMix64(seed: 21)
        for i in 0..<200 {
            let id: DatabaseValue = !strict && !schema.contains("INTEGER PRIMARY KEY,") && i % 17 == 0 ? .text("key\(i)") : .integer(Int64(i * 3))
            let n: DatabaseValue = !strict && i % 11 == 0 ? .text(["abc", "bravo", "x1"].randomElement(using: &rng)!) : .integer(Int64(i))
            let r: DatabaseValue = [.real(1e20), .real(-Double.infinity), .real(2.5), .null, strict ? .real(0.5) : .text("inf text")][i % 5]
            try db.execute("INSERT INTO u VALUES (?, ?, ?, ?)", [id, n, r, .text("row \(i) " + ["alpha", "bravo"][i % 2])])
        }
        let source = try TableSource(store: try Store(existingAt: path), table: "u", crypt: KeyRing.empty)
        let all = try allRows(of: source, limit: 64)
        let texts: [[String]] = try all.map { row in
            try db.query("SELECT lower(CAST(id AS TEXT)), lower(CAST(n AS TEXT)), lower(CAST(r AS TEXT)), lower(t) FROM u WHERE rowid = ?",
                         StatementArguments(row.key)).first!.values.map { $0.stringValue ?? "" }
        }
        for needle in ["abc", "key1", "bravo", "x1", "inf", "e+20", "-inf", "2.5", "33", "row 1", "zz"] {
            let expected = all.indices.first { texts[$0].contains { $0.contains(needle) } }
            let found = try source.firstMatch(of: try SearchNeedle(needle), after: nil, limit: 1, cancel: CancellationFlag())
            #expect(found?.first?.key == expected.map { all[$0].key }, "\(schema): \(needle)")
        }
    }

    /// A regular expression finds, in SQLite, the first row a scan of every column's text
    /// with the same expression finds, sorted and filtered, with smart case (a pattern with
    /// an uppercase letter respects case).
    @Test func aRegexFindsWhatTheScanFinds() throws {
        let folder = TemporaryFolder()
        let store = try TableViewTests().makeMixed(at: folder.file("s.db"), seed: 5)
        let base = try TableSource(store: store, table: "t", crypt: KeyRing.empty)
        for view in [TableView(), TableView(sort: .init(column: "s", descending: true), filter: "n > 1")] {
            let source = try base.viewing(view)
            let all = try allRows(of: source, limit: 100)
            // NULL has no text: it matches nothing, not even ^$.
            let texts: [[String]] = try all.map { row in
                try store.queue.read { db in
                    try db.query("SELECT CAST(s AS TEXT), CAST(n AS TEXT), CAST(b AS TEXT) FROM t WHERE rowid = ?", StatementArguments(row.key))
                        .first!.values.compactMap(\.stringValue)
                }
            }
            for pattern in ["^r1", "r[0-9]{2}$", "2\\.5", "^-?\\d+$", "R1", "(?-i)r", "zz", "^$"] {
                let needle = try SearchNeedle(pattern, regex: true)
                let expected = all.indices.first { texts[$0].contains { needle.matches($0) } }
                let found = try source.firstMatch(of: needle, after: nil, limit: 1, cancel: CancellationFlag())
                #expect(found?.first?.key == expected.map { all[$0].key }, "\(view.summary) /\(pattern)/")
            }
        }
        #expect(try SearchNeedle("r1", regex: true).matches("R1 x"), "no uppercase: any case")
        #expect(try !SearchNeedle("R1", regex: true).matches("r1 x"), "an uppercase letter: case as written")
        #expect(throws: SearchNeedleError.self) { try SearchNeedle("row (", regex: true) }
    }

    @Test func encryptedColumnsAreSearchedDecryptedAndACancelStops() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root)
        b.openNodeAndLoad(named: "messages")
        let source = try #require(b.grid?.source)
        let found = try source.firstMatch(of: try SearchNeedle("slides"), after: nil, limit: 1, cancel: CancellationFlag())
        #expect(found?.first?.cells.contains { $0.text.contains("I'll bring the slides") } == true)
        let matched = try source.firstMatch(of: try SearchNeedle("bring the sl[a-z]+es", regex: true), after: nil, limit: 1,
                                            cancel: CancellationFlag())
        #expect(matched?.first?.key == found?.first?.key, "a regular expression matches the decrypted text")

        let store = try TableViewTests().makeMixed(at: folder.file("c.db"), seed: 3)
        let cancel = CancellationFlag()
        cancel.cancel()
        let table = try TableSource(store: store, table: "t", crypt: KeyRing.empty)
        #expect { _ = try table.firstMatch(of: try SearchNeedle("zz"), after: nil, limit: 1, cancel: cancel) } throws: { error in
            (error as? DatabaseError)?.isInterrupted == true
        }
    }
}

/// `F`: the frequency table of a column, counted by SQLite; Enter on a value filters the grid.
@Suite struct FrequencyTableTests {
    @Test func countsTheValuesAndEnterFiltersTheGridToOne() throws {
        let folder = TemporaryFolder()
        let path = folder.file("f.db")
        let db = try Database(path: path)
        try db.execute("create table t (id integer primary key, color text)")
        for (index, color) in ["red", "blue", "red", "green", "red", "blue", nil].enumerated() {
            try db.execute("insert into t values (?, ?)", [.integer(Int64(index + 1)), color.map { .text($0) } ?? .null])
        }
        let b = try browser(path, keys: .empty, width: 120, height: 30)
        b.openNodeAndLoad(named: "t")
        b.press(.right)                                   // color
        b.press(.character("F"))
        let table = try #require(b.grid)
        #expect(table.source.columns == ["value", "count", "percent", "bar"])
        #expect(b.headerSubject?.hasPrefix("frequency of color in t · ") == true, "named, not its SQL: \(b.headerSubject ?? "")")
        #expect(table.rows.map { $0.cells.map(\.text) } == [
            ["red", "3", "42.9%", String(repeating: "█", count: 30)],
            ["blue", "2", "28.6%", String(repeating: "█", count: 20)],
            ["NULL", "1", "14.3%", String(repeating: "█", count: 10)],
            ["green", "1", "14.3%", String(repeating: "█", count: 10)],
        ])
        b.press(.down)                                    // blue
        b.press(.enter)
        let filtered = try #require(b.grid)
        #expect(filtered.source.view.filter == "\"color\" = 'blue'")
        #expect(filtered.rows.map { $0.cells[0].text } == ["2", "6"])
        b.press(.right)
        b.press(.character("F"))                          // over the filtered rows
        #expect(b.grid?.rows.map { $0.cells.map(\.text) } == [["blue", "2", "100.0%", String(repeating: "█", count: 30)]])
    }

    /// As VisiData's frequency sheet is left with `q`: Backspace goes back to the grid `F`
    /// was pressed on, at its row and column.
    @Test func backspaceReturnsToTheGridCounted() throws {
        let folder = TemporaryFolder()
        let path = folder.file("f.db")
        let db = try Database(path: path)
        try db.execute("create table t (id integer primary key, color text)")
        for (index, color) in ["red", "blue", "red", "green"].enumerated() {
            try db.execute("insert into t values (?, ?)", [.integer(Int64(index + 1)), .text(color)])
        }
        let b = try browser(path, keys: .empty, width: 120, height: 30)
        b.openNodeAndLoad(named: "t")
        b.press(.down, times: 2)                          // row 3
        b.press(.right)                                   // color
        b.press(.character("F"))
        #expect(b.grid?.source.columns == ["value", "count", "percent", "bar"])
        b.press(.backspace)
        let back = try #require(b.grid)
        #expect(back.source.columns == ["id", "color"], "the table again, not the frequency table")
        #expect(back.rows[back.cursor].cells[0].text == "3")
        #expect(back.column == 1)
        b.press(.character("I"))
        #expect(b.grid?.source.columns.first == "column")
        b.press(.backspace)
        #expect(b.grid?.source.columns == ["id", "color"], "I's statistics are left the same way")
        b.press(.backspace)
        #expect(b.message?.text == "nothing to go back to: Backspace returns to the grid J, F or I left")
    }

    /// A table without rows has a frequency table and statistics too, and Backspace leads
    /// back from them to it (it needed a row under the cursor to come back to).
    @Test func backspaceReturnsToAGridWithoutRows() throws {
        let folder = TemporaryFolder()
        let path = folder.file("e.db")
        let db = try Database(path: path)
        try db.execute("create table t (id integer primary key, color text)")
        let b = try browser(path, keys: .empty, width: 120, height: 30)
        b.openNodeAndLoad(named: "t")
        #expect(b.grid?.rows.isEmpty == true)
        b.press(.right)                                   // color
        b.press(.character("F"))
        #expect(b.grid?.source.columns == ["value", "count", "percent", "bar"])
        b.press(.backspace)
        let back = try #require(b.grid)
        #expect(back.source.columns == ["id", "color"], "the empty table again, not the frequency table")
        #expect(back.column == 1)
        b.press(.character("I"))
        #expect(b.grid?.source.columns.first == "column")
        b.press(.backspace)
        #expect(b.grid?.source.columns == ["id", "color"], "I's statistics are left the same way")
    }

    @Test func aCryptColumnIsCountedByItsDecryptedValue() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), width: 140, height: 30)
        b.openNodeAndLoad(named: "messages")
        let column = try #require(b.grid?.source.columns.firstIndex(of: "sender"))
        b.press(.right, times: column)
        b.press(.character("F"))
        #expect(b.grid?.rows.first?.cells.prefix(2).map(\.text) == ["alice", "2"])
        b.press(.escape)                                  // back to the tree
        b.openNodeAndLoad(named: "messages")
        let content = try #require(b.grid?.source.columns.firstIndex(of: "content"))
        b.press(.right, times: content)
        b.press(.character("F"))
        let values = b.grid?.rows.map { $0.cells[0].text } ?? []
        #expect(values.contains("Lunch tomorrow?"), "\(values)")
    }
}

/// `I`: statistics of every column, computed by SQLite; Esc stops a long one.
@Suite struct ColumnStatisticsTests {
    @Test func describesEveryColumnOfTheRowsShown() throws {
        let folder = TemporaryFolder()
        let path = folder.file("s.db")
        let db = try Database(path: path)
        try db.execute("create table t (id integer primary key, color text, size real)")
        for (index, row) in [("red", 1.5), ("blue", 2.5), ("red", nil)].enumerated() {
            try db.execute("insert into t values (?, ?, ?)", [.integer(Int64(index + 1)), .text(row.0), row.1.map { .real($0) } ?? .null])
        }
        let b = try browser(path, keys: .empty, width: 140, height: 30)
        b.openNodeAndLoad(named: "t")
        b.press(.character("I"))
        let stats = try #require(b.grid)
        #expect(stats.source.columns == ["column", "types", "nulls", "distinct", "min", "max", "mean"])
        #expect(stats.rows.map { $0.cells.map(\.text) } == [
            ["id", "integer", "0", "3", "1", "3", "2.0"],
            ["color", "text", "0", "2", "blue", "red", "NULL"],
            ["size", "real,null", "1", "2", "1.5", "2.5", "2.0"],
        ])
    }

    /// A table of 501 columns (SQLite takes at most 500 terms in a compound SELECT) is
    /// described whole, in the order of its columns.
    @Test func aTableOfMoreThan500ColumnsIsDescribedWhole() throws {
        let folder = TemporaryFolder()
        let path = folder.file("wide.db")
        let names = (1...501).map { "c\($0)" }
        let db = try Database(path: path)
        try db.execute("create table t (" + names.joined(separator: ", ") + ")")
        try db.execute("insert into t (c1, c501) values (7, 'last')")
        let b = try browser(path, keys: .empty, width: 140, height: 30)
        b.openNodeAndLoad(named: "t")
        b.press(.character("I"))
        b.runCommands()
        #expect(b.message?.isError != true, "\(b.message?.text ?? "")")
        let stats = try #require(b.grid)
        #expect(stats.total == 501)
        b.press(.end)
        #expect(stats.rows.first?.cells.map(\.text) == ["c1", "integer", "0", "1", "7", "7", "7.0"])
        #expect(b.grid?.rows.last?.cells.prefix(2).map(\.text) == ["c501", "text"])
        // The same SELECT batched any way gives the same rows.
        let unbatched = ColumnStatistics.select(relation: "t", columns: Array(names.prefix(40)), encrypted: [], view: TableView())
        let batched = ColumnStatistics.select(relation: "t", columns: Array(names.prefix(40)), encrypted: [], view: TableView(), batch: 7)
        #expect(try db.query(unbatched).map(\.values) == (try db.query(batched).map(\.values)))
        #expect(batched.components(separatedBy: "SELECT * FROM (").count == 7, "40 columns in batches of 7")
    }

    /// No rows hold no NULLs: the count is 0 (an aggregate sum of nothing is NULL in SQL).
    @Test func anEmptyTableCountsNoNulls() throws {
        let folder = TemporaryFolder()
        let path = folder.file("s.db")
        try Database(path: path).execute("create table t (id integer primary key, color text)")
        let b = try browser(path, keys: .empty, width: 140, height: 30)
        b.openNodeAndLoad(named: "t")
        b.press(.character("I"))
        #expect(b.grid?.rows.map { $0.cells.map(\.text) } == [
            ["id", "NULL", "0", "0", "NULL", "NULL", "NULL"],
            ["color", "NULL", "0", "0", "NULL", "NULL", "NULL"],
        ])
    }

    @Test func escStopsTheCountingAndTheGridStays() throws {
        let folder = TemporaryFolder()
        let path = folder.file("s.db")
        try Database(path: path).execute("create table t (x)")
        let b = try browser(path, keys: .empty)
        b.openNodeAndLoad(named: "t")
        b.handle(.key(.character("I")))                   // asked for, not yet run
        let commands = b.takeCommands()
        #expect(b.opening != nil)
        b.handle(.key(.escape))
        #expect(b.opening == nil)
        #expect(b.message?.text.contains("cancelled") == true)
        for command in commands { if let event = command.perform() { b.handle(event) } }
        #expect(b.grid?.source.columns == ["x"], "the grid shown stays")
    }
}

/// `c`: the cursor goes to a column by name, and the grid shows it.
@Suite struct ColumnJumpTests {
    @Test func cGoesToAColumnByNameOrPartOfIt() throws {
        let folder = TemporaryFolder()
        let path = folder.file("wide.db")
        let db = try Database(path: path)
        let names = (0..<40).map { "column_\($0)" }
        try db.execute("create table wide (" + names.map { "\($0) text" }.joined(separator: ", ") + ")")
        try db.execute("insert into wide values (" + names.map { "'\($0)-value'" }.joined(separator: ", ") + ")")
        let b = try browser(path, keys: .empty, width: 100, height: 20)
        b.openNodeAndLoad(named: "wide")
        b.press(.character("c"))
        #expect(b.prompt?.purpose == .column)
        answer("COLUMN_37", in: b)
        #expect(b.grid?.column == 37)
        #expect(b.screenText.contains("column_37-value"), "the column is on screen")
        b.press(.character("c"))
        answer("n_5", in: b)
        #expect(b.grid?.column == 5)
        b.press(.character("c"))
        answer("nope", in: b)
        #expect(b.grid?.column == 5)
        #expect(b.message?.text.hasPrefix("no column named nope") == true)
    }
}
