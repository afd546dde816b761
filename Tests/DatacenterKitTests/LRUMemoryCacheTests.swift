import Foundation
import Testing
@testable import DatacenterKit

/// A plain array-based LRU, most recently used first: the reference the cache is checked against.
private struct ReferenceLRU<Key: Equatable> {
    struct Entry: Equatable { var key: Key; var value: Int; var expired: Bool }
    var capacity: Int
    var entries: [Entry] = []

    private func index(_ key: Key) -> Int? { entries.firstIndex { $0.key == key } }

    mutating func get(_ key: Key) -> Int? {
        guard let i = index(key) else { return nil }
        let entry = entries.remove(at: i)
        if entry.expired { return nil }
        entries.insert(entry, at: 0)
        return entry.value
    }

    mutating func set(_ value: Int?, _ key: Key, expired: Bool) {
        guard let value else { _ = remove(key); return }
        guard capacity > 0 else { return }
        if let i = index(key) {
            entries.remove(at: i)
        } else if entries.count >= capacity {
            entries.removeLast()
        }
        entries.insert(Entry(key: key, value: value, expired: expired), at: 0)
    }

    mutating func remove(_ key: Key) -> Int? {
        guard let i = index(key) else { return nil }
        return entries.remove(at: i).value
    }

    mutating func removeAll(where predicate: (Key) -> Bool) -> Int {
        let before = entries.count
        entries.removeAll { predicate($0.key) }
        return before - entries.count
    }

    func contains(_ key: Key) -> Bool { index(key).map { !entries[$0].expired } ?? false }

    func peek(_ n: Int, fromTail: Bool) -> [Key] {
        Array((fromTail ? entries.reversed() : entries).prefix(max(0, n)).map(\.key))
    }

    /// `addMany`: sets in order, none expired.
    mutating func addMany(_ pairs: [(Key, Int)]) {
        for (key, value) in pairs { set(value, key, expired: false) }
    }

    /// `removeAll(keys:)`: how many of the keys were present (expired or not).
    mutating func removeAll(keys: [Key]) -> Int {
        keys.reduce(0) { count, key in count + (remove(key) == nil ? 0 : 1) }
    }

    mutating func resetCapacity(_ n: Int) {
        capacity = max(0, n)
        while entries.count > capacity { entries.removeLast() }
    }
}

/// `LRUMemoryCache`.
@Suite struct LRUMemoryCacheTests {
    @Test func capacityIsNeverExceeded() {
        let cache = LRUMemoryCache<Int, String>(capacity: 5)
        for i in 0..<100 {
            cache.set("v\(i)", for: i)
            #expect(cache.count <= 5)
        }
        #expect(cache.count == 5)
        #expect(cache.capacity == 5)
        #expect(cache.peek(10).map(\.key) == [99, 98, 97, 96, 95])
    }

    @Test func theLeastRecentlyUsedIsEvicted() {
        let cache = LRUMemoryCache<String, Int>(capacity: 3)
        cache.set(1, for: "a")
        cache.set(2, for: "b")
        cache.set(3, for: "c")
        cache.set(4, for: "d")
        #expect(cache.get("a") == nil)
        #expect(cache.get("b") == 2)
        #expect(cache.get("c") == 3)
        #expect(cache.get("d") == 4)
    }

    @Test func getRefreshesRecency() {
        let cache = LRUMemoryCache<String, Int>(capacity: 3)
        cache.set(1, for: "a")
        cache.set(2, for: "b")
        cache.set(3, for: "c")
        #expect(cache.get("a") == 1)   // a is now the most recent; b the least
        cache.set(4, for: "d")
        #expect(cache.contains("a"))
        #expect(!cache.contains("b"))
        #expect(cache.peek(3).map(\.key) == ["d", "a", "c"])
    }

    @Test func settingAnExistingKeyRefreshesItWithoutEvicting() {
        let cache = LRUMemoryCache<String, Int>(capacity: 2)
        cache.set(1, for: "a")
        cache.set(2, for: "b")
        cache.set(10, for: "a")
        #expect(cache.count == 2)
        cache.set(3, for: "c")   // evicts b, not a
        #expect(cache.get("a") == 10)
        #expect(cache.get("b") == nil)
    }

