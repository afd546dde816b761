import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// Grids sorted in memory (`InMemoryOrder`): by an encrypted column, the pages give the
/// decrypted values in SQLite's order (locked values after NULLs), forwards and backwards,
/// filtered or not; above the bound the sort is refused with the count.
@Suite struct InMemoryOrderTests {
    /// A table `t` whose `s` column is encrypted with `key`: text, non-UTF-8 bytes, NULLs,
    /// values stored in the clear, and ciphertext of another key (locked). `p` holds what a
    /// key opens (NULL when locked), `cls` 0 for NULL, 1 for locked, 2 for a value: the
    /// order the grid must give is SQLite's `ORDER BY cls, p, rowid`.
    func makeEncrypted(at path: String, seed: UInt64, key: KeyRing) throws -> Store {
        var rng = SplitMix64(seed: seed)
        let other = KeyRing([try EncryptionKey(bytes: Array(repeating: 7, count: 32))])
        let db = try Database(path: path)
        try db.execute("CREATE TABLE t (s, p, cls INTEGER, n INTEGER, b TEXT)")
        for i in 0..<300 {
            let s: DatabaseValue, p: DatabaseValue, cls: Int64
            switch Int.random(in: 0..<7, using: &rng) {
            case 0: (s, p, cls) = (.null, .null, 0)
            case 1: (s, p, cls) = (.blob(try other.encrypt(Data("x".utf8))), .null, 1)
            case 2: (s, p, cls) = (.integer(Int64.random(in: 0..<5, using: &rng)), .null, 2)
            case 3:
                let bytes = Data([0xff, UInt8.random(in: 0...2, using: &rng)])
                (s, p, cls) = (.blob(try key.encrypt(bytes)), .blob(bytes), 2)
            default:
                let text = ["a", "b", "B", "ab", "", "é", "z"].randomElement(using: &rng)!
                (s, p, cls) = (.blob(try key.encrypt(Data(text.utf8))), .text(text), 2)
            }
            // A value in the clear is ordered as stored: `p` holds it too.
            let plain = cls == 2 && p == .null ? s : p
            try db.execute("INSERT INTO t (s, p, cls, n, b) VALUES (?, ?, ?, ?, ?)",
                           [s, plain, .integer(cls), .integer(Int64.random(in: 0..<10, using: &rng)), .text("r\(i)")])
        }
        return try Store(existingAt: path)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func anEncryptedColumnSortsByItsDecryptedValuesInSQLitesOrder(seed: UInt64) throws {
        let folder = TemporaryFolder()
        let key = KeyRing([try EncryptionKey(bytes: Array(repeating: 3, count: 32))])
        let store = try makeEncrypted(at: folder.file("e.db"), seed: seed, key: key)
        let source = try TableSource(store: store, table: "t", encryptedColumns: ["s"], crypt: key)
        for descending in [false, true] {
            for filter in [nil, "n < 5"] {
                let view = TableView(sort: .init(column: "s", descending: descending), filter: filter)
                let sorted = try source.viewing(view)
                let direction = descending ? " DESC" : " ASC"
                let expected = try store.queue.read { db in
                    try db.query("SELECT b FROM t" + (filter.map { " WHERE " + $0 } ?? "")
                                 + " ORDER BY cls\(direction), p\(direction), rowid\(direction)").compactMap { $0[0].stringValue }
                }
                #expect(expected.count > 20)
                let (forward, backward) = try walk(sorted, column: "b", limit: 7)
                #expect(forward == expected, "seed \(seed) \(view.summary)")
                #expect(backward == expected, "seed \(seed) \(view.summary)")
                #expect(try sorted.count() == expected.count)
            }
        }
    }

    /// A locked value is shown locked and sorted with the other locked values, never by
    /// its ciphertext; the paged rows are the rows of a plain sort of everything.
    @Test func lockedValuesStayLockedAndTogether() throws {
        let folder = TemporaryFolder()
        let key = KeyRing([try EncryptionKey(bytes: Array(repeating: 3, count: 32))])
        let store = try makeEncrypted(at: folder.file("l.db"), seed: 9, key: key)
        let sorted = try TableSource(store: store, table: "t", encryptedColumns: ["s"], crypt: key,
                                     view: TableView(sort: .init(column: "s", descending: false)))
        let s = sorted.columns.firstIndex(of: "s")!
        let cls = sorted.columns.firstIndex(of: "cls")!
        let rows = try sorted.firstPage(limit: 1000)
        #expect(rows.map { Int($0.cells[cls].text)! } == rows.map { Int($0.cells[cls].text)! }.sorted())
        let locked = rows.filter { $0.cells[cls].text == "1" }
        #expect(!locked.isEmpty && locked.allSatisfy { $0.cells[s].text.hasPrefix("[locked") })
    }

    /// More rows than the bound: the sort is refused before any row is decrypted, and the
    /// message gives the count and the bound; a filter that keeps fewer lets it run.
    @Test func aboveTheBoundTheSortSaysWhy() throws {
        let folder = TemporaryFolder()
        let db = try Database(path: folder.file("big.db"))
        try db.execute("CREATE TABLE t (s BLOB, n INTEGER)")
        try db.execute("""
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < \(InMemoryOrder.rowBound + 1))
            INSERT INTO t (s, n) SELECT NULL, i FROM c
            """)
        let store = try Store(existingAt: folder.file("big.db"))
        let source = try TableSource(store: store, table: "t", encryptedColumns: ["s"], crypt: KeyRing.empty)
        #expect { _ = try source.viewing(TableView(sort: .init(column: "s", descending: false))) } throws: { error in
            "\(error)".contains("200,000 rows: t has 200,001")
        }
        let filtered = try source.viewing(TableView(sort: .init(column: "s", descending: true), filter: "n <= 10"))
        #expect(try filtered.count() == 10)
        #expect(try filtered.firstPage(limit: 3).map { $0.cells[1].text } == ["10", "9", "8"])
    }

