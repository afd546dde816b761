import Foundation

/// The entries of an `LRUMemoryCache`: an open-addressing hash table finding them, and a
/// recency list ordering them, most recently used first.
///
/// Everything lives in memory the table allocates itself, addressed by slot number, not in
/// Swift arrays, so a lookup allocates nothing and retains only what it returns. The table
/// keeps each entry's hash beside its slot, so a lookup compares keys only when the hashes
/// match. `@inlinable`, like the cache's hot calls, so a cache used from another module is
/// specialized for its key and value types there rather than run generically.
///
/// A value type holding pointers: copies share the memory, and `deallocate()` frees it once.
/// Not thread-safe: its cache reaches it only with its lock held.
@usableFromInline
struct LRUTable<Key: Hashable, Value> {
    @usableFromInline struct Bucket {
        /// The entry's hash; meaningless when `slot` is -1.
        @usableFromInline var hash: Int
        /// The entry's slot, or -1 when the bucket is empty.
        @usableFromInline var slot: Int32
        @inlinable init(hash: Int, slot: Int32) { (self.hash, self.slot) = (hash, slot) }
    }

    /// A slot's neighbours in recency order (-1: none), and whether it holds an entry.
    @usableFromInline struct Link {
        @usableFromInline var previous: Int32
        @usableFromInline var next: Int32
        @usableFromInline var isLive: Bool
        @inlinable init(previous: Int32, next: Int32, isLive: Bool) { (self.previous, self.next, self.isLive) = (previous, next, isLive) }
    }

    @usableFromInline var buckets: UnsafeMutablePointer<Bucket>
    @usableFromInline var bucketMask: Int
    @usableFromInline var keys: UnsafeMutablePointer<Key>
    @usableFromInline var values: UnsafeMutablePointer<Value>
    @usableFromInline var hashes: UnsafeMutablePointer<Int>
    /// Seconds since the reference date after which the entry is gone; 0: never.
    @usableFromInline var expiries: UnsafeMutablePointer<Double>
    @usableFromInline var links: UnsafeMutablePointer<Link>
    /// Slots allocated, and slots ever used (the ones below are live or free).
    @usableFromInline var slotCapacity = 0
    @usableFromInline var slotsUsed = 0
    /// The first free slot below `slotsUsed` (-1: none); free slots are chained by `next`.
    /// (No Swift array here: the table stays plain data, so reading it retains nothing.)
    @usableFromInline var freeHead: Int32 = -1
    /// How many entries the table holds.
    @usableFromInline var count = 0
    /// The most recently used slot (-1: empty).
    @usableFromInline var head: Int32 = -1
    /// The least recently used slot (-1: empty).
    @usableFromInline var tail: Int32 = -1

    @inlinable init() {
        bucketMask = 7
        buckets = .allocate(capacity: bucketMask + 1)
        buckets.initialize(repeating: Bucket(hash: 0, slot: -1), count: bucketMask + 1)
        keys = .allocate(capacity: 0)
        values = .allocate(capacity: 0)
        hashes = .allocate(capacity: 0)
        expiries = .allocate(capacity: 0)
        links = .allocate(capacity: 0)
    }

    /// Releases every entry and the memory. The table (and every copy) is unusable after.
    @inlinable mutating func deallocate() {
        removeAll()
        buckets.deallocate()
        keys.deallocate()
        values.deallocate()
        hashes.deallocate()
        expiries.deallocate()
        links.deallocate()
    }

    // MARK: Reading

    /// The slot holding `key` (whose hash is `hash`), or -1.
    @inlinable func slot(of key: Key, hash: Int) -> Int32 {
        let bucket = self.bucket(of: key, hash: hash)
        return bucket < 0 ? -1 : buckets[bucket].slot
    }

    @inlinable func key(at slot: Int32) -> Key { keys[Int(slot)] }
    @inlinable func value(at slot: Int32) -> Value { values[Int(slot)] }

    /// The next slot toward the least recently used end (-1: none).
    @inlinable func older(than slot: Int32) -> Int32 { links[Int(slot)].next }
    /// The next slot toward the most recently used end (-1: none).
    @inlinable func newer(than slot: Int32) -> Int32 { links[Int(slot)].previous }

    @inlinable func isExpired(_ slot: Int32) -> Bool {
        let expiry = expiries[Int(slot)]
        return expiry != 0 && expiry <= Date.timeIntervalSinceReferenceDate
    }

    // MARK: Changing

    /// Puts `value` in `slot`; returns the value it held, for the caller to release once it
    /// no longer holds the cache (a value's `deinit` is the caller's code).
    @inlinable mutating func replace(_ slot: Int32, with value: Value) -> Value {
        let old = (values + Int(slot)).move()
        (values + Int(slot)).initialize(to: value)
        return old
    }

    /// `replace(_:with:)`, with a new expiry.
    @inlinable mutating func replace(_ slot: Int32, with value: Value, expiry: Double) -> Value {
        expiries[Int(slot)] = expiry
        return replace(slot, with: value)
    }

    /// Makes `slot` the most recently used entry.
    @inlinable mutating func moveToHead(_ slot: Int32) {
        guard slot != head else { return }
        unlink(slot)
        linkAtHead(slot)
    }

