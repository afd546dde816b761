import Foundation
import Testing
@testable import DatacenterKit

/// `backup(to:)` and `makeMutable(at:)`.
@Suite struct BackupTests {
    @Test func backupCopiesEverythingAndLeavesTheSourceAlone() throws {
        let folder = TemporaryFolder()
        let source = try makeSmallDatabase(at: folder.file("source.sqlite"), rows: 30)
        try source.setUserVersion(3)
        let copyPath = folder.file("copy.sqlite")
        try source.backup(to: copyPath)

        let copy = try Database(path: copyPath, mode: .readOnly)
        #expect(try copy.scalar("SELECT count(*) FROM items") == .integer(30))
        #expect(try copy.scalar("SELECT name FROM items WHERE id = 30") == .text("item 29"))
        #expect(try copy.userVersion() == 3)

        // The two are independent files.
        try source.execute("DELETE FROM items")
        #expect(try copy.scalar("SELECT count(*) FROM items") == .integer(30))
        #expect(source.path == folder.file("source.sqlite"))
    }

    @Test func backupOfAWALDatabaseIncludesUncheckpointedWrites() throws {
        let folder = TemporaryFolder()
        let source = try Database(path: folder.file("wal.sqlite"))
        try source.enableWAL()
        try source.execute("CREATE TABLE t(x)")
        try source.execute("INSERT INTO t VALUES ('only in the WAL so far')")
        try source.backup(to: folder.file("copy.sqlite"))
        let copy = try Database(path: folder.file("copy.sqlite"), mode: .readOnly)
        #expect(try copy.scalar("SELECT x FROM t") == .text("only in the WAL so far"))
    }

    @Test func backupRefusesAnExistingDestinationUnlessOverwriting() throws {
        let folder = TemporaryFolder()
        let source = try makeSmallDatabase(at: folder.file("source.sqlite"), rows: 5)
        let destination = folder.file("dest.sqlite")
        do {
            let existing = try Database(path: destination)
            try existing.execute("CREATE TABLE old(y)")
        }
        let error = #expect(throws: DatabaseError.self) { try source.backup(to: destination) }
        #expect(error?.description.contains(destination) == true)
        #expect(try Database(path: destination).scalar("SELECT count(*) FROM sqlite_master WHERE name = 'old'") == .integer(1))

        try source.backup(to: destination, overwrite: true)
        let copy = try Database(path: destination)
        #expect(try copy.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'old'") == .integer(0))
        #expect(try copy.scalar("SELECT count(*) FROM items") == .integer(5))
    }

    @Test func backupOfAnInMemoryDatabaseWritesAFile() throws {
        let folder = TemporaryFolder()
        let memory = try Database.inMemory()
        try memory.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
        try memory.backup(to: folder.file("from-memory.sqlite"))
        #expect(try Database(path: folder.file("from-memory.sqlite")).scalar("SELECT sum(x) FROM t") == .integer(3))
    }

    @Test func makeMutableMovesTheConnectionToAWritableCopy() throws {
        let folder = TemporaryFolder()
        let bundled = folder.file("bundled.sqlite")
        try makeSmallDatabase(at: bundled, rows: 10)
        let originalBytes = fileBytes(bundled)

        let db = try Database(path: bundled, mode: .readOnly)
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO items(name) VALUES ('x')") }
        let writable = folder.file("writable/app.sqlite")
        try FileManager.default.createDirectory(atPath: folder.file("writable"), withIntermediateDirectories: true)
        try db.makeMutable(at: writable)

        #expect(db.path == writable)
        #expect(!db.isReadOnly)
        #expect(try db.scalar("SELECT count(*) FROM items") == .integer(10))
        try db.execute("INSERT INTO items(name) VALUES ('written after the move')")

        // The write landed in the new file, and the original is byte for byte unchanged.
        let check = try Database(path: writable, mode: .readOnly)
        #expect(try check.scalar("SELECT count(*) FROM items") == .integer(11))
        #expect(try check.scalar("SELECT name FROM items ORDER BY id DESC LIMIT 1") == .text("written after the move"))
        #expect(fileBytes(bundled) == originalBytes)
        #expect(try Database(path: bundled, mode: .readOnly).scalar("SELECT count(*) FROM items") == .integer(10))
    }

    /// A query repeated after the move reads the new file (the last cached statement used to
    /// keep reading the old one), and the busy timeout given at open still holds.
    @Test func makeMutableLeavesNothingOnTheOldFile() throws {
        let folder = TemporaryFolder()
        _ = try makeSmallDatabase(at: folder.file("bundled.sqlite"), rows: 1)
        let db = try Database(path: folder.file("bundled.sqlite"), mode: .readOnly, busyTimeout: 0.2)
        let count = "SELECT count(*) FROM items"
        #expect(try db.scalar(count) == .integer(1))
        let writable = folder.file("app.sqlite")
        try db.makeMutable(at: writable)
        try db.execute("INSERT INTO items(name) VALUES ('second')")
        #expect(try db.scalar(count) == .integer(2))
        #expect(db.busyTimeout == 0.2)
        // Another connection holds the write lock: the write gives up after the configured
        // 0.2 s, not the default 5 s.
        let other = try Database(path: writable)
        try other.execute("BEGIN EXCLUSIVE")
        let started = Date()
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO items(name) VALUES ('blocked')") }
        #expect(Date().timeIntervalSince(started) < 2.5)
        try other.execute("ROLLBACK")
    }

    @Test func makeMutableRefusesWhileAStatementIsHeld() throws {
        let folder = TemporaryFolder()
        let db = try makeSmallDatabase(at: folder.file("a.sqlite"), rows: 2)
        var kept: Statement? = try db.makeStatement("SELECT count(*) FROM items")
        let error = #expect(throws: DatabaseError.self) { try db.makeMutable(at: folder.file("b.sqlite")) }
        #expect(error?.message.contains("still held") == true)
        #expect(!FileManager.default.fileExists(atPath: folder.file("b.sqlite")))
        #expect(db.path == folder.file("a.sqlite"))
        kept = nil
        withExtendedLifetime(kept) {}
        try db.makeMutable(at: folder.file("b.sqlite"))
        #expect(db.path == folder.file("b.sqlite"))
    }

    @Test func makeMutableRefusesAnExistingDestinationAndKeepsTheConnection() throws {
        let folder = TemporaryFolder()
        let db = try makeSmallDatabase(at: folder.file("a.sqlite"), rows: 2)
        let destination = folder.file("b.sqlite")
        try Database(path: destination).execute("CREATE TABLE other(z)")
        #expect(throws: DatabaseError.self) { try db.makeMutable(at: destination) }
        #expect(db.path == folder.file("a.sqlite"))
        #expect(try db.scalar("SELECT count(*) FROM items") == .integer(2))
    }

    @Test func makeMutableRefusesInMemoryAndTemporaryDatabases() throws {
        let folder = TemporaryFolder()
        for db in [try Database.inMemory(), try Database.temporary()] {
            let error = #expect(throws: DatabaseError.self) { try db.makeMutable(at: folder.file("x.sqlite")) }
            #expect(error?.code == SQLiteCode.misuse)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("x.sqlite")))
    }
}