    /// A sort cancelled stops with a message, whether its flag was set before or while it
    /// reads; Esc while a grid's sort is read cancels it and leaves the grid as it was.
    @Test func aSortIsCancelledByItsFlagAndByEsc() throws {
        let folder = TemporaryFolder()
        let key = KeyRing([try EncryptionKey(bytes: Array(repeating: 3, count: 32))])
        let store = try makeEncrypted(at: folder.file("c.db"), seed: 6, key: key)
        let source = try TableSource(store: store, table: "t", encryptedColumns: ["s"], crypt: key)
        let cancel = CancellationFlag()
        cancel.cancel()
        let sort = TableView(sort: .init(column: "s", descending: false))
        #expect { _ = try source.viewing(sort, cancel: cancel) } throws: { "\($0)".contains("the sort was cancelled") }
        #expect(try source.viewing(sort, cancel: CancellationFlag()).count() == 300)

        let root = try makeDemo(folder)
        let b = try browser(root, width: 140)
        b.openNodeAndLoad(named: "messages")
        let before = b.grid?.rows.map(\.key)
        while b.grid?.column != 4 { b.press(.right) }
        b.handle(.key(.character("[")))                     // the sort is asked for, not yet read
        let commands = b.takeCommands()
        guard case let .openGrid(_, _, _, _, _, flag)? = commands.first else { Issue.record("no openGrid"); return }
        b.press(.escape)
        #expect(flag.isCancelled)
        #expect(b.message?.text.contains("cancelled") == true)
        if let event = commands.first?.perform() { b.handle(event) }
        #expect(b.grid?.rows.map(\.key) == before && b.grid?.source.view.isDefault == true)
    }