    @Test func peekAndContainsDoNotChangeRecency() {
        let cache = LRUMemoryCache<String, Int>(capacity: 3)
        cache.set(1, for: "a")
        cache.set(2, for: "b")
        cache.set(3, for: "c")
        #expect(cache.peek(1, fromTail: true).map(\.key) == ["a"])
        #expect(cache.peek(3, fromTail: true).map(\.value) == [1, 2, 3])
        #expect(cache.contains("a"))
        cache.set(4, for: "d")
        #expect(!cache.contains("a"), "peek or contains refreshed the entry")
        #expect(cache.peek(0).isEmpty)
    }

    @Test func expiredEntriesAreAbsent() {
        let cache = LRUMemoryCache<String, Int>(capacity: 4)
        cache.set(1, for: "past", expiresAt: Date().addingTimeInterval(-1))
        cache.set(2, for: "future", expiresAt: .distantFuture)
        cache.set(3, for: "forever")
        #expect(!cache.contains("past"))
        #expect(cache.get("past") == nil)
        #expect(cache.count == 2, "an expired entry is dropped when read")
        #expect(cache.get("future") == 2)
        #expect(cache.get("forever") == 3)
        // Setting again with no expiry revives the key.
        cache.set(5, for: "future", expiresAt: Date().addingTimeInterval(-1))
        #expect(cache.get("future") == nil)
        cache.set(6, for: "future")
        #expect(cache.get("future") == 6)
    }

    @Test func removeAndNilSet() {
        let cache = LRUMemoryCache<String, Int>(capacity: 3)
        cache.set(1, for: "a")
        cache.set(2, for: "b")
        #expect(cache.remove("a") == 1)
        #expect(cache.remove("a") == nil)
        cache.set(nil, for: "b")
        #expect(cache.count == 0)
        #expect(cache.get("b") == nil)
        cache.set(1, for: "x"); cache.set(2, for: "y"); cache.set(3, for: "z"); cache.set(4, for: "w")
        #expect(cache.count == 3)
        cache.removeAll()
        #expect(cache.count == 0)
        #expect(cache.peek(5).isEmpty)
        cache.set(9, for: "after")
        #expect(cache.get("after") == 9)
    }

    @Test func resetCapacityShrinksFromTheLeastRecentEnd() {
        let cache = LRUMemoryCache<Int, Int>(capacity: 10)
        for i in 0..<10 { cache.set(i, for: i) }
        _ = cache.get(0)
        cache.resetCapacity(3)
        #expect(cache.capacity == 3)
        #expect(cache.count == 3)
        #expect(cache.peek(10).map(\.key) == [0, 9, 8])
        cache.set(100, for: 100)
        #expect(cache.count == 3)
        cache.resetCapacity(0)
        #expect(cache.count == 0)
        cache.set(1, for: 1)
        #expect(cache.count == 0)
        #expect(cache.get(1) == nil)
        cache.resetCapacity(2)
        cache.set(1, for: 1)
        #expect(cache.get(1) == 1)
    }

    @Test func zeroAndNegativeCapacitiesHoldNothing() {
        for capacity in [0, -5] {
            let cache = LRUMemoryCache<Int, Int>(capacity: capacity)
            cache.set(1, for: 1)
            #expect(cache.count == 0)
            #expect(cache.capacity == 0)
        }
    }

    @Test func removeAllWhere() {
        let cache = LRUMemoryCache<Int, String>(capacity: 10)
        for i in 0..<10 { cache.set("\(i)", for: i) }
        #expect(cache.removeAll { $0 % 2 == 0 } == 5)
        #expect(cache.count == 5)
        #expect(cache.peek(10).map(\.key) == [9, 7, 5, 3, 1])
        #expect(cache.removeAll { $0 > 100 } == 0)
        for i in 10..<15 { cache.set("\(i)", for: i) }
        #expect(cache.count == 10)
        #expect(cache.get(1) == "1")
    }

    @Test func updateIfPresentNeitherGrowsNorRefreshes() {
        let cache = LRUMemoryCache<String, Int>(capacity: 2)
        cache.updateIfPresent(1, for: "absent")
        #expect(cache.count == 0)
        cache.set(1, for: "a")
        cache.set(2, for: "b")
        cache.updateIfPresent(10, for: "a")
        #expect(cache.peek(2).map(\.value) == [2, 10], "the update changed recency")
        cache.set(3, for: "c")   // a is still the least recent, so it goes
        #expect(cache.get("a") == nil)
        #expect(cache.get("b") == 2)
    }

