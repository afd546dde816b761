import Foundation
import Testing
@testable import DatacenterKit

/// `DatabaseQueue`, `DatabasePool` and `AsyncExecutor`.
@Suite struct PoolAndExecutorTests {
    private func makePool(_ folder: TemporaryFolder, maximumReaderCount: Int = 4) throws -> DatabasePool {
        let pool = try DatabasePool(path: folder.file("pool.sqlite"), maximumReaderCount: maximumReaderCount)
        try pool.write { db in
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER)")
            try db.inTransaction {
                for i in 1...100 { try db.execute("INSERT INTO t(v) VALUES (?)", [.integer(Int64(i))]) }
            }
        }
        return pool
    }

    @Test func queueOpensInWALMode() throws {
        let folder = TemporaryFolder()
        let queue = try DatabaseQueue(path: folder.file("q.sqlite"))
        #expect(try queue.read { try $0.scalar("PRAGMA journal_mode", cached: false) } == .text("wal"))
        let plain = try DatabaseQueue(path: folder.file("plain.sqlite"), wal: false)
        #expect(try plain.read { try $0.scalar("PRAGMA journal_mode", cached: false) } == .text("delete"))
    }

    @Test func queueInTransactionRollsBackOnThrow() throws {
        struct Stop: Error {}
        let queue = DatabaseQueue(database: try Database.inMemory())
        try queue.write { try $0.execute("CREATE TABLE t(x)") }
        #expect(throws: Stop.self) {
            try queue.inTransaction { db in
                try db.execute("INSERT INTO t VALUES (1)")
                throw Stop()
            }
        }
        try queue.inTransaction { db in try db.execute("INSERT INTO t VALUES (2)") }
        #expect(try queue.read { try $0.query("SELECT x FROM t").map { $0[0] } } == [.integer(2)])
    }

    @Test func queueCallsNestOnTheSameThread() throws {
        let queue = DatabaseQueue(database: try Database.inMemory())
        let value = try queue.write { _ in try queue.read { try $0.scalar("SELECT 41 + 1") } }
        #expect(value == .integer(42))
    }

    @Test func parallelReadsSeeCommittedData() throws {
        let folder = TemporaryFolder()
        let pool = try makePool(folder)
        let sums = Locked<[Int64]>([])
        let errors = runOnThreads(6) { _ in
            for _ in 0..<20 {
                let sum = try pool.read { db in try db.scalar("SELECT sum(v) FROM t")?.int64Value }
                sums.withLock { $0.append(sum ?? -1) }
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        #expect(sums.current.count == 120)
        #expect(sums.current.allSatisfy { $0 == 5050 })
        #expect(pool.readerCount <= pool.maximumReaderCount)
        #expect(pool.readerCount >= 1)
    }

    @Test func readsSeeEachCommitAndNeverUncommittedWork() throws {
        let folder = TemporaryFolder()
        let pool = try makePool(folder)
        try pool.write { db in
            try db.beginTransaction(.immediate)
            try db.execute("DELETE FROM t")
        }
        // The writer's open transaction is invisible to readers.
        #expect(try pool.read { try $0.scalar("SELECT count(*) FROM t") } == .integer(100))
        try pool.write { try $0.commit() }
        #expect(try pool.read { try $0.scalar("SELECT count(*) FROM t") } == .integer(0))
    }

    @Test func readersAreReadOnly() throws {
        let folder = TemporaryFolder()
        let pool = try makePool(folder)
        let error = #expect(throws: DatabaseError.self) {
            try pool.read { db in
                #expect(db.isReadOnly)
                try db.execute("INSERT INTO t(v) VALUES (0)")
            }
        }
        #expect(error?.isReadOnly == true)
        #expect(try pool.read { try $0.scalar("SELECT count(*) FROM t") } == .integer(100))
    }

    @Test func readersAreReusedWithinTheLimit() throws {
        let folder = TemporaryFolder()
        let pool = try makePool(folder, maximumReaderCount: 2)
        let errors = runOnThreads(6) { _ in
            for _ in 0..<10 { _ = try pool.read { try $0.scalar("SELECT count(*) FROM t") } }
        }
        #expect(errors.isEmpty, "\(errors)")
        #expect(pool.readerCount <= 2)
    }

    @Test func executorRunsWritesInSubmissionOrder() throws {
        let folder = TemporaryFolder()
        let pool = try DatabasePool(path: folder.file("exec.sqlite"))
        try pool.write { try $0.execute("CREATE TABLE log(seq INTEGER)") }
        let executor = AsyncExecutor(pool: pool)
        let done = DispatchSemaphore(value: 0)
        let failures = Locked<[Error]>([])
        let count = 200
        for i in 0..<count {
            executor.write({ db in
                try db.execute("INSERT INTO log VALUES (?)", [.integer(Int64(i))])
            }, completion: { error in
                if let error { failures.withLock { $0.append(error) } }
                done.signal()
            })
        }
        #expect(wait(for: done, count: count), "not every completion arrived")
        #expect(failures.current.isEmpty)
        let order = try pool.read { try $0.query("SELECT seq FROM log ORDER BY rowid").compactMap { $0[0].int64Value } }
        #expect(order == (0..<Int64(count)).map { $0 })
    }

    @Test func executorWaitForWritesDrainsTheQueue() throws {
        let folder = TemporaryFolder()
        let pool = try DatabasePool(path: folder.file("exec.sqlite"))
        try pool.write { try $0.execute("CREATE TABLE log(seq INTEGER)") }
        let executor = AsyncExecutor(pool: pool)
        for i in 0..<50 {
            executor.write { db in try db.execute("INSERT INTO log VALUES (?)", [.integer(Int64(i))]) }
        }
        executor.waitForWrites()
        #expect(try pool.read { try $0.scalar("SELECT count(*) FROM log") } == .integer(50))
    }

    @Test func executorReportsErrorsAndRunsReads() throws {
        let folder = TemporaryFolder()
        let pool = try makePool(folder)
        let executor = AsyncExecutor(pool: pool)
        let done = DispatchSemaphore(value: 0)
        let writeError = Locked<Error?>(nil)
        let readResult = Locked<DatabaseValue?>(nil)
        let readErrors = Locked<[Error]>([])
        executor.write({ db in try db.execute("INSERT INTO no_such_table VALUES (1)") },
                       completion: { error in writeError.withLock { $0 = error }; done.signal() })
        for _ in 0..<10 {
            executor.read({ db in
                let sum = try db.scalar("SELECT sum(v) FROM t")
                readResult.withLock { $0 = sum }
            }, completion: { error in
                if let error { readErrors.withLock { $0.append(error) } }
                done.signal()
            })
        }
        // A write on a read connection fails and says so.
        executor.read({ db in try db.execute("DELETE FROM t") },
                      completion: { error in readErrors.withLock { $0.append(error ?? CancellationError()) }; done.signal() })
        #expect(wait(for: done, count: 12))
        #expect(writeError.current is DatabaseError)
        #expect(readResult.current == .integer(5050))
        #expect(readErrors.current.count == 1)
        #expect((readErrors.current.first as? DatabaseError)?.isReadOnly == true)
    }
}
