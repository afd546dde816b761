import Foundation
import Testing
@testable import DatacenterKit

/// The lock rule, made loud: nesting on one store is allowed; waiting, while holding a store,
/// on a queue whose work takes it is trapped in debug builds (here reported to the test's
/// handler instead, which the trap would otherwise be).
@Suite struct StoreLockRuleTests {
    @Test func nestedReadsAndWritesOnOneThreadRunOnTheHeldConnection() throws {
        let folder = TemporaryFolder()
        let queue = try DatabaseQueue(path: folder.file("nest.sqlite"))
        let depth = try queue.inTransaction { db -> Int in
            try db.execute("create table t (x)")
            return try queue.write { inner in
                try inner.execute("insert into t values (1)")
                return queue.read { _ in queue.holdDepth }
            }
        }
        #expect(depth == 3)
        #expect(try queue.read { try $0.scalar("select count(*) from t")?.int64Value } == 1)
        #expect(!queue.isHeldByCurrentThread)
    }

    #if DEBUG
    @Test func waitingOnAStoreQueueWhileHoldingTheStoreIsCaught() throws {
        let folder = TemporaryFolder()
        let store = try DatabaseQueue(path: folder.file("held.sqlite"))
        let other = try DatabaseQueue(path: folder.file("other.sqlite"))
        let work = DispatchQueue(label: "test.store-work")
        let reports = LockedState<[String]>([])
        let ran = LockedState(0)
        StoreLockRule.$violationHandler.withValue({ message in reports.withLock { $0.append(message) } }) {
            // Held: the wait breaks the rule (the work here does not take the store, so the
            // test goes on after the report instead of deadlocking).
            store.write { _ in StoreLockRule.wait(on: work, needing: [other, store]) { ran.withLock { $0 += 1 } } }
            // Not held, or holding another store: within the rule.
            StoreLockRule.wait(on: work, needing: [store]) { ran.withLock { $0 += 1 } }
            other.write { _ in StoreLockRule.wait(on: work, needing: [store]) { ran.withLock { $0 += 1 } } }
        }
        let messages = reports.withLock { $0 }
        #expect(messages.count == 1)
        #expect(messages.first?.contains("holds the store \(store.path)") == true)
        #expect(messages.first?.contains("'test.store-work'") == true)
        #expect(ran.withLock { $0 } == 3)
    }
    #endif
}