    @Test func bulkAddAndRemove() throws {
        let cache = LRUMemoryCache<String, Int>(capacity: 10)
        cache.addMany([("img.a", 1), ("img.b", 2), ("doc.a", 3), ("doc.b", 4), ("x.png", 5)])
        #expect(cache.peek(1).first?.key == "x.png")
        #expect(cache.count == 5)
        #expect(cache.removeAll(keys: ["img.a", "missing"]) == 1)
        #expect(cache.removeAll(withPrefix: "doc.") == 2)
        #expect(cache.removeAll(withSuffix: ".png") == 1)
        #expect(cache.peek(10).map(\.key) == ["img.b"])
        cache.addMany([("a1", 1), ("a22", 2), ("b3", 3)])
        #expect(try cache.removeAll(matching: "a[0-9]") == 1)   // the whole key must match
        #expect(cache.contains("a22"))
        #expect(throws: (any Error).self) { try cache.removeAll(matching: "(") }
    }

    @Test func memoryPressureEmptiesOnlyWatchingCaches() {
        let watching = LRUMemoryCache<Int, Int>(capacity: 4)
        let ignoring = LRUMemoryCache<Int, Int>(capacity: 4)
        watching.handlesMemoryPressure = true
        #expect(watching.handlesMemoryPressure)
        #expect(!ignoring.handlesMemoryPressure)
        for i in 0..<3 { watching.set(i, for: i); ignoring.set(i, for: i) }
        MemoryPressure.post()
        #expect(watching.count == 0)
        #expect(ignoring.count == 3)
        watching.handlesMemoryPressure = false
        watching.set(1, for: 1)
        MemoryPressure.post()
        #expect(watching.count == 1)
    }

    @Test func concurrentUseKeepsTheInvariants() {
        let cache = LRUMemoryCache<Int, Int>(capacity: 64)
        let errors = runOnThreads(6) { t in
            var rng = SplitMix64(seed: UInt64(t))
            for _ in 0..<5000 {
                let key = Int.random(in: 0..<200, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0, 1: cache.set(key * 10, for: key)
                case 2: if let v = cache.get(key), v != key * 10 { throw CancellationError() }
                default: cache.remove(key)
                }
            }
        }
        #expect(errors.isEmpty, "a value came back for the wrong key")
        #expect(cache.count <= 64)
        let entries = cache.peek(100)
        #expect(entries.count == cache.count)
        #expect(entries.allSatisfy { $0.value == $0.key * 10 })
        #expect(Set(entries.map(\.key)).count == entries.count)
    }

    /// Gets on many threads at once: the values they read must be right, and afterwards the
    /// list must hold each entry once, the same from either end, and within capacity.
    @Test func concurrentGetsKeepTheListWhole() {
        let cache = LRUMemoryCache<Int, Int>(capacity: 80)
        for key in 0..<100 { cache.set(key * 10, for: key) }
        let errors = runOnThreads(4) { t in
            var rng = SplitMix64(seed: UInt64(t) + 100)
            for _ in 0..<20_000 {
                let key = Int.random(in: 0..<100, using: &rng)
                if Int.random(in: 0..<100, using: &rng) == 0 {
                    cache.set(key * 10, for: key)
                } else if let v = cache.get(key), v != key * 10 {
                    throw CancellationError()
                }
            }
        }
        #expect(errors.isEmpty, "a value came back for the wrong key")
        let forward = cache.peek(200).map(\.key)
        #expect(forward.count == cache.count && forward.count <= 80)
        #expect(Set(forward).count == forward.count)
        #expect(cache.peek(200, fromTail: true).map(\.key) == forward.reversed())
    }

