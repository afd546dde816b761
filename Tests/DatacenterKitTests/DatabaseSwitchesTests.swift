import Foundation
import Testing
@testable import DatacenterKit
import DatacenterTestSupport

/// DBConnect's connection switches: explicit close, statement caching on and off, a busy
/// retry count, and databases whose text encoding is UTF-16.
@Suite struct DatabaseSwitchesTests {
    @Test func everyUseAfterCloseIsATypedError() throws {
        let folder = TemporaryFolder()
        let db = try Database(path: folder.file("db.sqlite"))
        try db.execute("CREATE TABLE t(x)")
        let kept = try db.cachedStatement("SELECT x FROM t")
        #expect(db.cachedStatementCount == 2)
        db.close()
        #expect(db.isClosed)
        #expect(db.cachedStatementCount == 0)
        db.close() // idempotent
        let uses: [() throws -> Void] = [
            { try db.execute("INSERT INTO t VALUES (1)") },
            { _ = try db.query("SELECT x FROM t") },
            { _ = try db.makeStatement("SELECT 1") },
            { try db.beginTransaction(.immediate) },
            { _ = try kept.fetchAll() },
        ]
        for use in uses {
            let error = #expect(throws: DatabaseError.self) { try use() }
            #expect(error?.isClosed == true, "\(String(describing: error))")
        }
        #expect(!db.isInTransaction)
        #expect(db.changes == 0)
    }

    @Test func aClosedQueueRefusesLaterWork() throws {
        let folder = TemporaryFolder()
        let queue = try DatabaseQueue(path: folder.file("q.sqlite"))
        try queue.write { try $0.execute("CREATE TABLE t(x)") }
        queue.close()
        queue.close()
        #expect(queue.isClosed)
        let error = #expect(throws: DatabaseError.self) { try queue.inTransaction { try $0.execute("INSERT INTO t VALUES (1)") } }
        #expect(error?.isClosed == true)
        // The file is intact and reopens.
        let again = try Database(path: folder.file("q.sqlite"))
        #expect(try again.scalar("SELECT count(*) FROM t")?.int64Value == 0)
    }

    @Test func turningTheCacheOffPreparesPerUse() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE t(x)")
        #expect(db.cachesStatements)
        #expect(db.cachedStatementCount == 1)
        db.cachesStatements = false
        #expect(db.cachedStatementCount == 0)
        try db.execute("INSERT INTO t VALUES (?)", [1])
        _ = try db.query("SELECT x FROM t")
        let first = try db.cachedStatement("SELECT x FROM t")
        let second = try db.cachedStatement("SELECT x FROM t")
        #expect(first !== second)
        #expect(db.cachedStatementCount == 0)
        #expect(try db.scalar("SELECT count(*) FROM t")?.int64Value == 1)
        db.cachesStatements = true
        let third = try db.cachedStatement("SELECT x FROM t")
        #expect(third === (try db.cachedStatement("SELECT x FROM t")))
    }

    @Test func theRetryCountEndsABusyWaitBeforeTheTimeout() throws {
        let folder = TemporaryFolder()
        let path = folder.file("db.sqlite")
        // A long timeout: only the retry count can end this wait soon.
        let db = try Database(path: path, busyTimeout: 30)
        try db.execute("CREATE TABLE t(x)")
        db.busyRetryCount = 3
        let other = try Database(path: path)
        try other.execute("BEGIN EXCLUSIVE")
        defer { try? other.execute("ROLLBACK") }
        let error = #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
        #expect(error?.isBusy == true)
        #expect(db.busyWait.retries == 3)
        #expect(error?.message.contains("retried 3 time(s)") == true, "\(error?.message ?? "")")
        db.busyRetryCount = -1
        #expect(db.busyRetryCount == 0)
    }

    @Test(arguments: ["UTF-16le", "UTF-16be"])
    func aUTF16DatabaseReadsAndWritesText(_ encoding: String) throws {
        let folder = TemporaryFolder()
        let path = folder.file("u16.sqlite")
        let made = try Database(path: path)
        try made.executeScript("PRAGMA encoding = \"\(encoding)\"; CREATE TABLE t(s TEXT)")
        try made.execute("INSERT INTO t VALUES ('héllo 𝄞 日本')")
        made.close()
        let db = try Database(path: path)
        #expect(try db.scalar("PRAGMA encoding")?.stringValue == encoding)
        #expect(try db.scalar("SELECT s FROM t")?.stringValue == "héllo 𝄞 日本")
        try db.execute("INSERT INTO t VALUES (?)", [.text("ünï 🎉")])
        #expect(try db.scalar("SELECT length(s) FROM t WHERE s = ?", [.text("ünï 🎉")])?.int64Value == 5)
        #expect(try db.query("SELECT s FROM t ORDER BY rowid").map { $0[0] } == [.text("héllo 𝄞 日本"), .text("ünï 🎉")])
    }

    @Test func theKVStoreWorksOnAUTF16File() throws {
        let folder = TemporaryFolder()
        let path = folder.file("kv.sqlite")
        let made = try Database(path: path)
        try made.executeScript("PRAGMA encoding = \"UTF-16le\"; CREATE TABLE app(x)")
        made.close()
        let store = try Store(path: path)
        try store.kv.setString("значение 𝄞", forKey: "ключ 🔑", business: "бизнес")
        #expect(try store.kv.string(forKey: "ключ 🔑", business: "бизнес") == "значение 𝄞")
        #expect(try store.queue.read { try $0.scalar("PRAGMA encoding")?.stringValue } == "UTF-16le")
    }
}
