import Foundation

/// The write-behind of one `LRUDiskCache`: writes acknowledged at once, held in memory and
/// committed in the background, in queue order, in transactions of their own.
///
/// Its promises, failures included:
/// - **Reads never wait for a flush.** A write stays visible here from the moment it is
///   queued until its transaction has committed, so `lookup` answers a key with a pending
///   write from memory, and a key without one may be read from the table: the table then
///   holds everything this process wrote to it.
/// - **A flush writes only in its own transaction.** It commits on the store's connection
///   only when no transaction is open there (one begun by a DAO object's
///   `beginTransaction`, say, is left alone: the writes wait for it to end), and never from
///   a thread that holds that connection, so a caller's rollback can never take the
///   cache's writes with it.
/// - **The queue is bounded.** At most `maximumPendingWrites` writes and
///   `maximumPendingBytes` of keys and values are held; a writer that would pass either
///   waits until a commit makes room. A thread that holds the connection of a store with
///   pending writes is never made to wait (the commit it would wait for needs that
///   connection), nor is anyone while a transaction begun outside the cache keeps commits
///   off the connection (its thread may be the writer): writes go over the bound until the
///   connection is free.
/// - **Failures are reported.** When a commit fails its writes are dropped, and the next
///   `flush()` throws `CacheError.writeFailed` saying how many were lost and why.
///
/// Recency stamps and `touch`es from reads are kept here too; reads never wait for room:
/// a touch or an expired entry's removal that finds the queue full is dropped (the entry
/// is touched or removed again by a later read).
///
/// `@unchecked Sendable`: every `var` below `condition` is read and written only with
/// `condition` locked (the methods that assume it say "the lock must be held"); the rest
/// is immutable or `Sendable`.
final class LRUDiskWriteQueue: @unchecked Sendable {
    /// A queued change to the table.
    enum Operation: Sendable {
        case set(key: String, Entry)
        case remove(String)
        /// Removes the key only if it is still expired when committed: a read that found it
        /// expired must not remove a value written since.
        case removeIfExpired(String)
        case removeAll
        case removeLike(String)
    }

    /// A value as it will be stored.
    struct Entry: Sendable {
        /// The bytes of the `value` column (encrypted for an encrypted cache).
        var stored: Data
        /// `archive` or `data`.
        var encoding: String
        /// Unix time from which the entry is expired, or nil.
        var expires: Double?
    }

    /// What the queue knows of a key.
    enum Pending {
        /// No pending write touches the key: the table has its latest value.
        case none
        /// The key's latest write sets this entry.
        case set(Entry)
        /// The key's latest write removes it.
        case removed
    }

    /// The answer to `lookup`: `state`, unless the key matches one of `removedIfLike`,
    /// `LIKE` patterns of pending `removeValues(like:)` that come after it (SQLite decides
    /// the match, so it is the one the `DELETE` will make).
    struct Lookup {
        var state: Pending
        var removedIfLike: [String]
        /// False when the store's table may not exist yet: call `prepare` before reading it.
        var isPrepared: Bool
    }

    /// The most writes held at once (queued or being committed).
    static let maximumPendingWrites = 4096
    /// The most bytes of keys and values held at once. A single larger write is let in when
    /// nothing else is pending.
    static let maximumPendingBytes = 8 << 20
    /// How many queued writes for one store start a commit without waiting for
    /// `coalescingDelay`.
    static let eagerFlushSize = 512
    /// The most recency touches held per store; more are dropped until the next commit.
    static let maximumPendingTouches = 4096
    /// How long queued writes wait for more before they are committed together.
    static let coalescingDelay: DispatchTimeInterval = .milliseconds(20)