    @Test(arguments: [UInt64(1), 2, 42, 0xDEAD_BEEF, 20_240_601])
    func matchesAReferenceModel(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let initialCapacity = Int.random(in: 0...8, using: &rng)
        let cache = LRUMemoryCache<Int, Int>(capacity: initialCapacity)
        var model = ReferenceLRU<Int>(capacity: initialCapacity)
        let past = Date().addingTimeInterval(-60)
        var log: [String] = []

        for step in 0..<2000 {
            let key = Int.random(in: 0..<12, using: &rng)
            let context = { "seed \(seed), step \(step), last ops: \(log.suffix(6).joined(separator: "; "))" }
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<35:
                let value = Int.random(in: 0..<1000, using: &rng)
                let expired = Int.random(in: 0..<10, using: &rng) == 0
                log.append("set \(key)=\(value)\(expired ? " expired" : "")")
                cache.set(value, for: key, expiresAt: expired ? past : (Bool.random(using: &rng) ? nil : .distantFuture))
                model.set(value, key, expired: expired)
            case 35..<65:
                log.append("get \(key)")
                #expect(cache.get(key) == model.get(key), "\(context())")
            case 65..<72:
                log.append("remove \(key)")
                #expect(cache.remove(key) == model.remove(key), "\(context())")
            case 72..<75:
                log.append("set nil \(key)")
                cache.set(nil, for: key)
                model.set(nil, key, expired: false)
            case 75..<82:
                log.append("contains \(key)")
                #expect(cache.contains(key) == model.contains(key), "\(context())")
            case 82..<88:
                let n = Int.random(in: 0...10, using: &rng)
                let fromTail = Bool.random(using: &rng)
                log.append("peek \(n) \(fromTail ? "tail" : "head")")
                #expect(cache.peek(n, fromTail: fromTail).map(\.key) == model.peek(n, fromTail: fromTail), "\(context())")
            case 88..<92:
                let modulus = Int.random(in: 2...5, using: &rng)
                log.append("removeAll where %\(modulus)")
                #expect(cache.removeAll { $0 % modulus == 0 } == model.removeAll { $0 % modulus == 0 }, "\(context())")
            case 92..<96:
                let capacity = Int.random(in: 0...8, using: &rng)
                log.append("resetCapacity \(capacity)")
                cache.resetCapacity(capacity)
                model.resetCapacity(capacity)
            case 96..<97:
                log.append("removeAll")
                cache.removeAll()
                model.entries.removeAll()
            case 97..<98:
                let pairs = (0..<Int.random(in: 0...4, using: &rng)).map { _ in
                    (Int.random(in: 0..<12, using: &rng), Int.random(in: 0..<1000, using: &rng))
                }
                log.append("addMany \(pairs)")
                cache.addMany(pairs)
                model.addMany(pairs)
            case 98..<99:
                let keys = (0..<Int.random(in: 0...5, using: &rng)).map { _ in Int.random(in: 0..<14, using: &rng) }
                log.append("removeAll keys \(keys)")
                #expect(cache.removeAll(keys: keys) == model.removeAll(keys: keys), "\(context())")
            default:
                log.append("check")
            }
            #expect(cache.count == model.entries.count, "\(context())")
            #expect(cache.count <= cache.capacity, "\(context())")
            #expect(cache.peek(20).map(\.key) == model.entries.map(\.key), "\(context())")
            if cache.count != model.entries.count { break }
        }
    }

    /// Long runs of gets between sets that evict, with the order checked only now and then,
    /// must leave exactly the reference model's order and contents.
    @Test(arguments: [UInt64(5), 77, 0xFACE, 123_456])
    func longRunsOfGetsKeepTheExactOrder(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let cache = LRUMemoryCache<Int, Int>(capacity: 100)
        var model = ReferenceLRU<Int>(capacity: 100)
        for step in 0..<20_000 {
            let key = Int.random(in: 0..<150, using: &rng)
            // Phases of 1 set in 10 and in 100 operations: long runs of gets between changes.
            let getShare = step / 2000 % 2 == 0 ? 90 : 99
            if Int.random(in: 0..<100, using: &rng) < getShare {
                #expect(cache.get(key) == model.get(key), "seed \(seed), step \(step): get \(key)")
            } else {
                let value = Int.random(in: 0..<1000, using: &rng)
                cache.set(value, for: key)
                model.set(value, key, expired: false)
            }
            if step % 997 == 0 {
                #expect(cache.peek(150).map(\.key) == model.entries.map(\.key), "seed \(seed), step \(step)")
                #expect(cache.peek(150, fromTail: true).map(\.key) == model.entries.map(\.key).reversed(), "seed \(seed), step \(step)")
            }
        }
        #expect(cache.peek(150).map(\.key) == model.entries.map(\.key), "seed \(seed), end")
    }

    /// The bulk removals by prefix, suffix and pattern, against the reference model.
    @Test(arguments: [UInt64(3), 17, 99, 0xC0FFEE, 31_337])
    func bulkRemovalsMatchAReferenceModel(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let keys = ["", "a", "ab", "abc", "b", "ba", "AB", "a.b", "x.png", "y.png", "ab.png", "png", "a1", "a22", "é", "éa"]
        let prefixes = ["", "a", "ab", "A", "x", "é", "zzz"]
        let suffixes = ["", "b", ".png", "png", "c", "a", "é"]
        // Each with its meaning as a whole-key predicate.
        let patterns: [(String, (String) -> Bool)] = [
            ("a.*", { $0.hasPrefix("a") }),
            ("[ab]+", { !$0.isEmpty && $0.allSatisfy { $0 == "a" || $0 == "b" } }),
            (".*\\.png", { $0.hasSuffix(".png") }),
            ("a.", { $0.count == 2 && $0.hasPrefix("a") }),
            ("x|y\\.png", { $0 == "x" || $0 == "y.png" }),
            ("(?i)ab", { $0.lowercased() == "ab" }),
            ("a[0-9]+", { $0.count > 1 && $0.hasPrefix("a") && $0.dropFirst().allSatisfy(\.isNumber) }),
            (".*", { _ in true }),
            ("é.?", { $0.hasPrefix("é") && $0.count <= 2 }),
        ]
        let capacity = Int.random(in: 1...12, using: &rng)
        let cache = LRUMemoryCache<String, Int>(capacity: capacity)
        var model = ReferenceLRU<String>(capacity: capacity)
        var log: [String] = []
        let past = Date().addingTimeInterval(-60)

        for step in 0..<1500 {
            let key = keys.randomElement(using: &rng)!
            let context = { "seed \(seed), step \(step), last ops: \(log.suffix(6).joined(separator: "; "))" }
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<30:
                let value = Int.random(in: 0..<1000, using: &rng)
                let expired = Int.random(in: 0..<8, using: &rng) == 0
                log.append("set \(key)=\(value)\(expired ? " expired" : "")")
                cache.set(value, for: key, expiresAt: expired ? past : nil)
                model.set(value, key, expired: expired)
            case 30..<45:
                log.append("get \(key)")
                #expect(cache.get(key) == model.get(key), "\(context())")
            case 45..<55:
                let pairs = (0..<Int.random(in: 0...6, using: &rng)).map { _ in
                    (keys.randomElement(using: &rng)!, Int.random(in: 0..<1000, using: &rng))
                }
                log.append("addMany \(pairs)")
                cache.addMany(pairs)
                model.addMany(pairs)
            case 55..<65:
                let some = (0..<Int.random(in: 0...5, using: &rng)).map { _ in keys.randomElement(using: &rng)! + (Bool.random(using: &rng) ? "" : "?") }
                log.append("removeAll keys \(some)")
                #expect(cache.removeAll(keys: some) == model.removeAll(keys: some), "\(context())")
            case 65..<75:
                let prefix = prefixes.randomElement(using: &rng)!
                log.append("removeAll prefix \(prefix)")
                #expect(cache.removeAll(withPrefix: prefix) == model.removeAll { $0.hasPrefix(prefix) }, "\(context())")
            case 75..<85:
                let suffix = suffixes.randomElement(using: &rng)!
                log.append("removeAll suffix \(suffix)")
                #expect(cache.removeAll(withSuffix: suffix) == model.removeAll { $0.hasSuffix(suffix) }, "\(context())")
            case 85..<95:
                let (pattern, predicate) = patterns.randomElement(using: &rng)!
                log.append("removeAll matching \(pattern)")
                #expect(try cache.removeAll(matching: pattern) == model.removeAll(where: predicate), "\(context())")
            default:
                log.append("peek")
                #expect(cache.peek(20, fromTail: true).map(\.key) == model.peek(20, fromTail: true), "\(context())")
            }
            #expect(cache.count == model.entries.count, "\(context())")
            #expect(cache.peek(20).map(\.key) == model.entries.map(\.key), "\(context())")
            if cache.count != model.entries.count { break }
        }
    }

    @Test func aBadPatternRemovesNothing() throws {
        let cache = LRUMemoryCache<String, Int>(capacity: 4)
        cache.addMany([("a", 1), ("b", 2)])
        for bad in ["(", "[a", "a{2", "*"] {
            #expect(throws: (any Error).self) { try cache.removeAll(matching: bad) }
        }
        #expect(cache.count == 2)
        // A pattern with alternation still has to match the whole key.
        cache.addMany([("ab", 3), ("xa", 4)])
        #expect(try cache.removeAll(matching: "a|b") == 2)
        #expect(cache.peek(4).map(\.key) == ["xa", "ab"])
    }
}

