import Foundation

/// A thread-safe least-recently-used memory cache: `APLRUMemoryCache`.
///
/// `get` and `set` are O(1): a hash table finds the entry, and a doubly linked list orders
/// entries from most to least recently used (`LRUTable`). The cache never holds more than
/// `capacity` entries: inserting into a full cache evicts the least recently used one first.
///
/// Every call runs under one lock (`LockedState`), so the order is exactly that of the calls
/// as the lock saw them: a get moves its entry to the head before it returns. Values the cache lets go
/// (replaced, evicted, expired, removed) are released after the lock is given up, since a
/// value's `deinit` is the caller's code and may use the cache.
///
/// The calls a hit or a write makes are `@inlinable` (with `LRUTable`), so a client's cache is
/// specialized for its key and value types instead of running generic code per call.
///
/// `Sendable` whatever `Value` is, as a shared cache of class instances must be: the cache's
/// own state is only reached under its lock, and a value it hands out is the caller's.
public final class LRUMemoryCache<Key: Hashable & Sendable, Value>: Sendable {
    /// What the lock guards.
    @usableFromInline struct State {
        @usableFromInline var table = LRUTable<Key, Value>()
        @usableFromInline var capacity: Int
        @usableFromInline var pressureWatcher: MemoryPressureWatcher?
    }

    @usableFromInline let state: LockedState<State>

    /// Creates a cache holding at most `capacity` entries (0 holds nothing).
    public init(capacity: Int) {
        state = LockedState(State(capacity: Self.clamped(capacity)))
    }

    deinit { state.withLock { $0.table.deallocate() } }

    /// Runs `body` with the state to itself.
    @inlinable func locked<T>(_ body: (inout State) throws -> T) rethrows -> T {
        try state.withLock(body)
    }

    /// When true, the cache empties itself whenever `MemoryPressure.post()` is called
    /// (the original's `handleMemoryWarning`). Default false.
    public var handlesMemoryPressure: Bool {
        get { locked { $0.pressureWatcher != nil } }
        set {
            // A watcher let go is released after the lock, like a value.
            let dropped: MemoryPressureWatcher? = locked { state in
                if newValue {
                    if state.pressureWatcher == nil { state.pressureWatcher = MemoryPressureWatcher(clearing: self) }
                    return nil
                }
                defer { state.pressureWatcher = nil }
                return state.pressureWatcher
            }
            withExtendedLifetime(dropped) {}
        }
    }

    /// The most entries the cache holds.
    public var capacity: Int { locked { $0.capacity } }

    private static func clamped(_ capacity: Int) -> Int { min(max(0, capacity), Int(Int32.max) - 1) }

    /// How many entries the cache holds now.
    @inlinable public var count: Int { locked { $0.table.count } }

    /// The value for `key`, marking it most recently used; nil when absent or expired
    /// (an expired entry is removed).
    @inlinable public func get(_ key: Key) -> Value? {
        let hash = key.hashValue
        var expired: Value?     // released after the lock (its deinit is user code)
        defer { withExtendedLifetime(expired) {} }
        return locked { state in
            let slot = state.table.slot(of: key, hash: hash)
            guard slot >= 0 else { return nil }
            if state.table.isExpired(slot) {
                expired = state.table.remove(slot)
                return nil
            }
            state.table.moveToHead(slot)
            return state.table.value(at: slot)
        }
    }

    /// Stores `value` for `key` as the most recently used entry, evicting the least recently
    /// used entry when full. A nil value removes the key. `expiresAt` makes `get` treat the
    /// entry as absent from that time on.
    @inlinable public func set(_ value: Value?, for key: Key, expiresAt: Date? = nil) {
        guard let value else { remove(key); return }
        let hash = key.hashValue
        let expiry = expiresAt.map { max($0.timeIntervalSinceReferenceDate, .leastNonzeroMagnitude) } ?? 0
        // The value replaced or evicted is released after the lock.
        let dropped: Value? = locked { state in
            guard state.capacity > 0 else { return nil }
            let slot = state.table.slot(of: key, hash: hash)
            if slot >= 0 {
                let old = state.table.replace(slot, with: value, expiry: expiry)
                state.table.moveToHead(slot)
                return old
            }
            let evicted = state.table.count >= state.capacity && state.table.tail >= 0 ? state.table.remove(state.table.tail) : nil
            state.table.insert(key, value, expiry: expiry, hash: hash)
            return evicted
        }
        withExtendedLifetime(dropped) {}
    }

    /// Replaces the value of `key` only when the cache already holds it, without changing
    /// its recency: a write-through that never grows the cache or evicts.
    @inlinable public func updateIfPresent(_ value: Value, for key: Key) {
        let hash = key.hashValue
        let dropped: Value? = locked { state in
            let slot = state.table.slot(of: key, hash: hash)
            return slot >= 0 ? state.table.replace(slot, with: value) : nil
        }
        withExtendedLifetime(dropped) {}
    }

    /// Removes `key`; returns its value when it was present.
    @discardableResult
    @inlinable public func remove(_ key: Key) -> Value? {
        let hash = key.hashValue
        return locked { state in
            let slot = state.table.slot(of: key, hash: hash)
            return slot >= 0 ? state.table.remove(slot) : nil
        }
    }

    /// Removes every entry whose key satisfies `predicate`; returns how many.
    ///
    /// `predicate` runs without the lock (it may use the cache), on the keys present when
    /// the call started; a key set meanwhile may stay. The values removed are released
    /// after the lock.
    @discardableResult
    public func removeAll(where predicate: (Key) -> Bool) -> Int {
        let matching = locked { $0.table.allKeys }.filter(predicate)
        guard !matching.isEmpty else { return 0 }
        let dropped: [Value] = locked { state in
            matching.compactMap { key in
                let slot = state.table.slot(of: key, hash: key.hashValue)
                return slot >= 0 ? state.table.remove(slot) : nil
            }
        }
        return dropped.count
    }

    /// Empties the cache (the values are released after the lock).
    public func removeAll() {
        let dropped = locked { $0.table.removeAll() }
        withExtendedLifetime(dropped) {}
    }

    /// True when `key` is present and not expired; does not change recency.
    @inlinable public func contains(_ key: Key) -> Bool {
        let hash = key.hashValue
        return locked { state in
            let slot = state.table.slot(of: key, hash: hash)
            return slot >= 0 && !state.table.isExpired(slot)
        }
    }

    /// Up to `n` entries from the most recently used end (or, with `fromTail`, the least),
    /// without changing recency.
    public func peek(_ n: Int, fromTail: Bool = false) -> [(key: Key, value: Value)] {
        locked { state in
            var result: [(key: Key, value: Value)] = []
            var slot = fromTail ? state.table.tail : state.table.head
            while slot >= 0, result.count < n {
                result.append((state.table.key(at: slot), state.table.value(at: slot)))
                slot = fromTail ? state.table.newer(than: slot) : state.table.older(than: slot)
            }
            return result
        }
    }

    /// Changes the capacity; shrinking evicts least recently used entries.
    public func resetCapacity(_ capacity: Int) {
        let dropped: [Value] = locked { state in
            state.capacity = Self.clamped(capacity)
            var evicted: [Value] = []
            while state.table.count > state.capacity, state.table.tail >= 0 { evicted.append(state.table.remove(state.table.tail)) }
            return evicted
        }
        withExtendedLifetime(dropped) {}
    }
}
