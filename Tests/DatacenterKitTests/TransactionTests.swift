import Foundation
import Testing
@testable import DatacenterKit

private struct Boom: Error, Equatable { let tag: String }

/// Transactions of each kind, savepoints, user_version, and attached databases.
@Suite struct TransactionTests {
    static let kinds: [Database.TransactionKind] = [.deferred, .immediate, .exclusive]

    private func makeDB(_ folder: TemporaryFolder) throws -> Database {
        let db = try Database(path: folder.file("tx.sqlite"))
        try db.execute("CREATE TABLE t(x INTEGER)")
        return db
    }

    private func values(_ db: Database) throws -> [Int64] {
        try db.query("SELECT x FROM t ORDER BY x").compactMap { $0[0].int64Value }
    }

    @Test(arguments: kinds)
    func commitKeepsTheWork(_ kind: Database.TransactionKind) throws {
        let folder = TemporaryFolder()
        let db = try makeDB(folder)
        #expect(!db.isInTransaction)
        try db.beginTransaction(kind)
        #expect(db.isInTransaction)
        try db.execute("INSERT INTO t VALUES (1)")
        try db.commit()
        #expect(!db.isInTransaction)
        let other = try Database(path: folder.file("tx.sqlite"))
        #expect(try values(other) == [1])
    }

    @Test(arguments: kinds)
    func rollbackUndoesTheWork(_ kind: Database.TransactionKind) throws {
        let folder = TemporaryFolder()
        let db = try makeDB(folder)
        try db.execute("INSERT INTO t VALUES (1)")
        try db.beginTransaction(kind)
        try db.execute("INSERT INTO t VALUES (2)")
        try db.execute("DELETE FROM t WHERE x = 1")
        try db.rollback()
        #expect(!db.isInTransaction)
        #expect(try values(db) == [1])
        try db.rollback()   // nothing open: does nothing
    }

    @Test func uncommittedWorkIsInvisibleToOtherConnections() throws {
        let folder = TemporaryFolder()
        let db = try makeDB(folder)
        try db.enableWAL()
        let other = try Database(path: folder.file("tx.sqlite"))
        try db.beginTransaction(.immediate)
        try db.execute("INSERT INTO t VALUES (1)")
        #expect(try values(other) == [])
        try db.commit()
        #expect(try values(other) == [1])
    }

    @Test func deferredTakesNoLockUntilItWrites() throws {
        let folder = TemporaryFolder()
        let db = try makeDB(folder)
        let other = try Database(path: folder.file("tx.sqlite"), busyTimeout: 0)
        try db.beginTransaction(.deferred)
        try other.execute("INSERT INTO t VALUES (9)")   // no lock held yet
        try db.execute("INSERT INTO t VALUES (1)")
        let error = #expect(throws: DatabaseError.self) { try other.execute("INSERT INTO t VALUES (10)") }
        #expect(error?.isBusy == true)
        try db.commit()
        #expect(try values(db) == [1, 9])
    }

    @Test func immediateTakesTheWriteLockAtOnce() throws {
        let folder = TemporaryFolder()
        let db = try makeDB(folder)
        let other = try Database(path: folder.file("tx.sqlite"), busyTimeout: 0)
        try db.beginTransaction(.immediate)
        let error = #expect(throws: DatabaseError.self) { try other.execute("INSERT INTO t VALUES (9)") }
        #expect(error?.isBusy == true)
        // Readers still read in rollback-journal mode under a RESERVED lock.
        #expect(try other.scalar("SELECT count(*) FROM t") == .integer(0))
        try db.rollback()
        try other.execute("INSERT INTO t VALUES (9)")
        #expect(try values(db) == [9])
    }

    @Test func exclusiveKeepsReadersOutInRollbackJournalMode() throws {
        let folder = TemporaryFolder()
        let db = try makeDB(folder)
        let other = try Database(path: folder.file("tx.sqlite"), busyTimeout: 0)
        try db.beginTransaction(.exclusive)
        let error = #expect(throws: DatabaseError.self) { try other.scalar("SELECT count(*) FROM t") }
        #expect(error?.isBusy == true)
        try db.commit()
        #expect(try other.scalar("SELECT count(*) FROM t") == .integer(0))
    }

    @Test func inTransactionCommitsAndReturnsTheResult() throws {
        let folder = TemporaryFolder()
        let db = try makeDB(folder)
        let result = try db.inTransaction { () -> String in
            #expect(db.isInTransaction)
            try db.execute("INSERT INTO t VALUES (1)")
            return "done"
        }
        #expect(result == "done")
        #expect(!db.isInTransaction)
        #expect(try values(Database(path: folder.file("tx.sqlite"))) == [1])
    }

