import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A thread-safe least-recently-used memory cache: `APLRUMemoryCache`.
///
/// `get` and `set` are O(1): a hash table finds the entry, and a doubly linked list orders
/// entries from most to least recently used (`LRUTable`). The cache never holds more than
/// `capacity` entries: inserting into a full cache evicts the least recently used one first.
///
/// Gets run side by side: a hit only reads the table and records its use in the calling
/// thread's `LRUReaderSlot`, a cache line no other core writes, so readers on several cores
/// keep up with one. A full slot is applied to the list by its own thread. What changes
/// entries or reads the order (`set`, removing a present key, `peek`, an expired entry) takes
/// the cache to itself: it waits for the gets in progress and applies every recorded use, all
/// slots merged by their `RecencyClock` stamps, before it reads or changes anything. So, used from one thread, the order is
/// exactly as if each get had moved its entry at once; used from several, each thread's uses
/// keep their order, and uses made at the same time on different threads are ordered within
/// a slot's worth of uses (64) of when they were made.
public final class LRUMemoryCache<Key: Hashable & Sendable, Value>: @unchecked Sendable {
    /// Read by gets while no change runs; changed only inside `exclusively`.
    private var table = LRUTable<Key, Value>()
    /// The capacity; atomic so a cache of capacity 0 (a cache turned off) turns sets away
    /// without taking the cache.
    private let limit: Atomic<Int>
    /// Serializes changes.
    private let writer = AdaptiveLock()
    /// True while a change runs or waits for gets to finish; gets then wait too.
    private let changing = Atomic<Bool>(false)
    /// The largest stamp applied, which gets stamp past (`RecencyClock.tick`).
    private let applied = Atomic<UInt64>(0)
    private let readers: [LRUReaderSlot]
    /// The same slots, reached by gets without the reference counting a plain read of the
    /// array does (every core would write the slot's count, the very sharing slots avoid).
    private let unmanagedReaders: [Unmanaged<LRUReaderSlot>]
    private static var readerCount: Int { 16 }
    private var pressureWatcher: MemoryPressureWatcher?

    /// Creates a cache holding at most `capacity` entries (0 holds nothing).
    public init(capacity: Int) {
        limit = Atomic(Self.clamped(capacity))
        readers = (0..<Self.readerCount).map { _ in LRUReaderSlot() }
        unmanagedReaders = readers.map { Unmanaged.passUnretained($0) }
    }

    deinit { table.deallocate() }

    /// When true, the cache empties itself whenever `MemoryPressure.post()` is called
    /// (the original's `handleMemoryWarning`). Default false.
    public var handlesMemoryPressure: Bool {
        get { exclusively { pressureWatcher != nil } }
        set {
            exclusively {
                if newValue { pressureWatcher = pressureWatcher ?? MemoryPressureWatcher(clearing: self) } else { pressureWatcher = nil }
            }
        }
    }

    /// The most entries the cache holds.
    public var capacity: Int { limit.load(ordering: .relaxed) }

    private static func clamped(_ capacity: Int) -> Int { min(max(0, capacity), Int(Int32.max) - 1) }

    /// How many entries the cache holds now.
    public var count: Int { exclusively { table.count } }

    /// The value for `key`, marking it most recently used; nil when absent or expired
    /// (an expired entry is removed).
    public func get(_ key: Key) -> Value? {
        let hash = key.hashValue
        let thread = RecencyClock.current()
        return readerSlot(of: thread)._withUnsafeGuaranteedRef { reader in
            guard enterAlongside(reader) else { return getExclusively(key, hash: hash) }
            let slot = table.slot(of: key, hash: hash)
            guard slot >= 0 else {
                reader.leave()
                return nil
            }
            guard !table.isExpired(slot), !reader.isFull else {
                reader.leave()
                return getExclusively(key, hash: hash)
            }
            let value = table.value(at: slot)
            let full = reader.record(slot, stamp: RecencyClock.tick(thread, after: applied.load(ordering: .relaxed)))
            reader.leave()
            if full { applyRecordedUses(of: reader) }
            return value
        }
    }