/// The caller's code — a predicate, a value's `deinit` — runs without the cache held, so it
/// may use the cache (it used to spin for ever under the cache's lock).
@Suite struct LRUMemoryCacheReentrancyTests {
    /// A value that reads the cache when released.
    final class Tattler: @unchecked Sendable {
        let cache: LRUMemoryCache<String, Tattler>
        let released: Locked<Int>
        init(_ cache: LRUMemoryCache<String, Tattler>, _ released: Locked<Int>) {
            self.cache = cache
            self.released = released
        }
        deinit {
            _ = cache.get("other")
            _ = cache.count
            released.withLock { $0 += 1 }
        }
    }

    /// Runs `body` on another thread; false when it has not finished within five seconds.
    func finishes(_ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        return done.wait(timeout: .now() + 5) == .success
    }

    /// The order is exactly that of the calls, across threads too: a get made after another
    /// thread's gets is the most recent use, however many gets that thread made. (Recency
    /// recorded per thread and merged later by per-thread clocks put a fresh thread's one
    /// get behind a busier thread's earlier ones.)
    @Test func aGetAfterAnotherThreadsGetsIsTheMostRecentUse() {
        let cache = LRUMemoryCache<String, Int>(capacity: 10)
        for (i, key) in ["a", "b", "c"].enumerated() { cache.set(i, for: key) }
        #expect(finishes { for _ in 0..<50 { _ = cache.get("b") } })
        #expect(finishes { _ = cache.get("a") })
        #expect(cache.peek(3).map(\.key) == ["a", "b", "c"])
        #expect(finishes { _ = cache.get("c") })
        #expect(cache.peek(3).map(\.key) == ["c", "a", "b"])
    }