    private let cacheName: String
    private let sql: LRUDiskCacheSQL
    private let capacity: Int
    private let isEncrypted: Bool
    private let isUserDependent: Bool
    private let flusher = DispatchQueue(label: "datacenter.lru-disk-cache")
    /// Guards everything below; writers waiting for room wait on it. An `NSCondition`, not a
    /// `Mutex`: a writer over the bound must sleep until a commit makes room, which needs a
    /// wait and a wake-up, and `Mutex` has neither.
    private let condition = NSCondition()
    /// Pending writes per store, in the order the stores were first written to.
    private var stores: [StoreWrites] = []
    private var pendingWrites = 0
    private var pendingBytes = 0
    private var flushScheduled = false
    /// True while the last commit was put off because a transaction begun outside the cache
    /// is open on the connection: writers do not wait for room then, since the thread that
    /// began it may be the one writing.
    private var blockedByOpenTransaction = false
    private var lastTick: Int64 = 0
    private var backgroundError: CacheError?
    /// The stores whose table exists (a few: one per user, at most), compared by identity
    /// and held weakly, so a store reopened at the same path (after `DataCenter.reset()`) is
    /// prepared again.
    private var preparedStores: [WeakStore] = []
    /// Inserts per store path since its size was last checked: the check (a count) runs
    /// once per slack's worth of inserts, not per commit.
    private var insertsSinceSizeCheck: [String: Int] = [:]
    /// The writes of the largest layer of the last commit: the next open layer reserves
    /// room for as many, so a burst like the last one does not grow its lists step by step.
    private var lastLayerSize = 0
    /// The emptied lists of the last committed layer, reused by the next one.
    private var spareLayer: Layer?

    init(cacheName: String, sql: LRUDiskCacheSQL, capacity: Int, encrypted: Bool, userDependent: Bool) {
        self.cacheName = cacheName
        self.sql = sql
        self.capacity = capacity
        self.isEncrypted = encrypted
        self.isUserDependent = userDependent
    }

    private struct WeakStore { weak var store: Store? }

    /// Writes in queue order with an index to answer reads. A store's writes are an open
    /// layer that takes new writes and, ahead of it, closed layers a flush is committing.
    struct Layer {
        var operations: [Operation] = []
        /// Key → index in `operations` of the key's last set or remove.
        var latest: [String: Int] = [:]
        /// Indexes in `operations` of `removeAll` and `removeLike`.
        var bulk: [Int] = []
        /// Reads' recency stamps to record.
        var touches: [String: Int64] = [:]
        var bytes = 0
        var inserts = 0

        init(reserving room: Int = 0) {
            operations.reserveCapacity(room)
            latest.reserveCapacity(room)
        }

        var isEmpty: Bool { operations.isEmpty && touches.isEmpty }

        /// The layer with its lists emptied, keeping their memory.
        mutating func emptied() -> Layer {
            operations.removeAll(keepingCapacity: true)
            latest.removeAll(keepingCapacity: true)
            bulk.removeAll()
            touches.removeAll()
            bytes = 0
            inserts = 0
            return self
        }

        /// What this layer says of `key`: nil when it says nothing, adding the patterns of
        /// `removeLike`s after the key's last write to `patterns`.
        func lookup(_ key: String, patterns: inout [String]) -> Pending? {
            let last = latest[key] ?? -1
            for index in bulk.reversed() where index > last {
                switch operations[index] {
                case .removeAll: return .removed
                case .removeLike(let pattern): patterns.append(pattern)
                case .set, .remove, .removeIfExpired: break
                }
            }
            guard last >= 0 else { return nil }
            if case .set(_, let entry) = operations[last] { return .set(entry) }
            return .removed
        }
    }

    private struct StoreWrites {
        let store: Store
        var closed: [Layer] = []
        var open: Layer
        var hasPendingWrites: Bool { !closed.isEmpty || !open.operations.isEmpty }
    }

    // MARK: Queueing

    /// Queues `operation` for `store`. Returns at once unless the queue is full, then waits
    /// for room (see the type's doc for when it does not).
    func enqueue(_ operation: Operation, store: Store) {
        let bytes = Self.byteCount(of: operation)
        condition.lock()
        var askedForCommit = false
        while isFull(adding: bytes) && !blockedByOpenTransaction && !currentThreadHoldsAPendingStore() {
            if !askedForCommit {
                askedForCommit = true
                flusher.async { [self] in flushPending() }
            }
            condition.wait()
        }
        let (scheduleDelayed, flushNow) = append(operation, bytes: bytes, store: store)
        condition.unlock()
        // A short delay lets a burst of writes share one transaction; a long burst starts
        // committing as soon as it is this large, while the rest of it is still being queued.
        if flushNow { flusher.async { [self] in flushPending() } }
        if scheduleDelayed { flusher.asyncAfter(deadline: .now() + Self.coalescingDelay) { [self] in flushPending() } }
    }