    /// `get` with the cache to itself: when a change is running, the thread's slot is not
    /// free, or the entry expired (it is removed).
    private func getExclusively(_ key: Key, hash: Int) -> Value? {
        var expired: Value?     // released after the cache is let go (its deinit is user code)
        defer { withExtendedLifetime(expired) {} }
        return exclusively {
            let slot = table.slot(of: key, hash: hash)
            guard slot >= 0 else { return nil }
            if table.isExpired(slot) {
                expired = table.remove(slot)
                return nil
            }
            table.moveToHead(slot)
            return table.value(at: slot)
        }
    }

    /// Stores `value` for `key` as the most recently used entry, evicting the least recently
    /// used entry when full. A nil value removes the key. `expiresAt` makes `get` treat the
    /// entry as absent from that time on.
    public func set(_ value: Value?, for key: Key, expiresAt: Date? = nil) {
        guard let value else { remove(key); return }
        guard limit.load(ordering: .relaxed) > 0 else { return }
        let hash = key.hashValue
        let expiry = expiresAt.map { max($0.timeIntervalSinceReferenceDate, .leastNonzeroMagnitude) } ?? 0
        // The value replaced or evicted is released after the cache is let go.
        let dropped: Value? = exclusively {
            let limit = self.limit.load(ordering: .relaxed)
            guard limit > 0 else { return nil }
            let slot = table.slot(of: key, hash: hash)
            if slot >= 0 {
                let old = table.replace(slot, with: value, expiry: expiry)
                table.moveToHead(slot)
                return old
            }
            let evicted = table.count >= limit && table.tail >= 0 ? table.remove(table.tail) : nil
            table.insert(key, value, expiry: expiry, hash: hash)
            return evicted
        }
        withExtendedLifetime(dropped) {}
    }

    /// Replaces the value of `key` only when the cache already holds it, without changing
    /// its recency: a write-through that never grows the cache or evicts.
    public func updateIfPresent(_ value: Value, for key: Key) {
        let hash = key.hashValue
        if isSurelyAbsent(key, hash: hash) { return }
        let dropped: Value? = exclusively {
            let slot = table.slot(of: key, hash: hash)
            return slot >= 0 ? table.replace(slot, with: value) : nil
        }
        withExtendedLifetime(dropped) {}
    }

    /// Removes `key`; returns its value when it was present.
    @discardableResult
    public func remove(_ key: Key) -> Value? {
        let hash = key.hashValue
        if isSurelyAbsent(key, hash: hash) { return nil }
        return exclusively {
            let slot = table.slot(of: key, hash: hash)
            return slot >= 0 ? table.remove(slot) : nil
        }
    }

    /// Removes every entry whose key satisfies `predicate`; returns how many.
    ///
    /// `predicate` runs without the cache held (it may use the cache), on the keys present
    /// when the call started; a key set meanwhile may stay. The values removed are released
    /// after the cache is let go.
    @discardableResult
    public func removeAll(where predicate: (Key) -> Bool) -> Int {
        let matching = exclusively { table.allKeys }.filter(predicate)
        guard !matching.isEmpty else { return 0 }
        let dropped: [Value] = exclusively {
            matching.compactMap { key in
                let slot = table.slot(of: key, hash: key.hashValue)
                return slot >= 0 ? table.remove(slot) : nil
            }
        }
        return dropped.count
    }

    /// Empties the cache (the values are released after the cache is let go).
    public func removeAll() {
        let dropped = exclusively { table.removeAll() }
        withExtendedLifetime(dropped) {}
    }

    /// True when `key` is present and not expired; does not change recency.
    public func contains(_ key: Key) -> Bool {
        let hash = key.hashValue
        let present = { [self] in
            let slot = table.slot(of: key, hash: hash)
            return slot >= 0 && !table.isExpired(slot)
        }
        return readingAlongside(present) ?? exclusively(present)
    }

    /// True when `key` is not in the cache, found the way a get reads (so writes that miss,
    /// the common case for a cache that only holds what was read, do not take the cache).
    /// False when present, or when that read cannot run now.
    private func isSurelyAbsent(_ key: Key, hash: Int) -> Bool {
        readingAlongside { table.slot(of: key, hash: hash) < 0 } ?? false
    }

    /// Runs `body`, which only reads the table, the way a get reads it: alongside other gets,
    /// without taking the cache. nil when it cannot now (a change is running, or the
    /// thread's slot is busy).
    private func readingAlongside<T>(_ body: () -> T) -> T? {
        readerSlot(of: RecencyClock.current())._withUnsafeGuaranteedRef { reader in
            guard enterAlongside(reader) else { return nil }
            defer { reader.leave() }
            return body()
        }
    }

