import Foundation

/// A thread-safe least-recently-used memory cache: `APLRUMemoryCache`.
///
/// `get` and `set` are O(1): a dictionary finds the entry, and a doubly linked list kept in
/// one array (indices, not references, so no reference counting on the hot path) orders
/// entries from most to least recently used. The cache never holds more than `capacity`
/// entries: inserting into a full cache evicts the least recently used one first.
public final class LRUMemoryCache<Key: Hashable & Sendable, Value>: @unchecked Sendable {
    /// One entry. Links are kept apart (`links`), so reordering never moves a key or value.
    private struct Node {
        var key: Key
        var value: Value
        /// Seconds since the reference date after which the entry is gone; 0: never.
        var expiry: Double
    }

    /// The neighbours of one slot in recency order (-1: none).
    private struct Link {
        var previous: Int32
        var next: Int32
    }

    private let lock = AdaptiveLock()
    private var index: [Key: Int32] = [:]
    /// Entries by slot; nil for a free slot, so a removed value is released at once.
    private var nodes: [Node?] = []
    private var links: [Link] = []
    private var freeSlots: [Int32] = []
    private var head: Int32 = -1   // most recently used
    private var tail: Int32 = -1   // least recently used
    private var limit: Int
    /// Slots `get` has read whose move to the head is pending. They are applied in order,
    /// all at once, before anything that reads or changes the order or frees a slot, so the
    /// order is exactly as if each get had moved its entry at once; meanwhile a get writes
    /// one slot number instead of relinking neighbours, which is what lets readers on
    /// several cores keep up with one.
    private var pendingTouches: [Int32] = []
    private static var touchBatchSize: Int { 64 }

    /// Creates a cache holding at most `capacity` entries (0 holds nothing).
    public init(capacity: Int) {
        limit = min(max(0, capacity), Int(Int32.max) - 1)
        index.reserveCapacity(min(limit, 4096))
        pendingTouches.reserveCapacity(LRUMemoryCache.touchBatchSize)
    }

    private var pressureWatcher: MemoryPressureWatcher?

    /// When true, the cache empties itself whenever `MemoryPressure.post()` is called
    /// (the original's `handleMemoryWarning`). Default false.
    public var handlesMemoryPressure: Bool {
        get { lock.withLock { pressureWatcher != nil } }
        set {
            lock.withLock {
                if newValue { pressureWatcher = pressureWatcher ?? MemoryPressureWatcher(clearing: self) } else { pressureWatcher = nil }
            }
        }
    }

    /// The most entries the cache holds.
    public var capacity: Int { lock.withLock { limit } }

    /// How many entries the cache holds now.
    public var count: Int { lock.withLock { index.count } }

    /// The value for `key`, marking it most recently used; nil when absent or expired
    /// (an expired entry is removed).
    public func get(_ key: Key) -> Value? {
        lock.lock()
        defer { lock.unlock() }
        guard let slot = index[key] else { return nil }
        let expiry = nodes[Int(slot)]?.expiry ?? 0
        if expiry != 0, expiry <= Date.timeIntervalSinceReferenceDate {
            applyTouches()
            unlink(slot)
            release(slot)
            return nil
        }
        if pendingTouches.last != slot {
            pendingTouches.append(slot)
            if pendingTouches.count >= LRUMemoryCache.touchBatchSize { applyTouches() }
        }
        return nodes[Int(slot)]?.value
    }

    /// Stores `value` for `key` as the most recently used entry, evicting the least recently
    /// used entry when full. A nil value removes the key. `expiresAt` makes `get` treat the
    /// entry as absent from that time on.
    public func set(_ value: Value?, for key: Key, expiresAt: Date? = nil) {
        lock.lock()
        defer { lock.unlock() }
        guard let value else { removeLocked(key); return }
        guard limit > 0 else { return }
        applyTouches()
        let expiry = expiresAt.map { max($0.timeIntervalSinceReferenceDate, .leastNonzeroMagnitude) } ?? 0
        if let slot = index[key] {
            nodes[Int(slot)]?.value = value
            nodes[Int(slot)]?.expiry = expiry
            moveToHead(slot)
            return
        }
        if index.count >= limit, tail >= 0 {
            let victim = tail
            unlink(victim)
            release(victim)
        }
        let node = Node(key: key, value: value, expiry: expiry)
        let slot: Int32
        if let free = freeSlots.popLast() {
            nodes[Int(free)] = node
            slot = free
        } else {
            nodes.append(node)
            links.append(Link(previous: -1, next: -1))
            slot = Int32(nodes.count - 1)
        }
        linkAtHead(slot)
        index[key] = slot
    }

