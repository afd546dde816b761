import Foundation
import Testing
@testable import DatacenterKit

/// A queue that takes a store's lock is never waited on from a thread that may hold it: the
/// services that run writes in the background answer a synchronous call made while the
/// caller holds the store, and the call still sees the writes asked before it. Each test
/// runs the shape that hung under a watchdog.
@Suite struct StoreSerialQueueTests {
    /// Runs `body` on another thread and fails (without waiting for ever) when it has not
    /// returned within `seconds`: a deadlock, the thread left stuck.
    static func withWatchdog(_ what: String, seconds: Double = 30, sourceLocation: SourceLocation = #_sourceLocation,
                             _ body: @escaping @Sendable () throws -> Void) {
        let done = DispatchSemaphore(value: 0)
        let failure = LockedState<String?>(nil)
        Thread.detachNewThread {
            do { try body() } catch { failure.withLock { $0 = "\(error)" } }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else {
            Issue.record("\(what) did not return within \(seconds) s: deadlocked", sourceLocation: sourceLocation)
            return
        }
        if let message = failure.withLock({ $0 }) { Issue.record("\(what) threw: \(message)", sourceLocation: sourceLocation) }
    }

    @Test func aFileServiceReadInsideTheStoresWriteSeesTheWriteAskedBefore() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("files.sqlite"))
        let service = try FileArrayService(name: "files", store: store)
        let seen = LockedState<[Data?]>([])
        Self.withWatchdog("a synchronous read inside store.queue.write") {
            try store.queue.write { _ in
                for round in 0..<20 {
                    service.write(Data("value \(round)".utf8), to: "a")
                    seen.withLock { $0.append(nil) }
                    let read = try service.read("a")
                    seen.withLock { $0[$0.count - 1] = read }
                }
                _ = try service.read("warm")
            }
        }
        let values = seen.withLock { $0 }
        #expect(values.count == 20)
        for (round, value) in values.enumerated() { #expect(value == Data("value \(round)".utf8), "round \(round)") }
        // And from outside, after: the same, through the background worker.
        service.write(Data("later".utf8), to: "b")
        #expect(try service.read("b") == Data("later".utf8))
        service.waitForPendingOperations()
        #expect(try service.count() == 2)
    }

    @Test func anAndroidCommitInsideABatchAfterAnApplyNeitherHangsNorFails() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("prefs.sqlite"))
        let prefs = AndroidSharedPreferences(store: store.kv, group: "g")
        Self.withWatchdog("commit inside kv.batch after an apply") {
            try store.kv.batch {
                prefs.edit().putString("applied", "first").apply()
                try prefs.edit().putString("committed", "second").commitOrThrow()
            }
        }
        #expect(try prefs.getString("applied", nil) == "first")
        #expect(try prefs.getString("committed", nil) == "second")
        // Written in order: both are in the store itself, not only in the pending changes.
        #expect(try store.kv.string(forKey: "applied", business: "g") == "first")
        #expect(try store.kv.string(forKey: "committed", business: "g") == "second")
    }

    @Test func anAndroidCommitInsideACallersTransactionSucceeds() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("prefs.sqlite"))
        let prefs = AndroidSharedPreferences(store: store.kv, group: "g")
        // It failed with "database table is locked" (the checkpoint of commit's sync).
        try store.queue.inTransaction { _ in
            #expect(prefs.edit().putInt("n", 42).commit())
        }
        #expect(try prefs.getInt("n", 0) == 42)
    }

    @Test func anExecutorsWritesAreWaitedForFromInsideThePoolsWriter() throws {
        let folder = TemporaryFolder()
        let pool = try DatabasePool(path: folder.file("exec.sqlite"))
        try pool.write { db in try db.execute("CREATE TABLE t(x)") }
        let executor = AsyncExecutor(pool: pool)
        let count = LockedState<Int64>(-1)
        Self.withWatchdog("waitForWrites inside pool.write") {
            pool.write { db in
                executor.write { db in try db.execute("INSERT INTO t VALUES (1)") }
                executor.waitForWrites()
                count.withLock { $0 = (try? db.scalar("SELECT count(*) FROM t")?.int64Value) ?? -2 }
            }
        }
        #expect(count.withLock { $0 } == 1)
    }

    /// A file the memory cache holds is read without the store's lock when nothing is queued
    /// (a long write elsewhere does not hold it up), and is what the writes asked before left.
    @Test func aCachedFileIsReadWithoutTheStoresLockWhenNothingIsQueued() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("files.sqlite"))
        let service = try FileArrayService(name: "files", store: store)
        service.write(Data("first".utf8), to: "a")
        #expect(try service.read("a") == Data("first".utf8))     // now in memory
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            store.queue.write { _ in
                holding.signal()
                release.wait()                                   // a long write, holding the store
            }
        }
        holding.wait()
        let read = LockedState<Data?>(nil)
        Self.withWatchdog("a cached read while another thread holds the store") {
            let data = try service.read("a")
            read.withLock { $0 = data }
        }
        release.signal()
        #expect(read.withLock { $0 } == Data("first".utf8))
        // With a write queued, the read waits for it and sees it (the slow path).
        service.write(Data("second".utf8), to: "a")
        #expect(try service.read("a") == Data("second".utf8))
    }
}