    /// Adds an entry (its key absent) as the most recently used one.
    @inlinable mutating func insert(_ key: Key, _ value: Value, expiry: Double, hash: Int) {
        let slot: Int32
        if freeHead >= 0 {
            slot = freeHead
            freeHead = links[Int(slot)].next
        } else {
            if slotsUsed == slotCapacity { growSlots() }
            slot = Int32(slotsUsed)
            slotsUsed += 1
        }
        (keys + Int(slot)).initialize(to: key)
        (values + Int(slot)).initialize(to: value)
        hashes[Int(slot)] = hash
        expiries[Int(slot)] = expiry
        links[Int(slot)] = Link(previous: -1, next: -1, isLive: true)
        linkAtHead(slot)
        if (count + 1) * 2 > bucketMask + 1 { growBuckets() }
        var index = hash & bucketMask
        while buckets[index].slot >= 0 { index = (index + 1) & bucketMask }
        buckets[index] = Bucket(hash: hash, slot: slot)
        count += 1
    }

    /// Removes the entry in `slot`; returns its value.
    @discardableResult
    @inlinable mutating func remove(_ slot: Int32) -> Value {
        deleteBucket(bucket(of: keys[Int(slot)], hash: hashes[Int(slot)]))
        unlink(slot)
        links[Int(slot)].isLive = false
        (keys + Int(slot)).deinitialize(count: 1)
        let value = (values + Int(slot)).move()
        links[Int(slot)].next = freeHead
        freeHead = slot
        count -= 1
        return value
    }

    /// Every key held, in slot order.
    @inlinable var allKeys: [Key] {
        var out: [Key] = []
        out.reserveCapacity(count)
        for slot in 0..<slotsUsed where links[slot].isLive { out.append(keys[slot]) }
        return out
    }

    /// Empties the table; returns the values it held, for the caller to release once it no
    /// longer holds the cache.
    @discardableResult
    @inlinable mutating func removeAll() -> [Value] {
        var dropped: [Value] = []
        dropped.reserveCapacity(count)
        for slot in 0..<slotsUsed where links[slot].isLive {
            (keys + slot).deinitialize(count: 1)
            dropped.append((values + slot).move())
        }
        buckets.update(repeating: Bucket(hash: 0, slot: -1), count: bucketMask + 1)
        slotsUsed = 0
        freeHead = -1
        count = 0
        head = -1
        tail = -1
        return dropped
    }

    // MARK: Hash table (linear probing, deletion by backward shift: no tombstones)

    @inlinable func bucket(of key: Key, hash: Int) -> Int {
        var index = hash & bucketMask
        while true {
            let bucket = buckets[index]
            if bucket.slot < 0 { return -1 }
            if bucket.hash == hash, keys[Int(bucket.slot)] == key { return index }
            index = (index + 1) & bucketMask
        }
    }

    /// Empties `bucket`, moving later entries of its probe run back so every entry stays
    /// reachable from its home bucket.
    @inlinable mutating func deleteBucket(_ bucket: Int) {
        var hole = bucket
        var index = bucket
        while true {
            index = (index + 1) & bucketMask
            let next = buckets[index]
            if next.slot < 0 { break }
            let home = next.hash & bucketMask
            // The entry may move into the hole unless its home lies cyclically in (hole, index].
            let staysPut = hole <= index ? (hole < home && home <= index) : (hole < home || home <= index)
            if staysPut { continue }
            buckets[hole] = next
            hole = index
        }
        buckets[hole] = Bucket(hash: 0, slot: -1)
    }

    @inlinable mutating func growBuckets() {
        let old = buckets
        let oldCount = bucketMask + 1
        bucketMask = oldCount * 2 - 1
        buckets = .allocate(capacity: bucketMask + 1)
        buckets.initialize(repeating: Bucket(hash: 0, slot: -1), count: bucketMask + 1)
        for i in 0..<oldCount where old[i].slot >= 0 {
            var index = old[i].hash & bucketMask
            while buckets[index].slot >= 0 { index = (index + 1) & bucketMask }
            buckets[index] = old[i]
        }
        old.deallocate()
    }

    @inlinable mutating func growSlots() {
        let capacity = max(8, slotCapacity * 2)
        let newKeys = UnsafeMutablePointer<Key>.allocate(capacity: capacity)
        let newValues = UnsafeMutablePointer<Value>.allocate(capacity: capacity)
        for slot in 0..<slotsUsed where links[slot].isLive {
            (newKeys + slot).moveInitialize(from: keys + slot, count: 1)
            (newValues + slot).moveInitialize(from: values + slot, count: 1)
        }
        keys.deallocate()
        values.deallocate()
        keys = newKeys
        values = newValues
        hashes = Self.grow(hashes, from: slotsUsed, to: capacity)
        expiries = Self.grow(expiries, from: slotsUsed, to: capacity)
        links = Self.grow(links, from: slotsUsed, to: capacity)
        slotCapacity = capacity
    }

    /// A copy of the first `count` plain values of `old` in new memory of `capacity`.
    @inlinable static func grow<T>(_ old: UnsafeMutablePointer<T>, from count: Int, to capacity: Int) -> UnsafeMutablePointer<T> {
        let new = UnsafeMutablePointer<T>.allocate(capacity: capacity)
        new.moveInitialize(from: old, count: count)
        old.deallocate()
        return new
    }

    // MARK: Recency list

    @inlinable mutating func unlink(_ slot: Int32) {
        let previous = links[Int(slot)].previous, next = links[Int(slot)].next
        if previous >= 0 { links[Int(previous)].next = next } else { head = next }
        if next >= 0 { links[Int(next)].previous = previous } else { tail = previous }
        links[Int(slot)].previous = -1
        links[Int(slot)].next = -1
    }

    @inlinable mutating func linkAtHead(_ slot: Int32) {
        links[Int(slot)].previous = -1
        links[Int(slot)].next = head
        if head >= 0 { links[Int(head)].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }
}