    /// Replaces the value of `key` only when the cache already holds it, without changing
    /// its recency: a write-through that never grows the cache or evicts.
    public func updateIfPresent(_ value: Value, for key: Key) {
        lock.lock()
        defer { lock.unlock() }
        guard let slot = index[key] else { return }
        nodes[Int(slot)]?.value = value
    }

    /// Removes `key`; returns its value when it was present.
    @discardableResult
    public func remove(_ key: Key) -> Value? {
        lock.lock()
        defer { lock.unlock() }
        return removeLocked(key)
    }

    /// Removes every entry whose key satisfies `predicate`; returns how many.
    @discardableResult
    public func removeAll(where predicate: (Key) -> Bool) -> Int {
        lock.lock()
        defer { lock.unlock() }
        let victims = index.keys.filter(predicate)
        for key in victims { removeLocked(key) }
        return victims.count
    }

    /// Empties the cache.
    public func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        pendingTouches.removeAll(keepingCapacity: true)
        index.removeAll(keepingCapacity: true)
        nodes.removeAll(keepingCapacity: true)
        links.removeAll(keepingCapacity: true)
        freeSlots.removeAll()
        head = -1
        tail = -1
    }

    /// True when `key` is present and not expired; does not change recency.
    public func contains(_ key: Key) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let slot = index[key] else { return false }
        let expiry = nodes[Int(slot)]?.expiry ?? 0
        return expiry == 0 || expiry > Date.timeIntervalSinceReferenceDate
    }

    /// Up to `n` entries from the most recently used end (or, with `fromTail`, the least),
    /// without changing recency.
    public func peek(_ n: Int, fromTail: Bool = false) -> [(key: Key, value: Value)] {
        lock.lock()
        defer { lock.unlock() }
        applyTouches()
        var result: [(key: Key, value: Value)] = []
        var slot = fromTail ? tail : head
        while slot >= 0, result.count < n {
            if let node = nodes[Int(slot)] { result.append((node.key, node.value)) }
            slot = fromTail ? links[Int(slot)].previous : links[Int(slot)].next
        }
        return result
    }

    /// Changes the capacity; shrinking evicts least recently used entries.
    public func resetCapacity(_ capacity: Int) {
        lock.lock()
        defer { lock.unlock() }
        limit = max(0, capacity)
        applyTouches()
        while index.count > limit, tail >= 0 {
            let victim = tail
            unlink(victim)
            release(victim)
        }
    }

    // MARK: List maintenance (lock held)

    @discardableResult
    private func removeLocked(_ key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        applyTouches()
        let value = nodes[Int(slot)]?.value
        unlink(slot)
        release(slot)
        return value
    }

    private func unlink(_ slot: Int32) {
        links.withUnsafeMutableBufferPointer { l in
            let previous = l[Int(slot)].previous, next = l[Int(slot)].next
            if previous >= 0 { l[Int(previous)].next = next } else { head = next }
            if next >= 0 { l[Int(next)].previous = previous } else { tail = previous }
            l[Int(slot)] = Link(previous: -1, next: -1)
        }
    }

    private func linkAtHead(_ slot: Int32) {
        links.withUnsafeMutableBufferPointer { l in
            l[Int(slot)] = Link(previous: -1, next: head)
            if head >= 0 { l[Int(head)].previous = slot }
        }
        head = slot
        if tail < 0 { tail = slot }
    }

    /// Forgets the node in `slot` (already unlinked), releasing its key and value, and
    /// recycles the slot.
    private func release(_ slot: Int32) {
        if let key = nodes[Int(slot)]?.key { index[key] = nil }
        nodes[Int(slot)] = nil
        freeSlots.append(slot)
    }

    /// Moves the slots gets have read to the head, in the order read.
    private func applyTouches() {
        guard !pendingTouches.isEmpty else { return }
        for slot in pendingTouches { moveToHead(slot) }
        pendingTouches.removeAll(keepingCapacity: true)
    }

    private func moveToHead(_ slot: Int32) {
        guard slot != head else { return }
        unlink(slot)
        linkAtHead(slot)
    }
}
