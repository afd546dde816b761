import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// KV business and cache grids sorted by any column and filtered by SQL over the stored
/// columns (`StoredKeyView`): the pages give a plain sort of every row by what it shows,
/// forwards and backwards; a filter pages by key; locked values sort together, shown locked.
@Suite struct StoredKeyViewTests {
    /// A store whose business `b` holds strings, integers, doubles, some encrypted with
    /// `key`, some with another key (locked under `key`).
    func makeKV(at path: String, key: KeyRing, seed: UInt64) throws -> Store {
        var rng = SplitMix64(seed: seed)
        let other = try Store(path: path, crypt: KeyRing([try EncryptionKey(bytes: Array(repeating: 8, count: 32))]))
        let store = try Store(path: path, crypt: key)
        for i in 0..<240 {
            let name = "k\(Int.random(in: 0..<1000, using: &rng))-\(i)"
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: try store.kv.setInteger(Int.random(in: -5...5, using: &rng), forKey: name, business: "b")
            case 1: try store.kv.setDouble(Double(Int.random(in: -10...10, using: &rng)) / 4, forKey: name, business: "b")
            case 2: try store.kv.setString(["x", "y", "ab", ""].randomElement(using: &rng)!, forKey: name, business: "b", encryption: .default)
            case 3: try other.kv.setString("hidden", forKey: name, business: "b", encryption: .default)
            default: try store.kv.setString(["a", "b", "B", "é"].randomElement(using: &rng)!, forKey: name, business: "b")
            }
        }
        try store.kv.setString("elsewhere", forKey: "k0", business: "other")
        return store
    }

    /// Every row's key, a page of `limit` at a time, forwards and then backwards.
    func walk(_ source: GridSource, limit: Int) throws -> (forward: [String], backward: [String]) {
        var forward: [String] = []
        var page = try source.firstPage(limit: limit)
        while let last = page.last {
            forward += page.compactMap { $0.key.first?.stringValue }
            page = try source.page(after: last, limit: limit)
        }
        var backward: [String] = []
        page = try source.lastPage(limit: limit)
        while let first = page.first {
            backward = page.compactMap { $0.key.first?.stringValue } + backward
            page = try source.page(before: first, limit: limit)
        }
        return (forward, backward)
    }

    @Test(arguments: [UInt64(1), 2])
    func aKVBusinessSortsByAnyColumnLikeAPlainSortOfItsRows(seed: UInt64) throws {
        let folder = TemporaryFolder()
        let key = KeyRing([try EncryptionKey(bytes: Array(repeating: 4, count: 32))])
        let store = try makeKV(at: folder.file("kv.db"), key: key, seed: seed)
        let source = try KVBusinessSource(store: store, business: "b")
        let all = try source.firstPage(limit: 10_000)
        #expect(all.count == 240)
        for (column, name) in source.columns.enumerated() {
            for descending in [false, true] {
                for filter in [nil, "encoding = 'string'"] {
                    let view = TableView(sort: .init(column: name, descending: descending), filter: filter)
                    let kept = try Set(store.queue.read { db in
                        try db.query("SELECT key FROM datacenter_kv WHERE business = 'b'" + (filter.map { " AND " + $0 } ?? ""))
                            .compactMap { $0[0].stringValue }
                    })
                    let plain = all.filter { kept.contains($0.key[0].stringValue!) }.sorted { a, b in
                        let order = SortValue(cell: a.cells[column]).order(SortValue(cell: b.cells[column]))
                        return order != 0 ? order < 0 : a.key[0].stringValue!.utf8.lexicographicallyPrecedes(b.key[0].stringValue!.utf8)
                    }.map { $0.key[0].stringValue! }
                    let expected = descending ? plain.reversed() : plain
                    let sorted = try source.viewing(view)
                    let (forward, backward) = try walk(sorted, limit: 9)
                    #expect(forward == expected, "seed \(seed) \(view.summary)")
                    #expect(backward == expected, "seed \(seed) \(view.summary)")
                    #expect(try sorted.count() == expected.count)
                }
            }
        }
    }

    /// What VALUE ascending means: locked values first (after none: KV values are never
    /// NULL), then numbers by value, then text; SIZE sorts as a number.
    @Test func valuesSortByWhatTheyHoldAndLockedOnesStayLocked() throws {
        let folder = TemporaryFolder()
        let key = KeyRing([try EncryptionKey(bytes: Array(repeating: 4, count: 32))])
        let store = try makeKV(at: folder.file("kv.db"), key: key, seed: 3)
        let sorted = try KVBusinessSource(store: store, business: "b").viewing(TableView(sort: .init(column: "VALUE", descending: false)))
        let cells = try sorted.firstPage(limit: 1000).map { $0.cells[4] }
        let lockedCount = cells.prefix { $0.text.hasPrefix("[locked") }.count
        #expect(lockedCount > 0 && cells.dropFirst(lockedCount).allSatisfy { !$0.text.hasPrefix("[locked") })
        let numbers = cells.dropFirst(lockedCount).prefix { Double($0.text) != nil }.map { Double($0.text)! }
        #expect(numbers.count > 20 && numbers == numbers.sorted())
        let sizes = try KVBusinessSource(store: store, business: "b").viewing(TableView(sort: .init(column: "SIZE", descending: true)))
            .firstPage(limit: 1000).map { Int($0.cells[3].text)! }
        #expect(sizes == sizes.sorted(by: >) && Set(sizes).count > 2)
    }

    /// A filter pages by key with no sort, keeps to the business, and says why when SQLite
    /// refuses it; a column the grid lacks cannot be sorted by.
    @Test func aFilterPagesByKeyAndARefusalSaysWhy() throws {
        let folder = TemporaryFolder()
        let key = KeyRing([try EncryptionKey(bytes: Array(repeating: 4, count: 32))])
        let store = try makeKV(at: folder.file("kv.db"), key: key, seed: 5)
        let source = try KVBusinessSource(store: store, business: "b")
        let filtered = try source.viewing(TableView(filter: "key LIKE 'k1%'"))
        let expected = try store.queue.read { db in
            try db.query("SELECT key FROM datacenter_kv WHERE business = 'b' AND key LIKE 'k1%' ORDER BY key").compactMap { $0[0].stringValue }
        }
        #expect(expected.count > 10)
        let (forward, backward) = try walk(filtered, limit: 4)
        #expect(forward == expected && backward == expected)
        #expect(try filtered.count() == expected.count)
        #expect(try source.viewing(TableView(filter: "key = 'k0'")).firstPage(limit: 5).isEmpty)
        func refusal(_ view: TableView) -> String {
            do { _ = try source.viewing(view); return "accepted" } catch { return "\(error)" }
        }
        #expect(refusal(TableView(filter: "nope = 1")).contains("no such column: nope"))
        #expect(refusal(TableView(sort: .init(column: "zz", descending: false))).contains("no column zz"))
    }

    /// A cache sorts by size and filters by its stored columns, through the browser's keys.
    @Test func aCacheSortsAndFiltersThroughTheKeys() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, width: 140)
        b.openNodeAndLoad(named: "thumbnails")
        let source = try #require(b.grid?.source)
        let all = try source.firstPage(limit: 100)
        b.press(.home)
        while b.grid?.column != 2 { b.press(b.grid!.column < 2 ? .right : .left) }
        b.press(.character("]"))
        let sizes = { b.grid?.rows.map { Int($0.cells[2].text)! } ?? [] }
        #expect(sizes() == all.map { Int($0.cells[2].text)! }.sorted(by: >))
        #expect(b.grid?.source.view.summary == "sorted by SIZE ↓")
        b.press(.character("f"))
        for character in "size > 100" { b.press(.character(character)) }
        b.press(.enter)
        #expect(!sizes().isEmpty && sizes().allSatisfy { $0 > 100 } && sizes() == sizes().sorted(by: >))
        #expect(sizes().count < all.count)
    }
}
