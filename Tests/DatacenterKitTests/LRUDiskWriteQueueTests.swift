import Foundation
import Testing
@testable import DatacenterKit

/// A store in a fresh folder with one disk cache in it.
fileprivate final class QueueFixture: @unchecked Sendable {
    let folder = TemporaryFolder()
    let store: Store
    let cache: LRUDiskCache

    init(capacity: Int = 100_000) throws {
        store = try Store(path: folder.file("s.sqlite"))
        cache = try LRUDiskCache(name: "queued", capacity: capacity, store: store)
    }

    /// The committed value bytes of `key`, read from the table itself.
    func committedValue(_ key: String) throws -> Data? {
        try store.queue.read { db in try db.scalar("SELECT value FROM lru_queued WHERE key = ?", [.text(key)])?.dataValue }
    }

    /// The number of committed rows.
    func committedCount() throws -> Int {
        try store.queue.read { db in Int(try db.scalar("SELECT count(*) FROM lru_queued")?.int64Value ?? 0) }
    }
}

/// The ways a caller holds a store's connection in a transaction of its own.
enum CallerTransaction: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case kvBatch
    case queueTransaction

    var testDescription: String { rawValue }

    func run(on store: Store, _ body: () throws -> Void) throws {
        switch self {
        case .kvBatch: try store.kv.batch { try body() }
        case .queueTransaction: try store.queue.inTransaction { _ in try body() }
        }
    }
}

/// Thrown by a test to roll its transaction back.
private struct Rollback: Error {}

/// Runs `body` on a thread of its own and waits up to `timeout` seconds for it: a test of a
/// deadlock must not hang the suite. Returns false (recording an issue) when it did not end.
private func finishes(within timeout: TimeInterval = 5, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
                      _ body: @escaping @Sendable () throws -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    let failure = Locked<String?>(nil)
    let thread = Thread {
        do { try body() } catch { failure.withLock { $0 = String(describing: error) } }
        done.signal()
    }
    thread.stackSize = 1 << 20
    thread.start()
    let finished = wait(for: done, timeout: timeout)
    #expect(finished, "\(what) did not finish within \(timeout) s", sourceLocation: sourceLocation)
    if let message = failure.current { Issue.record("\(what) threw: \(message)", sourceLocation: sourceLocation) }
    return finished
}

/// Holds `store`'s connection on a thread of its own until `release()` (or 10 s), so nothing
/// can be committed to it meanwhile.
private final class ConnectionHolder: @unchecked Sendable {
    private let released = DispatchSemaphore(value: 0)
    private let holding = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    init(_ store: Store) {
        let thread = Thread { [released, holding, ended] in
            store.queue.write { _ in
                holding.signal()
                _ = released.wait(timeout: .now() + 10)
            }
            ended.signal()
        }
        thread.start()
        holding.wait()
    }

    func release() {
        released.signal()
        ended.wait()
    }
}

/// The write-behind of `LRUDiskCache`: reads answered from the queue, commits only in
/// transactions of their own, a bounded queue, failures reported.
@Suite struct LRUDiskWriteQueueTests {
    // MARK: No deadlock

    /// A read inside a caller's transaction, after the timed commit started and began to wait
    /// for the connection the caller holds, is answered from the queue instead of waiting
    /// for that commit (which waits for the caller: a deadlock).
    @Test(arguments: CallerTransaction.allCases)
    func aReadInsideATransactionDoesNotWaitForAStartedCommit(_ transaction: CallerTransaction) throws {
        let f = try QueueFixture()
        try f.cache.set(0, forKey: "k")
        try f.cache.flush()
        let seen = Locked<[Int?]>([])
        let ended = finishes("a read inside \(transaction)") {
            try transaction.run(on: f.store) {
                try f.cache.set(1, forKey: "k")
                // Long past the coalescing delay: the commit has started and waits for us.
                Thread.sleep(forTimeInterval: 0.15)
                let value = try f.cache.value(Int.self, forKey: "k")
                let other = try f.cache.value(Int.self, forKey: "missing")
                seen.withLock { $0 = [value, other] }
            }
        }
        guard ended else { return }
        #expect(seen.current == [1, nil])
        try f.cache.flush()
        #expect(try f.committedValue("k") == (try ArchiveCodec.encode(1)))
    }

