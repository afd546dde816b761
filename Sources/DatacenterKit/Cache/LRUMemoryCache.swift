import Foundation

/// A thread-safe least-recently-used memory cache: `APLRUMemoryCache`.
///
/// `get` and `set` are O(1): a dictionary finds the entry, and a doubly linked list kept in
/// one array (indices, not references, so no reference counting on the hot path) orders
/// entries from most to least recently used. The cache never holds more than `capacity`
/// entries: inserting into a full cache evicts the least recently used one first.
public final class LRUMemoryCache<Key: Hashable & Sendable, Value>: @unchecked Sendable {
    private struct Node {
        var key: Key
        var value: Value
        var expiresAt: Date?
        var previous: Int
        var next: Int
    }

    private let lock = NSLock()
    private var index: [Key: Int] = [:]
    private var nodes: [Node] = []
    private var freeSlots: [Int] = []
    private var head = -1   // most recently used
    private var tail = -1   // least recently used
    private var limit: Int

    /// Creates a cache holding at most `capacity` entries (0 holds nothing).
    public init(capacity: Int) {
        limit = max(0, capacity)
        index.reserveCapacity(min(limit, 4096))
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
        if let expiry = nodes[slot].expiresAt, expiry <= Date() {
            unlink(slot)
            release(slot)
            return nil
        }
        moveToHead(slot)
        return nodes[slot].value
    }

    /// Stores `value` for `key` as the most recently used entry, evicting the least recently
    /// used entry when full. A nil value removes the key. `expiresAt` makes `get` treat the
    /// entry as absent from that time on.
    public func set(_ value: Value?, for key: Key, expiresAt: Date? = nil) {
        lock.lock()
        defer { lock.unlock() }
        guard let value else { removeLocked(key); return }
        guard limit > 0 else { return }
        if let slot = index[key] {
            nodes[slot].value = value
            nodes[slot].expiresAt = expiresAt
            moveToHead(slot)
            return
        }
        if index.count >= limit, tail >= 0 {
            let victim = tail
            unlink(victim)
            release(victim)
        }
        let node = Node(key: key, value: value, expiresAt: expiresAt, previous: -1, next: head)
        let slot: Int
        if let free = freeSlots.popLast() { nodes[free] = node; slot = free } else { nodes.append(node); slot = nodes.count - 1 }
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
        index[key] = slot
    }

    /// Replaces the value of `key` only when the cache already holds it, without changing
    /// its recency: a write-through that never grows the cache or evicts.
    public func updateIfPresent(_ value: Value, for key: Key) {
        lock.lock()
        defer { lock.unlock() }
        guard let slot = index[key] else { return }
        nodes[slot].value = value
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
        index.removeAll(keepingCapacity: true)
        nodes.removeAll(keepingCapacity: true)
        freeSlots.removeAll()
        head = -1
        tail = -1
    }

    /// True when `key` is present and not expired; does not change recency.
    public func contains(_ key: Key) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let slot = index[key] else { return false }
        if let expiry = nodes[slot].expiresAt, expiry <= Date() { return false }
        return true
    }

    /// Up to `n` entries from the most recently used end (or, with `fromTail`, the least),
    /// without changing recency.
    public func peek(_ n: Int, fromTail: Bool = false) -> [(key: Key, value: Value)] {
        lock.lock()
        defer { lock.unlock() }
        var result: [(key: Key, value: Value)] = []
        var slot = fromTail ? tail : head
        while slot >= 0, result.count < n {
            result.append((nodes[slot].key, nodes[slot].value))
            slot = fromTail ? nodes[slot].previous : nodes[slot].next
        }
        return result
    }

    /// Changes the capacity; shrinking evicts least recently used entries.
    public func resetCapacity(_ capacity: Int) {
        lock.lock()
        defer { lock.unlock() }
        limit = max(0, capacity)
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
        let value = nodes[slot].value
        unlink(slot)
        release(slot)
        return value
    }

    private func unlink(_ slot: Int) {
        let previous = nodes[slot].previous, next = nodes[slot].next
        if previous >= 0 { nodes[previous].next = next } else { head = next }
        if next >= 0 { nodes[next].previous = previous } else { tail = previous }
        nodes[slot].previous = -1
        nodes[slot].next = -1
    }

    /// Forgets the node in `slot` (already unlinked) and recycles the slot.
    private func release(_ slot: Int) {
        index[nodes[slot].key] = nil
        freeSlots.append(slot)
    }

    private func moveToHead(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        nodes[slot].next = head
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }
}