    @Test(arguments: kinds)
    func inTransactionRollsBackOnThrowAndRethrows(_ kind: Database.TransactionKind) throws {
        let folder = TemporaryFolder()
        let db = try makeDB(folder)
        try db.execute("INSERT INTO t VALUES (1)")
        #expect(throws: Boom(tag: "outer")) {
            try db.inTransaction(kind) {
                try db.execute("INSERT INTO t VALUES (2)")
                try db.execute("UPDATE t SET x = 100 WHERE x = 1")
                throw Boom(tag: "outer")
            }
        }
        #expect(!db.isInTransaction)
        #expect(try values(db) == [1])
    }

    @Test func nestedInTransactionUndoesOnlyTheInnerWork() throws {
        let folder = TemporaryFolder()
        let db = try makeDB(folder)
        try db.inTransaction {
            try db.execute("INSERT INTO t VALUES (1)")
            #expect(throws: Boom(tag: "inner")) {
                try db.inTransaction {
                    try db.execute("INSERT INTO t VALUES (2)")
                    throw Boom(tag: "inner")
                }
            }
            #expect(db.isInTransaction, "the inner failure ended the outer transaction")
            try db.inTransaction { try db.execute("INSERT INTO t VALUES (3)") }
            try db.execute("INSERT INTO t VALUES (4)")
        }
        #expect(!db.isInTransaction)
        #expect(try values(Database(path: folder.file("tx.sqlite"))) == [1, 3, 4])
    }

    @Test func threeLevelsOfSavepoints() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE t(x INTEGER)")
        try db.inTransaction {
            try db.execute("INSERT INTO t VALUES (1)")
            try db.inTransaction {
                try db.execute("INSERT INTO t VALUES (2)")
                try? db.inTransaction {
                    try db.execute("INSERT INTO t VALUES (3)")
                    throw Boom(tag: "deepest")
                }
                try db.execute("INSERT INTO t VALUES (4)")
            }
        }
        #expect(try values(db) == [1, 2, 4])
    }

    @Test func outerThrowUndoesReleasedInnerWork() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE t(x INTEGER)")
        #expect(throws: Boom(tag: "outer")) {
            try db.inTransaction {
                try db.inTransaction { try db.execute("INSERT INTO t VALUES (1)") }
                throw Boom(tag: "outer")
            }
        }
        #expect(try values(db) == [])
    }

    @Test func savepointOutsideATransactionCommitsOnReturn() throws {
        let folder = TemporaryFolder()
        let db = try makeDB(folder)
        try db.inSavepoint { try db.execute("INSERT INTO t VALUES (5)") }
        #expect(!db.isInTransaction)
        #expect(throws: Boom(tag: "sp")) {
            try db.inSavepoint {
                try db.execute("INSERT INTO t VALUES (6)")
                throw Boom(tag: "sp")
            }
        }
        #expect(!db.isInTransaction)
        #expect(try values(Database(path: folder.file("tx.sqlite"))) == [5])
    }

    @Test func userVersionGetAndSet() throws {
        let folder = TemporaryFolder()
        let path = folder.file("v.sqlite")
        do {
            let db = try Database(path: path)
            #expect(try db.userVersion() == 0)
            try db.setUserVersion(42)
            #expect(try db.userVersion() == 42)
        }
        #expect(try Database(path: path).userVersion() == 42)
    }

    @Test func userVersionOnAnAttachedDatabase() throws {
        let folder = TemporaryFolder()
        let main = try Database(path: folder.file("main.sqlite"))
        let otherPath = folder.file("other db.sqlite")
        try main.attach(path: otherPath, as: "aux \"x\"")
        try main.setUserVersion(7, schema: "aux \"x\"")
        #expect(try main.userVersion(schema: "aux \"x\"") == 7)
        #expect(try main.userVersion() == 0)
        try main.detach("aux \"x\"")
        #expect(try Database(path: otherPath).userVersion() == 7)
    }

    @Test func attachAndDetach() throws {
        let folder = TemporaryFolder()
        let main = try Database(path: folder.file("main.sqlite"))
        let otherPath = folder.file("other.sqlite")
        try main.attach(path: otherPath, as: "aux")
        try main.execute("CREATE TABLE aux.notes(body TEXT)")
        try main.execute("INSERT INTO aux.notes VALUES ('in aux')")
        #expect(try main.scalar("SELECT body FROM aux.notes") == .text("in aux"))
        #expect(try main.scalar("SELECT count(*) FROM main.sqlite_master") == .integer(0))
        try main.detach("aux")
        #expect(throws: DatabaseError.self) { try main.query("SELECT body FROM aux.notes") }
        #expect(try Database(path: otherPath).scalar("SELECT body FROM notes") == .text("in aux"))
        #expect(throws: DatabaseError.self) { try main.detach("aux") }
    }

    @Test func quoteIdentifierDoublesQuotes() {
        #expect(Database.quoteIdentifier("plain") == "\"plain\"")
        #expect(Database.quoteIdentifier("my \"table\"") == "\"my \"\"table\"\"\"")
    }

    /// SQLite reads quotes byte by byte: a quote followed by a combining mark (one Swift
    /// `Character`) must still be doubled, or the literal ends there.
    @Test func quotedTextReadsBackByteForByteThroughSQLite() throws {
        let db = try Database.inMemory()
        for text in ["it's", "'\u{301}; select 1; --", "\"\u{301}x\"", "a'\u{301}'b", ""] {
            let literal = try db.scalar("SELECT \(Database.quoteLiteral(text))")
            guard case .text(let back) = literal else { Issue.record("\(text.debugDescription) read as \(literal)"); continue }
            #expect(Array(back.utf8) == Array(text.utf8), "literal of \(text.debugDescription)")
            #expect(DatabaseValue.text(text).description == Database.quoteLiteral(text))
            let names = try db.query("SELECT 1 AS \(Database.quoteIdentifier(text.isEmpty ? "x" : text))").first?.columnNames ?? []
            #expect(names.map { Array($0.utf8) } == [Array((text.isEmpty ? "x" : text).utf8)], "identifier \(text.debugDescription)")
        }
    }
}