    /// While another thread holds the connection (so nothing can commit), a read of a key
    /// with a queued write returns at once.
    @Test func aReadOfAQueuedKeyDoesNotWaitForTheConnection() throws {
        let f = try QueueFixture()
        let holder = ConnectionHolder(f.store)
        try f.cache.set("queued", forKey: "k")
        Thread.sleep(forTimeInterval: 0.05)   // the commit now waits for the holder
        let start = Date()
        let value = try f.cache.value(String.self, forKey: "k")
        let elapsed = Date().timeIntervalSince(start)
        holder.release()
        #expect(value == "queued")
        #expect(elapsed < 2, "the read waited \(elapsed) s for the connection")
        try f.cache.flush()
        #expect(try f.cache.value(String.self, forKey: "k") == "queued")
    }

    // MARK: No lost writes

    /// A read inside a caller's transaction that later rolls back does not commit the
    /// cache's queued writes into that transaction: they survive the rollback.
    @Test(arguments: CallerTransaction.allCases)
    func aRolledBackTransactionDoesNotTakeTheCachesWritesWithIt(_ transaction: CallerTransaction) throws {
        let f = try QueueFixture()
        let seen = Locked<(Data?, Bool)>((nil, false))
        let ended = finishes("a rolled-back \(transaction)") {
            do {
                try transaction.run(on: f.store) {
                    try f.cache.setData(Data("kept".utf8), forKey: "k")
                    try f.store.kv.setString("rolled back", forKey: "kv", business: "b")
                    let read = (try f.cache.data(forKey: "k"), try f.cache.contains("k"))
                    seen.withLock { $0 = read }
                    throw Rollback()
                }
            } catch is Rollback {}
        }
        guard ended else { return }
        #expect(seen.current.0 == Data("kept".utf8) && seen.current.1, "a read inside the transaction missed the queued write")
        #expect(try f.store.kv.string(forKey: "kv", business: "b") == nil, "the caller's own write was not rolled back")
        try f.cache.flush()
        #expect(try f.committedValue("k") == Data("kept".utf8), "the cache's write was rolled back with the caller's")
        #expect(try f.cache.data(forKey: "k") == Data("kept".utf8))
    }

    /// `flush()` from inside a caller's transaction refuses (it would have to wait for the
    /// caller, or write into its transaction); the writes stay queued and commit afterwards.
    @Test(arguments: CallerTransaction.allCases)
    func aFlushInsideATransactionRefusesAndKeepsTheWrites(_ transaction: CallerTransaction) throws {
        let f = try QueueFixture()
        let refusals = Locked<[String]>([])
        let ended = finishes("a flush inside \(transaction)") {
            do {
                try transaction.run(on: f.store) {
                    try f.cache.set("v", forKey: "k")
                    do { try f.cache.flush() } catch let error as CacheError { refusals.withLock { $0.append("flush: \(error)") } }
                    do { _ = try f.cache.count() } catch let error as CacheError { refusals.withLock { $0.append("count: \(error)") } }
                    throw Rollback()
                }
            } catch is Rollback {}
        }
        guard ended else { return }
        #expect(refusals.current.count == 2, "flush and count inside a transaction must refuse: \(refusals.current)")
        try f.cache.flush()
        #expect(try f.committedCount() == 1)
        #expect(try f.cache.value(String.self, forKey: "k") == "v")
    }

    /// A transaction begun on the connection and left open across calls (as a DAO object's
    /// `beginTransaction` does) is never written into: the commit waits for it to end, and
    /// a rollback of it leaves the cache's writes alone.
    @Test func aTransactionLeftOpenOnTheConnectionIsNotWrittenInto() throws {
        let f = try QueueFixture()
        try f.store.queue.write { db in try db.beginTransaction(.immediate) }
        try f.cache.set("v", forKey: "k")
        Thread.sleep(forTimeInterval: 0.1)   // several coalescing delays
        #expect(throws: CacheError.self) { try f.cache.flush() }
        #expect(try f.cache.value(String.self, forKey: "k") == "v")
        try f.store.queue.write { db in try db.rollback() }
        try f.cache.flush()
        #expect(try f.committedValue("k") == (try ArchiveCodec.encode("v")))
    }