    /// Through the keys: `[` on an encrypted column sorts the demo's messages by their
    /// decrypted text, and `E` refuses to export that order (no SQL gives it).
    @Test func theKeysSortByADecryptedColumnAndExportRefusesIt() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, width: 140)
        b.openNodeAndLoad(named: "messages")
        let content = try #require(b.grid?.source.columns.firstIndex(of: "content"))
        while b.grid?.column != content { b.press(.right) }
        b.press(.character("["))
        let texts = b.grid?.rows.map { $0.cells[content].text } ?? []
        #expect(texts.count == 5 && texts == texts.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(b.grid?.source.view.summary == "sorted by content ↑")
        b.press(.character("E"))
        #expect(b.message?.text.contains("SQLite cannot export in that order") == true)
        #expect(b.prompt == nil)
    }

    /// A row deleted after the order was built is skipped: the page is still full.
    @Test func aRowGoneSinceTheSortIsSkipped() throws {
        let folder = TemporaryFolder()
        let key = KeyRing([try EncryptionKey(bytes: Array(repeating: 3, count: 32))])
        let store = try makeEncrypted(at: folder.file("g.db"), seed: 4, key: key)
        let sorted = try TableSource(store: store, table: "t", encryptedColumns: ["s"], crypt: key,
                                     view: TableView(sort: .init(column: "s", descending: false)))
        let first = try sorted.firstPage(limit: 10)
        try store.queue.write { db in try db.execute("DELETE FROM t WHERE rowid = ?", [first[3].key[0]]) }
        let again = try sorted.firstPage(limit: 10)
        #expect(again.count == 10)
        #expect(again.prefix(9).map(\.key) == first.enumerated().filter { $0.offset != 3 }.map(\.element.key))
    }

    /// The packed sort gives what a plain sort of the values by `SortValue.order` gives,
    /// ties in key order, over every kind of value.
    @Test func sortsLikeAPlainSortOfTheValues() {
        var rng = SplitMix64(seed: 21)
        let values: [SortValue] = (0..<2000).map { _ in
            switch Int.random(in: 0..<7, using: &rng) {
            case 0: return .null
            case 1: return .locked
            case 2: return .value(.integer(Int64.random(in: -4...4, using: &rng)))
            case 3: return .value(.real(Bool.random(using: &rng) ? .nan : Double(Int.random(in: -8...8, using: &rng)) / 2))
            case 4: return .value(.text(["a", "A", "ä", "ab", "", "b"].randomElement(using: &rng)!))
            case 5: return .value(.null)
            default: return .value(.blob(Data((0..<Int.random(in: 0...2, using: &rng)).map { _ in UInt8.random(in: 0...3, using: &rng) })))
            }
        }
        let entries = values.enumerated().map { (key: [DatabaseValue.integer(Int64($0.offset))], value: $0.element) }
        let plain = entries.sorted { a, b in
            let order = a.value.order(b.value)
            return order != 0 ? order < 0 : a.key[0].int64Value! < b.key[0].int64Value!
        }.map(\.key)
        let ascending = InMemoryOrder(entries: entries, descending: false).keys
        let descending = InMemoryOrder(entries: entries, descending: true).keys
        #expect(ascending == plain, "first difference at \(String(describing: ascending.indices.first { ascending[$0] != plain[$0] }))")
        #expect(descending == plain.reversed(), "descending differs")
    }

    /// SQLite's order of values, pinned against SQLite's own `ORDER BY` over random values
    /// of every storage class (reals next to integers, text with non-ASCII, blobs).
    @Test func sqliteOrderMatchesSQLite() throws {
        var rng = SplitMix64(seed: 11)
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE v (x)")
        var values: [DatabaseValue] = []
        for _ in 0..<400 {
            let v: DatabaseValue
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: v = .null
            case 1: v = .integer(Int64.random(in: -3...3, using: &rng))
            case 2: v = .real(Double(Int.random(in: -6...6, using: &rng)) / 2)
            case 3: v = .text(["a", "A", "ä", "ab", "", "Z", "😀"].randomElement(using: &rng)!)
            case 4: v = .integer([Int64.max, Int64.min, 9_007_199_254_740_993].randomElement(using: &rng)!)
            default: v = .blob(Data((0..<Int.random(in: 0...2, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
            }
            values.append(v)
            try db.execute("INSERT INTO v (x) VALUES (?)", [v])
        }
        try db.execute("INSERT INTO v (x) VALUES (9007199254740992.0)")
        values.append(.real(9_007_199_254_740_992))
        let expected = try db.query("SELECT x FROM v ORDER BY x, rowid").map { $0[0] }
        let indexed = values.enumerated().sorted { a, b in
            let order = SQLiteOrder.compare(a.element, b.element)
            return order != 0 ? order < 0 : a.offset < b.offset
        }
        #expect(indexed.map(\.element) == expected)
    }
}