    /// Queues the removal of `key`, found expired by a read, unless the queue is full: reads
    /// never wait, and an expired entry is never served anyway. The removal spares a value
    /// written meanwhile (it removes the key only if still expired when committed).
    func enqueueExpiredRemoval(of key: String, store: Store) {
        let operation = Operation.removeIfExpired(key)
        condition.lock()
        guard !isFull(adding: Self.byteCount(of: operation)) else { return condition.unlock() }
        let (scheduleDelayed, flushNow) = append(operation, bytes: Self.byteCount(of: operation), store: store)
        condition.unlock()
        if flushNow { flusher.async { [self] in flushPending() } }
        if scheduleDelayed { flusher.asyncAfter(deadline: .now() + Self.coalescingDelay) { [self] in flushPending() } }
    }

    /// Records that `key` was read now, to refresh its recency with a later commit. A full
    /// list of touches drops it; many touches start a commit of their own.
    func touch(_ key: String, store: Store) {
        condition.lock()
        let tick = nextTick()
        let i = storeIndex(for: store, expectingWrites: false)
        var startCommit = false
        if stores[i].open.touches[key] != nil || stores[i].open.touches.count < Self.maximumPendingTouches {
            stores[i].open.touches[key] = tick
            startCommit = stores[i].open.touches.count == 1024 && !flushScheduled
            if startCommit { flushScheduled = true }
        }
        condition.unlock()
        if startCommit { flusher.async { [self] in flushPending() } }
    }

    /// Appends to `store`'s open layer; returns whether to schedule the delayed commit and
    /// whether to commit now. The lock must be held.
    private func append(_ operation: Operation, bytes: Int, store: Store) -> (Bool, Bool) {
        let i = storeIndex(for: store, expectingWrites: true)
        let index = stores[i].open.operations.count
        stores[i].open.operations.append(operation)
        switch operation {
        case .set(let key, _):
            stores[i].open.latest[key] = index
            stores[i].open.inserts += 1
        case .remove(let key): stores[i].open.latest[key] = index
        case .removeAll, .removeLike: stores[i].open.bulk.append(index)
        case .removeIfExpired: break   // changes nothing a read can see
        }
        stores[i].open.bytes += bytes
        pendingWrites += 1
        pendingBytes += bytes
        defer { flushScheduled = true }
        return (!flushScheduled, index + 1 == Self.eagerFlushSize)
    }

    /// True when a write of `bytes` must wait. Something must be pending, so a write larger
    /// than the byte budget still gets in alone. The lock must be held.
    private func isFull(adding bytes: Int) -> Bool {
        pendingWrites > 0 && (pendingWrites >= Self.maximumPendingWrites || pendingBytes + bytes > Self.maximumPendingBytes)
    }

    /// True when the calling thread holds the connection of a store with pending writes: a
    /// commit of those writes needs it, so waiting for one would wait for ever. The lock
    /// must be held (asking a connection never blocks).
    private func currentThreadHoldsAPendingStore() -> Bool {
        stores.contains { $0.hasPendingWrites && $0.store.queue.isHeldByCurrentThread }
    }

    private static func byteCount(of operation: Operation) -> Int {
        switch operation {
        case let .set(key, entry): return key.utf8.count + entry.stored.count
        case .remove(let key), .removeIfExpired(let key), .removeLike(let key): return key.utf8.count
        case .removeAll: return 0
        }
    }

    /// The index in `stores` of `store`'s writes, added when missing (its open layer sized
    /// like the last commit's when it is for writes, not for touches). The lock must be held.
    private func storeIndex(for store: Store, expectingWrites: Bool) -> Int {
        if let i = stores.firstIndex(where: { $0.store === store }) { return i }
        stores.append(StoreWrites(store: store, open: expectingWrites ? freshLayer() : Layer()))
        return stores.count - 1
    }

    /// An empty layer for writes, in the spare lists when there are some, with room for as
    /// many writes as the largest layer of the last commit. The lock must be held.
    private func freshLayer() -> Layer {
        var layer = spareLayer ?? Layer()
        spareLayer = nil
        let room = min(lastLayerSize, Self.maximumPendingWrites)
        layer.operations.reserveCapacity(room)
        layer.latest.reserveCapacity(room)
        return layer
    }

    /// A recency stamp (microseconds since 1970, strictly increasing); `reserving` more
    /// stamps after it for the caller to use. The lock must be held.
    private func nextTick(reserving count: Int = 0) -> Int64 {
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let tick = max(lastTick + 1, now)
        lastTick = tick + Int64(count)
        return tick
    }

    // MARK: Reading