    /// The slot of the thread whose state is `thread`.
    @inline(__always) private func readerSlot(of thread: UnsafeMutablePointer<RecencyClock.ThreadState>) -> Unmanaged<LRUReaderSlot> {
        unmanagedReaders[thread.pointee.index & (Self.readerCount - 1)]
    }

    /// Claims `reader` to read the table alongside gets; false, holding nothing, when no
    /// change may run meanwhile now (one is running), or the slot stays taken (its uses are
    /// being applied, which takes a moment, or another thread shares it).
    @inline(__always) private func enterAlongside(_ reader: LRUReaderSlot) -> Bool {
        var attempts = 0
        while !reader.enter() {
            attempts += 1
            if attempts == 64 { return false }
            if attempts.isMultiple(of: 8) { sched_yield() }
        }
        guard !changing.load(ordering: .sequentiallyConsistent) else {
            reader.leave()
            return false
        }
        return true
    }

    /// Up to `n` entries from the most recently used end (or, with `fromTail`, the least),
    /// without changing recency.
    public func peek(_ n: Int, fromTail: Bool = false) -> [(key: Key, value: Value)] {
        exclusively {
            var result: [(key: Key, value: Value)] = []
            var slot = fromTail ? table.tail : table.head
            while slot >= 0, result.count < n {
                result.append((table.key(at: slot), table.value(at: slot)))
                slot = fromTail ? table.newer(than: slot) : table.older(than: slot)
            }
            return result
        }
    }

    /// Changes the capacity; shrinking evicts least recently used entries.
    public func resetCapacity(_ capacity: Int) {
        let dropped: [Value] = exclusively {
            limit.store(Self.clamped(capacity), ordering: .relaxed)
            var evicted: [Value] = []
            while table.count > Self.clamped(capacity), table.tail >= 0 { evicted.append(table.remove(table.tail)) }
            return evicted
        }
        withExtendedLifetime(dropped) {}
    }

    // MARK: Changes

    /// Runs `body` with the cache to itself: no other change, and no get reading, while it
    /// runs; the uses gets recorded are applied first.
    private func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        writer.lock()
        changing.store(true, ordering: .sequentiallyConsistent)
        defer {
            changing.store(false, ordering: .releasing)
            writer.unlock()
        }
        var recorded = false
        for reader in readers {
            var spins = 0
            while reader.isHeld {
                spins += 1
                if spins >= 100 { spins = 0; sched_yield() }
            }
            recorded = recorded || reader.count > 0
        }
        if recorded { merge(readers.filter { $0.count > 0 }) }
        return try body()
    }

    /// Applies the uses recorded in `reader` (a full slot), without waiting for gets: only
    /// the recency list changes, which gets do not read. Other threads' slots are left to
    /// fill up themselves, so no get ever waits for another thread's uses to be applied; their
    /// uses are concurrent with these, and land in the order the slots are applied.
    private func applyRecordedUses(of reader: LRUReaderSlot) {
        writer.lock()
        defer { writer.unlock() }
        // Claimed while applied, in case another thread shares the slot (more threads than slots).
        guard reader.claim() else { return }
        merge([reader])
        reader.leave()
    }

    /// Moves the entries used in `slots` to the head, in stamp order (each slot's uses are
    /// already in order: a k-way merge), and empties the slots. Hold `writer` and the slots.
    private func merge(_ slots: [LRUReaderSlot]) {
        guard !slots.isEmpty else { return }
        var next = [Int](repeating: 0, count: slots.count)
        var last = applied.load(ordering: .relaxed)
        while true {
            var chosen = -1
            var chosenStamp = UInt64.max
            for index in slots.indices where next[index] < slots[index].count {
                let stamp = slots[index].use(next[index]).stamp
                if stamp < chosenStamp { (chosen, chosenStamp) = (index, stamp) }
            }
            guard chosen >= 0 else { break }
            table.moveToHead(slots[chosen].use(next[chosen]).slot)
            next[chosen] += 1
            last = max(last, chosenStamp)
        }
        for slot in slots { slot.clear() }
        applied.store(last, ordering: .relaxed)
    }
}