    /// A commit that fails says how many writes it lost, once; the table is created again
    /// by the next commit, so later writes land.
    @Test func aFailedCommitReportsWhatItLostAndTheNextOneWorks() throws {
        let f = try QueueFixture()
        try f.cache.set(1, forKey: "a")
        try f.cache.flush()
        // The table goes in a transaction left open, which holds the commits back until all
        // three writes are queued: they then fail as one batch, however slow the machine.
        try f.store.queue.write { db in
            try db.beginTransaction(.immediate)
            try db.execute("DROP TABLE lru_queued")
        }
        for key in ["b", "c", "d"] { try f.cache.set(2, forKey: key) }
        try f.store.queue.write { db in try db.commit() }
        do {
            try f.cache.flush()
            Issue.record("flush did not report the failed commit")
        } catch let CacheError.writeFailed(cache, reason) {
            #expect(cache == "queued")
            #expect(reason.contains("3 writes"), "\(reason)")
        }
        try f.cache.flush()
        try f.cache.set(3, forKey: "e")
        try f.cache.flush()
        #expect(try f.cache.value(Int.self, forKey: "e") == 3)
        #expect(try f.committedCount() == 1)
    }

    // MARK: Backpressure

    /// A writer faster than the commits waits once the queue is full: with the connection
    /// held, so nothing commits, it gets no further than the bound.
    @Test func aWriterWaitsWhenTheQueueIsFull() throws {
        let f = try QueueFixture()
        let total = 20_000
        let value = Data(repeating: 0x5A, count: 100)
        let whileHeld = queuedWhileTheConnectionIsHeld(f, total: total, value: value, key: "k")
        #expect(whileHeld < total, "the writer queued all \(total) writes while nothing could commit")
        #expect(whileHeld <= LRUDiskCache.maximumPendingWrites, "\(whileHeld) writes queued")
        try f.cache.flush()
        #expect(try f.committedCount() == total)
        #expect(try f.cache.data(forKey: "k\(total - 1)") == value)
    }

    /// Starts a writer of `total` sets of `value` (keys `key0`, `key1`, …) while another
    /// thread holds the store's connection, so nothing commits; returns how many it had
    /// queued after 0.3 s, then lets the connection go and waits for the writer to finish.
    fileprivate func queuedWhileTheConnectionIsHeld(_ f: QueueFixture, total: Int, value: Data, key: String) -> Int {
        let holder = ConnectionHolder(f.store)
        let written = Locked(0)
        let done = DispatchSemaphore(value: 0)
        let writer = Thread {
            for i in 0..<total {
                try? f.cache.setData(value, forKey: "\(key)\(i)")
                written.withLock { $0 += 1 }
            }
            done.signal()
        }
        writer.start()
        Thread.sleep(forTimeInterval: 0.3)
        let whileHeld = written.current
        holder.release()
        #expect(wait(for: done, timeout: 60))
        return whileHeld
    }

    /// The byte budget bounds a queue of large values long before the count does.
    @Test func largeValuesAreBoundedByBytes() throws {
        let f = try QueueFixture()
        let total = 400
        let value = Data(repeating: 0x33, count: 64 * 1024)
        let whileHeld = queuedWhileTheConnectionIsHeld(f, total: total, value: value, key: "big")
        #expect(whileHeld * value.count <= LRUDiskCache.maximumPendingBytes, "\(whileHeld) values of 64 KiB queued")
        #expect(whileHeld > 0)
        try f.cache.flush()
        #expect(try f.committedCount() == total)
    }

    /// A thread holding the connection is never made to wait for room (the commit needs the
    /// connection it holds): its writes go over the bound and commit after it lets go.
    @Test func aWriterHoldingTheConnectionGoesOverTheBound() throws {
        let f = try QueueFixture()
        let total = LRUDiskCache.maximumPendingWrites + 500
        let first = Locked<Int?>(nil)
        let ended = finishes(within: 30, "writing past the bound inside a batch") {
            try f.store.kv.batch {
                for i in 0..<total { try f.cache.set(i, forKey: "k\(i)") }
                let value = try f.cache.value(Int.self, forKey: "k0")
                first.withLock { $0 = value }
            }
        }
        guard ended else { return }
        #expect(first.current == 0)
        try f.cache.flush()
        #expect(try f.committedCount() == total)
    }

    /// Nor is a writer made to wait while a transaction begun outside the cache keeps
    /// commits off the connection: the writer may be the thread that will end it.
    @Test func aWriterIsNotMadeToWaitForATransactionLeftOpen() throws {
        let f = try QueueFixture()
        let total = LRUDiskCache.maximumPendingWrites + 500
        try f.store.queue.write { db in try db.beginTransaction(.immediate) }
        let ended = finishes(within: 30, "writing past the bound with a transaction left open") {
            for i in 0..<total { try f.cache.set(i, forKey: "k\(i)") }
        }
        try f.store.queue.write { db in try db.rollback() }
        guard ended else { return }
        try f.cache.flush()
        #expect(try f.committedCount() == total)
    }

    // MARK: Reads answered from the queue