    @Test func aPredicateMayUseTheCache() {
        let cache = LRUMemoryCache<String, Int>(capacity: 10)
        for i in 0..<6 { cache.set(i, for: "k\(i)") }
        let removed = Locked(0)
        #expect(finishes {
            let n = cache.removeAll { key in cache.get(key).map { $0 % 2 == 0 } ?? false }
            removed.withLock { $0 = n }
        }, "removeAll(where:) hung when its predicate read the cache")
        #expect(removed.withLock { $0 } == 3)
        #expect(cache.count == 3)
        #expect(cache.get("k1") == 1 && cache.get("k0") == nil)
    }

    @Test func aValueReleasedByAChangeMayUseTheCache() {
        let cache = LRUMemoryCache<String, Tattler>(capacity: 2)
        let released = Locked(0)
        #expect(finishes {
            cache.set(Tattler(cache, released), for: "a")
            cache.set(Tattler(cache, released), for: "a")          // replaces
            cache.set(Tattler(cache, released), for: "b")
            cache.set(Tattler(cache, released), for: "c")          // evicts a
            cache.updateIfPresent(Tattler(cache, released), for: "b")
            cache.remove("b")
            cache.resetCapacity(0)                                 // evicts c
            cache.resetCapacity(2)
            cache.set(Tattler(cache, released), for: "d")
            cache.removeAll { $0 == "d" }
            cache.set(Tattler(cache, released), for: "e", expiresAt: Date(timeIntervalSinceNow: -1))
            _ = cache.get("e")                                     // expired: removed
            cache.set(Tattler(cache, released), for: "f")
            cache.removeAll()
        }, "a change hung when the value it released read the cache")
        #expect(released.withLock { $0 } == 8)
        #expect(cache.count == 0)
    }
}
