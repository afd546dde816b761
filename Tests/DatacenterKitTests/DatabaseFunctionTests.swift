import Foundation
import Testing
@testable import DatacenterKit

private struct Refused: Error, CustomStringConvertible {
    var description: String { "refused by the function" }
}

/// Scalar functions written in Swift, and stopping a statement from outside.
@Suite struct DatabaseFunctionTests {
    @Test func aFunctionSeesEachStorageClassAndReturnsEach() throws {
        let db = try Database.inMemory()
        var seen: [[DatabaseValue]] = []
        try db.createFunction("echo", argumentCount: 1) { arguments in
            seen.append(arguments)
            return arguments[0]
        }
        let values: [DatabaseValue] = [.null, .integer(-7), .real(2.5), .text("héllo 🚀"), .text(""), .blob(Data([0, 255, 16])), .blob(Data())]
        for value in values {
            #expect(try db.scalar("SELECT echo(?)", [value]) == value)
        }
        #expect(seen == values.map { [$0] })
        #expect(try db.scalar("SELECT typeof(echo(X''))") == .text("blob"))
    }

    @Test func argumentCountsAreCheckedAndAnyCountIsAllowedWithMinusOne() throws {
        let db = try Database.inMemory()
        try db.createFunction("two", argumentCount: 2) { .integer(Int64($0.count)) }
        try db.createFunction("count_args", argumentCount: -1) { .integer(Int64($0.count)) }
        #expect(try db.scalar("SELECT two(1, 2)") == .integer(2))
        #expect(try db.scalar("SELECT count_args()") == .integer(0))
        #expect(try db.scalar("SELECT count_args(1, 'a', NULL)") == .integer(3))
        #expect { try db.scalar("SELECT two(1)") } throws: { "\($0)".contains("wrong number of arguments") }
    }

    @Test func aThrowFailsTheStatementWithTheErrorsDescription() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE t(v)")
        try db.createFunction("check_value", argumentCount: 1) { arguments in
            if arguments[0] == .text("bad") { throw Refused() }
            return .integer(1)
        }
        try db.execute("INSERT INTO t SELECT 'good' WHERE check_value('good')")
        #expect {
            try db.execute("INSERT INTO t SELECT 'bad' WHERE check_value('bad')")
        } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            return error.message == "refused by the function" && error.code == 1
        }
        #expect(try db.query("SELECT v FROM t").map { $0[0] } == [.text("good")])
    }

    @Test func aDeterministicFunctionCanBeUsedInAnIndexAndOthersCannot() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE t(v TEXT)")
        try db.createFunction("lower_fixed", argumentCount: 1, deterministic: true) { .text(($0[0].stringValue ?? "").lowercased()) }
        try db.createFunction("lower_random", argumentCount: 1) { .text(($0[0].stringValue ?? "").lowercased()) }
        try db.execute("CREATE INDEX t_lower ON t(lower_fixed(v))")
        #expect { try db.execute("CREATE INDEX t_random ON t(lower_random(v))") } throws: { "\($0)".contains("non-deterministic") }
    }

    @Test func replacingAFunctionReleasesTheOldBodyAndClosingReleasesTheLast() throws {
        final class Token {}
        weak var first: Token?
        weak var second: Token?
        do {
            let db = try Database.inMemory()
            do {
                let token = Token()
                first = token
                try db.createFunction("f", argumentCount: 0) { _ in _ = token; return .integer(1) }
            }
            #expect(first != nil)
            do {
                let token = Token()
                second = token
                try db.createFunction("f", argumentCount: 0) { _ in _ = token; return .integer(2) }
            }
            #expect(first == nil)
            #expect(try db.scalar("SELECT f()") == .integer(2))
            #expect(second != nil)
        }
        #expect(second == nil)
    }

    @Test func aFunctionIsPerConnection() throws {
        let folder = TemporaryFolder()
        let path = folder.file("f.sqlite")
        let one = try Database(path: path)
        let other = try Database(path: path)
        try one.createFunction("only_here", argumentCount: 0) { _ in .integer(1) }
        #expect(try one.scalar("SELECT only_here()") == .integer(1))
        #expect { try other.scalar("SELECT only_here()") } throws: { "\($0)".contains("no such function: only_here") }
    }

    // MARK: Interrupting

    /// A query that runs for ever unless stopped.
    static let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n"

    @Test func interruptStopsARunningStatementFromAnotherThread() throws {
        let db = try Database.inMemory()
        let started = DispatchSemaphore(value: 0)
        try db.createFunction("mark_started", argumentCount: 0) { _ in started.signal(); return .integer(1) }
        nonisolated(unsafe) let shared = db
        DispatchQueue.global().async {
            started.wait()
            Thread.sleep(forTimeInterval: 0.05)
            shared.interrupt()
        }
        // Should interrupt() not work, a check stops the endless query after a minute, so the
        // test fails instead of hanging; the interrupt itself comes within milliseconds (the
        // bound below is loose only because a sanitizer build on a loaded machine is slow to
        // schedule the interrupting thread).
        let start = Date()
        let deadline = start.addingTimeInterval(60)
        #expect {
            try db.withInterruptCheck({ Date() > deadline }) {
                try db.scalar("SELECT mark_started() + (" + Self.endless + ")")
            }
        } throws: { ($0 as? DatabaseError)?.isInterrupted == true }
        #expect(Date().timeIntervalSince(start) < 30)
        // The connection works afterwards: an interrupt stops only what was running.
        #expect(try db.scalar("SELECT 1") == .integer(1))
    }

    @Test func anInterruptCheckStopsAStatementStartedAfterTheFlagWasSet() throws {
        let db = try Database.inMemory()
        let lock = NSLock()
        var cancelled = true
        #expect {
            try db.withInterruptCheck({ lock.withLock { cancelled } }) { try db.scalar(Self.endless) }
        } throws: { ($0 as? DatabaseError)?.isInterrupted == true }
        // Without the flag, the check lets statements run; after the scope it is gone.
        lock.withLock { cancelled = false }
        var calls = 0
        let total = try db.withInterruptCheck(every: 10, { calls += 1; return false }) {
            try db.scalar("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000) SELECT sum(i) FROM n")
        }
        #expect(total == .integer(50_005_000))
        #expect(calls > 0)
        let before = calls
        _ = try db.scalar("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000) SELECT sum(i) FROM n")
        #expect(calls == before)
    }
}