    /// What the pending writes say of `key` in `store`, newest first; never waits for a
    /// commit.
    func lookup(_ key: String, in store: Store) -> Lookup {
        condition.lock()
        defer { condition.unlock() }
        let prepared = isPreparedLocked(store)
        var patterns: [String] = []
        guard let writes = stores.first(where: { $0.store === store }) else {
            return Lookup(state: .none, removedIfLike: [], isPrepared: prepared)
        }
        if let found = writes.open.lookup(key, patterns: &patterns) {
            return Lookup(state: found, removedIfLike: patterns, isPrepared: prepared)
        }
        for layer in writes.closed.reversed() {
            if let found = layer.lookup(key, patterns: &patterns) {
                return Lookup(state: found, removedIfLike: patterns, isPrepared: prepared)
            }
        }
        return Lookup(state: .none, removedIfLike: patterns, isPrepared: prepared)
    }

    /// How many writes are held now (queued or being committed).
    var pendingWriteCount: Int { condition.withLock { pendingWrites } }

    // MARK: The table

    /// Makes sure `store` has the table, creating it when this queue has not yet. Inside a
    /// transaction of someone else's the table is created in it (a read needs it now) but
    /// not recorded, so a rollback cannot leave the store marked prepared without a table.
    func prepare(_ store: Store) throws {
        if isPrepared(store) { return }
        try store.queue.write { db in
            let ownTransaction = !db.isInTransaction
            try db.inTransaction { try createTable(in: db) }
            if ownTransaction { markPrepared(store) }
        }
    }

    private func isPrepared(_ store: Store) -> Bool {
        condition.withLock { isPreparedLocked(store) }
    }

    /// The lock must be held.
    private func isPreparedLocked(_ store: Store) -> Bool {
        preparedStores.contains { $0.store === store }
    }

    private func markPrepared(_ store: Store) {
        condition.withLock {
            preparedStores.removeAll { $0.store == nil || $0.store?.path == store.path }
            preparedStores.append(WeakStore(store: store))
        }
    }

    /// Forgets that `store` has the table, so the next commit creates it again.
    private func forgetPrepared(_ store: Store) {
        preparedStores.removeAll { $0.store == nil || $0.store === store }
    }

    private func createTable(in db: Database) throws {
        try sql.createTable(in: db, cacheName: cacheName, capacity: capacity, encrypted: isEncrypted,
                            userDependent: isUserDependent)
    }

    // MARK: Committing

    /// Waits until every write queued before the call is committed.
    /// - throws: `CacheError.writeFailed` when a commit failed since the last flush (once);
    ///   `CacheError.connectionBusy` when writes must stay queued: the calling thread holds a
    ///   store's connection, or a transaction someone else began is open on it.
    func flush() throws {
        let pending = condition.withLock { stores.filter(\.hasPendingWrites).map(\.store) }
        if let held = pending.first(where: \.queue.isHeldByCurrentThread) {
            throw CacheError.connectionBusy(cache: cacheName, reason: "this thread holds the connection of \(held.path) "
                + "(inside a transaction, batch, read or write), so the cache cannot commit there now; its writes stay queued")
        }
        let deferred = StoreLockRule.wait(on: flusher, needing: pending.map(\.queue)) { flushPending() }
        let error = condition.withLock { () -> CacheError? in
            defer { backgroundError = nil }
            return backgroundError
        }
        if let error { throw error }
        if let deferred { throw deferred }
    }

    /// Why a commit was put off.
    private enum Deferral: Error {
        case heldByThisThread
        case transactionOpen
    }

    /// Commits everything queued, one transaction per store, in queue order. Runs on
    /// `flusher`. Returns why some writes stay queued, or nil when all were committed.
    @discardableResult
    private func flushPending() -> CacheError? {
        let targets: [Store] = condition.withLock {
            flushScheduled = false
            var targets: [Store] = []
            var largest = 0
            for i in stores.indices {
                if !stores[i].open.isEmpty {
                    largest = max(largest, stores[i].open.operations.count)
                    stores[i].closed.append(stores[i].open)
                    stores[i].open = freshLayer()
                }
                if !stores[i].closed.isEmpty { targets.append(stores[i].store) }
            }
            if largest > 0 { lastLayerSize = largest }
            return targets
        }
        var deferred: CacheError?
        var blocked = false
        for store in targets {
            do throws(Deferral) {
                try commit(store)
            } catch {
                switch error {
                case .heldByThisThread:
                    deferred = .connectionBusy(cache: cacheName, reason: "this thread holds the connection of "
                        + "\(store.path); the writes stay queued")
                case .transactionOpen:
                    blocked = true
                    deferred = .connectionBusy(cache: cacheName, reason: "a transaction begun outside the cache is open "
                        + "on \(store.path); the writes stay queued until it ends")
                }
            }
        }
        condition.lock()
        if blocked != blockedByOpenTransaction {
            blockedByOpenTransaction = blocked
            if blocked { condition.broadcast() }
        }
        stores.removeAll { !$0.hasPendingWrites && $0.open.isEmpty }
        // Writes put off (or queued meanwhile, if no commit is coming) are tried again soon.
        let retry = !flushScheduled && stores.contains { $0.hasPendingWrites }
        if retry { flushScheduled = true }
        condition.unlock()
        if retry { flusher.asyncAfter(deadline: .now() + Self.coalescingDelay) { [self] in flushPending() } }
        return deferred
    }