    /// Pending bulk removals hide what they will delete, and only that: `LIKE` as SQLite
    /// decides it (ASCII case-insensitive), with writes after them visible again.
    @Test func pendingBulkRemovalsHideExactlyWhatTheyWillDelete() throws {
        let f = try QueueFixture()
        try f.cache.set("A", forKey: "Img.a")
        try f.cache.set("D", forKey: "doc.a")
        try f.cache.flush()
        // Queued together while nothing can commit; the reads below find them queued or
        // committed, whichever comes first, and must answer the same.
        let holder = ConnectionHolder(f.store)
        try f.cache.set("B", forKey: "img.b")
        try f.cache.removeValues(like: "img.%")
        try f.cache.set("C", forKey: "img.c")
        holder.release()
        #expect(try f.cache.value(String.self, forKey: "Img.a") == nil)
        #expect(try f.cache.value(String.self, forKey: "img.b") == nil)
        #expect(try !f.cache.contains("img.b"))
        #expect(try f.cache.value(String.self, forKey: "img.c") == "C")
        #expect(try f.cache.value(String.self, forKey: "doc.a") == "D")
        try f.cache.removeAll()
        #expect(try f.cache.value(String.self, forKey: "doc.a") == nil)
        #expect(try !f.cache.contains("img.c"))
        try f.cache.set("E", forKey: "e")
        #expect(try f.cache.value(String.self, forKey: "e") == "E")
        try f.cache.flush()
        #expect(try f.committedCount() == 1)
    }

    /// Random writes, bulk removals, reads and flushes against a dictionary: every read
    /// agrees with the model, whether answered from the queue or the table, while commits
    /// run in the background.
    @Test func readsAgreeWithAModelUnderRandomWrites() throws {
        let seed = testSeed("LRU_QUEUE_SEED", default: 0x0D15_C0DE)
        var random = SplitMix64(seed: seed)
        let f = try QueueFixture()
        var model: [String: Int] = [:]
        let keys = (0..<40).map { "\(["a", "b", "c"][$0 % 3])\($0)" }
        for step in 0..<3000 {
            let key = keys[Int.random(in: 0..<keys.count, using: &random)]
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<45:
                try f.cache.set(step, forKey: key)
                model[key] = step
            case 45..<55:
                try f.cache.removeValue(forKey: key)
                model[key] = nil
            case 55..<57:
                let prefix = ["a", "b", "c"][Int.random(in: 0..<3, using: &random)]
                try f.cache.removeValues(like: prefix + "%")
                model = model.filter { !$0.key.hasPrefix(prefix) }
            case 57:
                try f.cache.removeAll()
                model = [:]
            case 58..<60:
                try f.cache.flush()
            case 60..<63:
                Thread.sleep(forTimeInterval: 0.001)   // let timed commits interleave
            default:
                let seen = try f.cache.value(Int.self, forKey: key)
                #expect(seen == model[key], "seed \(seed), step \(step): \(key) read \(String(describing: seen)), expected \(String(describing: model[key]))")
                if seen != model[key] { return }
            }
        }
        try f.cache.flush()
        #expect(try f.cache.count() == model.count, "seed \(seed)")
        for key in keys { #expect(try f.cache.value(Int.self, forKey: key) == model[key], "seed \(seed): \(key)") }
    }

    // MARK: Data center reset

    /// After `DataCenter.reset()` deletes the stores, the cache creates its table again in
    /// the new one instead of writing to a table that is gone.
    @Test func aCacheKeepsWorkingAfterTheDataCenterIsReset() throws {
        let folder = TemporaryFolder()
        let center = try DataCenter(rootPath: folder.file("root"))
        let cache = try LRUDiskCache(name: "survivor", capacity: 10, dataCenter: center)
        let library = try LRUDiskCache(name: "LIB_CACHES.survivor", capacity: 10, dataCenter: center)
        try cache.set("before", forKey: "k")
        try library.set("before", forKey: "k")
        try cache.flush()
        try library.flush()
        try center.reset()
        #expect(try cache.value(String.self, forKey: "k") == nil)
        try cache.set("after", forKey: "k")
        try cache.flush()
        #expect(try cache.value(String.self, forKey: "k") == "after")
        #expect(try CacheCatalog.cache(named: "survivor", in: try center.commonStore()).entryCount == 1)
        // The library caches file goes with the reset too, and the cache works on after it.
        #expect(try library.value(String.self, forKey: "k") == nil)
        try library.set("after", forKey: "k")
        try library.flush()
        #expect(try library.value(String.self, forKey: "k") == "after")
    }
}
