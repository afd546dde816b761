import Foundation

/// The entries of an `LRUMemoryCache`: an open-addressing hash table finding them, and a
/// recency list ordering them, most recently used first.
///
/// Everything lives in memory the table allocates itself, addressed by slot number, not in
/// Swift arrays: reading an entry never touches a reference count, so gets running on
/// several cores at once read shared memory without writing any of it. The table keeps each
/// entry's hash beside its slot, so a lookup compares keys only when the hashes match.
///
/// A value type holding pointers: copies share the memory, and `deallocate()` frees it once.
/// Reads may run on several threads at once; anything `mutating` needs the table to itself.
struct LRUTable<Key: Hashable, Value> {
    private struct Bucket {
        /// The entry's hash; meaningless when `slot` is -1.
        var hash: Int
        /// The entry's slot, or -1 when the bucket is empty.
        var slot: Int32
    }

    /// A slot's neighbours in recency order (-1: none), and whether it holds an entry.
    private struct Link {
        var previous: Int32
        var next: Int32
        var isLive: Bool
    }

    private var buckets: UnsafeMutablePointer<Bucket>
    private var bucketMask: Int
    private var keys: UnsafeMutablePointer<Key>
    private var values: UnsafeMutablePointer<Value>
    private var hashes: UnsafeMutablePointer<Int>
    /// Seconds since the reference date after which the entry is gone; 0: never.
    private var expiries: UnsafeMutablePointer<Double>
    private var links: UnsafeMutablePointer<Link>
    /// Slots allocated, and slots ever used (the ones below are live or free).
    private var slotCapacity = 0
    private var slotsUsed = 0
    /// The first free slot below `slotsUsed` (-1: none); free slots are chained by `next`.
    /// (No Swift array here: the table stays plain data, so reading it retains nothing.)
    private var freeHead: Int32 = -1
    /// How many entries the table holds.
    private(set) var count = 0
    /// The most recently used slot (-1: empty).
    private(set) var head: Int32 = -1
    /// The least recently used slot (-1: empty).
    private(set) var tail: Int32 = -1

    init() {
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
    mutating func deallocate() {
        removeAll()
        buckets.deallocate()
        keys.deallocate()
        values.deallocate()
        hashes.deallocate()
        expiries.deallocate()
        links.deallocate()
    }

    // MARK: Reading (safe on several threads at once)

    /// The slot holding `key` (whose hash is `hash`), or -1.
    func slot(of key: Key, hash: Int) -> Int32 {
        let bucket = self.bucket(of: key, hash: hash)
        return bucket < 0 ? -1 : buckets[bucket].slot
    }

    func key(at slot: Int32) -> Key { keys[Int(slot)] }
    func value(at slot: Int32) -> Value { values[Int(slot)] }

    /// The next slot toward the least recently used end (-1: none).
    func older(than slot: Int32) -> Int32 { links[Int(slot)].next }
    /// The next slot toward the most recently used end (-1: none).
    func newer(than slot: Int32) -> Int32 { links[Int(slot)].previous }

    func isExpired(_ slot: Int32) -> Bool {
        let expiry = expiries[Int(slot)]
        return expiry != 0 && expiry <= Date.timeIntervalSinceReferenceDate
    }

    // MARK: Changing

    /// Puts `value` in `slot`; returns the value it held, for the caller to release once it
    /// no longer holds the cache (a value's `deinit` is the caller's code).
    mutating func replace(_ slot: Int32, with value: Value) -> Value {
        let old = (values + Int(slot)).move()
        (values + Int(slot)).initialize(to: value)
        return old
    }

    /// `replace(_:with:)`, with a new expiry.
    mutating func replace(_ slot: Int32, with value: Value, expiry: Double) -> Value {
        expiries[Int(slot)] = expiry
        return replace(slot, with: value)
    }

    /// Makes `slot` the most recently used entry.
    mutating func moveToHead(_ slot: Int32) {
        guard slot != head else { return }
        unlink(slot)
        linkAtHead(slot)
    }

    /// Adds an entry (its key absent) as the most recently used one.
    mutating func insert(_ key: Key, _ value: Value, expiry: Double, hash: Int) {
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
    mutating func remove(_ slot: Int32) -> Value {
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
    var allKeys: [Key] {
        var out: [Key] = []
        out.reserveCapacity(count)
        for slot in 0..<slotsUsed where links[slot].isLive { out.append(keys[slot]) }
        return out
    }

    /// Empties the table; returns the values it held, for the caller to release once it no
    /// longer holds the cache.
    @discardableResult
    mutating func removeAll() -> [Value] {
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

    private func bucket(of key: Key, hash: Int) -> Int {
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
    private mutating func deleteBucket(_ bucket: Int) {
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

    private mutating func growBuckets() {
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

    private mutating func growSlots() {
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
    private static func grow<T>(_ old: UnsafeMutablePointer<T>, from count: Int, to capacity: Int) -> UnsafeMutablePointer<T> {
        let new = UnsafeMutablePointer<T>.allocate(capacity: capacity)
        new.moveInitialize(from: old, count: count)
        old.deallocate()
        return new
    }

    // MARK: Recency list

    private mutating func unlink(_ slot: Int32) {
        let previous = links[Int(slot)].previous, next = links[Int(slot)].next
        if previous >= 0 { links[Int(previous)].next = next } else { head = next }
        if next >= 0 { links[Int(next)].previous = previous } else { tail = previous }
        links[Int(slot)].previous = -1
        links[Int(slot)].next = -1
    }

    private mutating func linkAtHead(_ slot: Int32) {
        links[Int(slot)].previous = -1
        links[Int(slot)].next = head
        if head >= 0 { links[Int(head)].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }
}