    /// Commits the closed layers of `store` in one transaction of its own, then forgets
    /// them (committed or failed) and wakes waiting writers.
    /// - throws: a `Deferral` when the commit must wait, leaving the layers queued.
    private func commit(_ store: Store) throws(Deferral) {
        // Taking the connection while holding it would nest in the caller's transaction.
        if store.queue.isHeldByCurrentThread { throw Deferral.heldByThisThread }
        var layers: [Layer] = []
        do {
            try store.queue.write { db in
                guard !db.isInTransaction else { throw Deferral.transactionOpen }
                let (taken, firstTick, checkSize) = takeClosedLayers(of: store)
                layers = taken
                var touches: [String: Int64] = [:]
                for layer in layers { touches.merge(layer.touches) { _, later in later } }
                let prepared = isPrepared(store)
                try db.inTransaction {
                    if !prepared { try createTable(in: db) }
                    try sql.apply(layers.map(\.operations), touches: touches, firstTick: firstTick,
                                  evictingDownTo: checkSize ? capacity : nil, in: db)
                }
                if !prepared { markPrepared(store) }
            }
        } catch let deferral as Deferral {
            throw deferral
        } catch {
            let lost = layers.reduce(0) { $0 + $1.operations.count }
            condition.withLock {
                forgetPrepared(store)   // created again by the next commit, if it went missing
                if backgroundError == nil {
                    backgroundError = .writeFailed(cache: cacheName, reason: "\(lost) write\(lost == 1 ? "" : "s") to "
                        + "\(store.path) could not be committed and were dropped: \(error)")
                }
            }
        }
        release(&layers, of: store)
    }

    /// The closed layers of `store` (left in place, so reads still see them), the first of
    /// the stamps reserved for their sets, and whether this commit checks the cache's size.
    private func takeClosedLayers(of store: Store) -> ([Layer], Int64, Bool) {
        condition.withLock {
            guard let i = stores.firstIndex(where: { $0.store === store }) else { return ([], 0, false) }
            let layers = stores[i].closed
            let inserts = layers.reduce(0) { $0 + $1.inserts }
            let firstTick = nextTick(reserving: layers.reduce(0) { $0 + $1.operations.count })
            let slack = max(1, capacity / 10)
            let count = insertsSinceSizeCheck[store.path, default: 0] + inserts
            let check = count >= slack
            insertsSinceSizeCheck[store.path] = check ? 0 : count
            return (layers, firstTick, check)
        }
    }

    /// Forgets the first `layers.count` closed layers of `store` (they are committed, or
    /// failed and reported), frees their room and wakes the writers waiting for it.
    private func release(_ layers: inout [Layer], of store: Store) {
        guard !layers.isEmpty else { return }
        condition.lock()
        if let i = stores.firstIndex(where: { $0.store === store }) {
            stores[i].closed.removeFirst(min(layers.count, stores[i].closed.count))
        }
        pendingWrites -= layers.reduce(0) { $0 + $1.operations.count }
        pendingBytes -= layers.reduce(0) { $0 + $1.bytes }
        condition.broadcast()
        condition.unlock()
        // Keep the largest layer's lists for the next one: `layers` is now their only owner,
        // so emptying them does not copy.
        guard let largest = layers.indices.max(by: { layers[$0].operations.capacity < layers[$1].operations.capacity }) else { return }
        let spare = layers[largest].emptied()
        layers = []
        condition.withLock { if spareLayer == nil { spareLayer = spare } }
    }
}
