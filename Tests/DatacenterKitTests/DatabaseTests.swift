import Foundation
import Testing
@testable import DatacenterKit

/// Opening connections in each mode, and what each mode allows.
@Suite struct DatabaseTests {
    @Test func readWriteCreatesAMissingFile() throws {
        let folder = TemporaryFolder()
        let path = folder.file("new.sqlite")
        #expect(!FileManager.default.fileExists(atPath: path))
        let db = try Database(path: path)
        try db.execute("CREATE TABLE t(x)")
        try db.execute("INSERT INTO t VALUES (7)")
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(db.path == path)
        #expect(!db.isReadOnly)
        // Another connection sees the committed row: it really is in the file.
        let other = try Database(path: path, mode: .readWriteExisting)
        #expect(try other.scalar("SELECT x FROM t") == .integer(7))
    }

    @Test func readWriteExistingOnAMissingFileFailsWithoutCreatingIt() {
        let folder = TemporaryFolder()
        let path = folder.file("missing.sqlite")
        let error = #expect(throws: DatabaseError.self) { try Database(path: path, mode: .readWriteExisting) }
        #expect(error?.code == SQLiteCode.cantOpen)
        #expect(error?.description.contains(path) == true)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func readOnlyOnAMissingFileFails() {
        let folder = TemporaryFolder()
        let path = folder.file("missing.sqlite")
        #expect(throws: DatabaseError.self) { try Database(path: path, mode: .readOnly) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func readOnlyReadsButRefusesWritesNamingThePath() throws {
        let folder = TemporaryFolder()
        let path = folder.file("ro.sqlite")
        do {
            let db = try Database(path: path)
            try db.execute("CREATE TABLE t(x)")
            try db.execute("INSERT INTO t VALUES ('kept')")
        }
        let before = fileBytes(path)
        let ro = try Database(path: path, mode: .readOnly)
        #expect(ro.isReadOnly)
        #expect(try ro.scalar("SELECT x FROM t") == .text("kept"))

        for sql in ["INSERT INTO t VALUES ('new')", "CREATE TABLE u(y)", "DELETE FROM t", "PRAGMA user_version = 3"] {
            let error = #expect(throws: DatabaseError.self, "\(sql)") { try ro.execute(sql) }
            #expect(error?.isReadOnly == true, "\(sql): \(String(describing: error))")
            #expect(error?.description.contains(path) == true, "\(sql): \(String(describing: error))")
        }
        #expect(try ro.scalar("SELECT count(*) FROM t") == .integer(1))
        #expect(fileBytes(path) == before, "a read-only connection changed the file")
    }

    @Test func readOnlyOpenLeavesADeleteJournalModeFileUnchanged() throws {
        let folder = TemporaryFolder()
        let path = folder.file("journal.sqlite")
        do {
            let db = try makeSmallDatabase(at: path)
            #expect(try db.scalar("PRAGMA journal_mode", cached: false)?.stringValue?.lowercased() == "delete")
        }
        let before = fileBytes(path)
        #expect(before.count > 100)
        // Bytes 18 and 19 of the header are 1 in rollback-journal mode, 2 in WAL mode.
        #expect(before[18] == 1 && before[19] == 1)

        do {
            let ro = try Database(path: path, mode: .readOnly)
            #expect(try ro.scalar("SELECT count(*) FROM items") == .integer(50))
            try ro.enableWAL()   // documented to do nothing on a read-only connection
            let queue = try DatabaseQueue(path: path, mode: .readOnly)   // asks for WAL by default
            #expect(try queue.read { try $0.scalar("SELECT count(*) FROM items") } == .integer(50))
            let store = try Store(path: path, readOnly: true)
            #expect(try store.kv.allBusinesses().isEmpty)
        }

        let after = fileBytes(path)
        #expect(after == before, "the file changed")
        #expect(after[18] == 1 && after[19] == 1)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let check = try Database(path: path)
        #expect(try check.scalar("PRAGMA journal_mode", cached: false)?.stringValue?.lowercased() == "delete")
    }

    @Test func inMemoryDatabasesArePrivate() throws {
        let a = try Database.inMemory()
        let b = try Database.inMemory()
        #expect(a.path == ":memory:")
        try a.execute("CREATE TABLE t(x)")
        try a.execute("INSERT INTO t VALUES (1)")
        #expect(try a.scalar("SELECT count(*) FROM t") == .integer(1))
        #expect(throws: DatabaseError.self) { try b.scalar("SELECT count(*) FROM t") }
        // Nothing named ":memory:" appears on disk.
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/:memory:"))
    }

    @Test func temporaryDatabaseWorksAndIsPrivate() throws {
        let a = try Database.temporary()
        let b = try Database.temporary()
        #expect(a.path.isEmpty)
        try a.execute("CREATE TABLE t(x)")
        try a.inTransaction {
            for i in 0..<100 { try a.execute("INSERT INTO t VALUES (?)", [.integer(Int64(i))]) }
        }
        #expect(try a.scalar("SELECT sum(x) FROM t") == .integer(4950))
        #expect(throws: DatabaseError.self) { try b.scalar("SELECT count(*) FROM t") }
        // WAL is refused for a temporary database: enableWAL does nothing.
        try a.enableWAL()
        #expect(try a.scalar("PRAGMA journal_mode", cached: false)?.stringValue?.lowercased() != "wal")
    }

    @Test func enableWALSwitchesAFileToWAL() throws {
        let folder = TemporaryFolder()
        let db = try Database(path: folder.file("wal.sqlite"))
        try db.enableWAL()
        #expect(try db.scalar("PRAGMA journal_mode", cached: false) == .text("wal"))
        #expect(try db.scalar("PRAGMA synchronous", cached: false) == .integer(1))   // NORMAL
    }

    @Test func lastInsertRowIDAndChanges() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)")
        try db.execute("INSERT INTO t(name) VALUES ('a')")
        #expect(db.lastInsertRowID == 1)
        #expect(db.changes == 1)
        try db.execute("INSERT INTO t(id, name) VALUES (41, 'b')")
        #expect(db.lastInsertRowID == 41)
        try db.execute("INSERT INTO t(name) VALUES ('c')")
        #expect(db.lastInsertRowID == 42)
        try db.execute("UPDATE t SET name = 'x' WHERE id > 1")
        #expect(db.changes == 2)
        try db.execute("DELETE FROM t WHERE id = 999")
        #expect(db.changes == 0)
        #expect(db.totalChanges == 5)
        let rows = try db.query("SELECT id, name FROM t WHERE id = ?", [.integer(db.lastInsertRowID)])
        #expect(rows.count == 1)
        #expect(rows.first?["NAME"] == .text("x"))   // names compare case-insensitively
        #expect(rows.first?["missing"] == nil)
    }

    @Test func queryFirstScalarAndForEachRow() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE t(x INTEGER)")
        try db.execute("INSERT INTO t VALUES (1); INSERT INTO t VALUES (2); INSERT INTO t VALUES (3)")
        #expect(try db.queryFirst("SELECT x FROM t ORDER BY x DESC")?[0] == .integer(3))
        #expect(try db.queryFirst("SELECT x FROM t WHERE x > 10") == nil)
        #expect(try db.scalar("SELECT x FROM t WHERE x > 10") == nil)
        var seen: [Int64] = []
        try db.forEachRow("SELECT x FROM t ORDER BY x") { statement in
            seen.append(statement.value(at: 0).int64Value ?? -1)
            return seen.count < 2
        }
        #expect(seen == [1, 2])
    }

    /// The statement cache hands the same statement back for the same SQL (the last one
    /// asked for included), a new one once cleared, and never one of other SQL.
    @Test func cachedStatementsAreKeptPerSQLUntilCleared() throws {
        let db = try Database.inMemory()
        let one = try db.cachedStatement("SELECT 1")
        #expect(try db.cachedStatement("SELECT 1") === one)
        let two = try db.cachedStatement("SELECT 2")
        #expect(two !== one && two.sql == "SELECT 2")
        #expect(try db.cachedStatement("SELECT 1") === one)
        #expect(db.cachedStatementCount == 2)
        db.clearStatementCache()
        #expect(db.cachedStatementCount == 0)
        let again = try db.cachedStatement("SELECT 1")
        #expect(again !== one)
        #expect(db.cachedStatementCount == 1)
    }

    /// Texts and blobs bound from a `BindingScratch` are read in place: each row's values,
    /// of any length (one too long for the scratch falls back to a copy), come back as bound.
    @Test func textsBoundFromScratchReadBackAsBound() throws {
        let db = try Database.inMemory()
        try db.execute("create table t (seq integer primary key, a text, b text)")
        let statement = try db.cachedStatement("insert into t (a, b) values (?, ?)")
        let rows: [(String, String)] = [("a", "b"), ("", "é日本"), (String(repeating: "x", count: 70), "y"),
                                        (String(repeating: "w", count: 60), String(repeating: "v", count: 200))]
        var scratch = BindingScratch(capacity: 64)
        for (a, b) in rows {
            scratch.startRow()
            try statement.bind(.text(a), toParameter: 1, scratch: &scratch)
            try statement.bind(.text(b), toParameter: 2, scratch: &scratch)
            try statement.executeBound()
        }
        statement.clearBindings()
        let read = try db.query("select a, b from t order by seq").map { ($0[0].stringValue ?? "?", $0[1].stringValue ?? "?") }
        #expect(read.map(\.0) == rows.map(\.0))
        #expect(read.map(\.1) == rows.map(\.1))
        #expect(throws: DatabaseError.self) { try statement.bind(.text("x"), toParameter: 3, scratch: &scratch) }

        // Bytes the same way, one of them too long for the scratch.
        try db.execute("create table b (seq integer primary key, d blob)")
        let insertBlob = try db.cachedStatement("insert into b (d) values (?)")
        let blobs = [Data([1, 2, 3]), Data(), Data(repeating: 9, count: 100), Data([0, 255])]
        for blob in blobs {
            scratch.startRow()
            try insertBlob.bind(.blob(blob), toParameter: 1, scratch: &scratch)
            try insertBlob.executeBound()
        }
        insertBlob.clearBindings()
        let readBlobs = try db.query("select d from b order by seq").map { row -> Data in
            if case .blob(let d) = row[0] { return d }
            return Data() // an empty blob reads back as an empty blob or NULL
        }
        #expect(readBlobs == blobs)
    }

    /// A statement kept after its connection is released reports its errors from SQLite's
    /// connection, which lives until the statement goes (it read freed memory before).
    @Test func aStatementOutlivingItsDatabaseStillReportsErrors() throws {
        let statement = try Database.inMemory().makeStatement("SELECT ?")
        let error = #expect(throws: DatabaseError.self) { try statement.bind(.integer(1), toParameter: 5) }
        #expect(error?.code == SQLiteCode.range)
        #expect(error?.message.contains("out of range") == true, "\(String(describing: error?.message))")
        try statement.bind(.integer(7), toParameter: 1)
        var read: DatabaseValue?
        try statement.forEachBoundRow { read = $0.value(at: 0); return false }
        #expect(read == .integer(7))
    }

    /// When a scratch goes, the statements it lent memory to no longer point at it: their
    /// parameters read as NULL, not as whatever the freed memory holds.
    @Test func aScratchClearsTheBindingsItLentBeforeItsMemoryGoes() throws {
        let db = try Database.inMemory()
        let statement = try db.cachedStatement("SELECT ?, ?")
        do {
            var scratch = BindingScratch(capacity: 64)
            try statement.bind(.text("kept in scratch"), toParameter: 1, scratch: &scratch)
            try statement.bind(.blob(Data([1, 2, 3])), toParameter: 2, scratch: &scratch)
            var inside: [DatabaseValue] = []
            try statement.forEachBoundRow { inside = [$0.value(at: 0), $0.value(at: 1)]; return false }
            #expect(inside == [.text("kept in scratch"), .blob(Data([1, 2, 3]))])
            // The scratch is not cleared by hand here: it must do it itself.
        }
        var after: [DatabaseValue] = []
        try statement.forEachBoundRow { after = [$0.value(at: 0), $0.value(at: 1)]; return false }
        #expect(after == [.null, .null])
    }

    /// A FIFO, a device or a folder where a database should be is refused at once (SQLite
    /// would wait for ever on a FIFO's first read).
    @Test func whatIsNotARegularFileIsRefusedAtOnce() throws {
        let folder = TemporaryFolder()
        let fifo = folder.file("pipe.sqlite")
        #expect(mkfifo(fifo, 0o600) == 0)
        for path in [fifo, "/dev/zero", folder.path] {
            for mode in [Database.OpenMode.readOnly, .readWrite] {
                let error = #expect(throws: DatabaseError.self) { try Database(path: path, mode: mode) }
                #expect(error?.message.contains("not a regular file") == true, "\(path)")
            }
        }
    }

    @Test func makeStatementRefusesSeveralStatements() throws {
        let db = try Database.inMemory()
        let error = #expect(throws: DatabaseError.self) { try db.makeStatement("SELECT 1; SELECT 2") }
        #expect(error?.code == SQLiteCode.misuse)
        #expect(throws: DatabaseError.self) { try db.cachedStatement("SELECT 1; SELECT 2") }
        #expect(throws: DatabaseError.self) { try db.makeStatement("  -- only a comment") }
        #expect(try db.makeStatement("SELECT 1  ").isReadOnly)
    }

    @Test func syntaxErrorNamesTheSQL() throws {
        let db = try Database.inMemory()
        let error = #expect(throws: DatabaseError.self) { try db.execute("SELEKT 1") }
        #expect(error?.code == SQLiteCode.error)
        #expect(error?.sql == "SELEKT 1")
        #expect(error?.description.contains("SELEKT 1") == true)
    }
}

/// The busy timeout is a setting from the connection up to the data center, and a write
/// that gives up says how long it waited.
@Suite struct BusyTimeoutTests {
    @Test func aLockedWriteSaysHowLongItWaited() throws {
        let folder = TemporaryFolder()
        let path = folder.file("db.sqlite")
        let db = try Database(path: path, busyTimeout: 0.3)
        try db.execute("CREATE TABLE t(x)")
        let other = try Database(path: path)
        try other.execute("BEGIN EXCLUSIVE")
        defer { try? other.execute("ROLLBACK") }
        let error = #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
        #expect(error?.isBusy == true)
        let message = error?.message ?? ""
        #expect(message.contains("the busy timeout is 0.3 s"), "\(message)")
        // It waited at least the whole timeout (printed to a tenth); how much longer depends on
        // the machine's load, so no upper bound is asserted (the setting is read above).
        let waited = message.range(of: #"waited (\d+\.\d) s"#, options: .regularExpression)
            .flatMap { Double(message[$0].dropFirst("waited ".count).dropLast(" s".count)) }
        #expect((waited ?? 0) >= 0.3, "\(message)")
    }

    @Test func aDataCenterHandsItsTimeoutToEveryStore() throws {
        let folder = TemporaryFolder()
        let center = try DataCenter(rootPath: folder.file("root"), busyTimeout: 12)
        try center.setCurrentUserId("ann")
        #expect(try center.commonStore().queue.read { $0.busyTimeout } == 12)
        #expect(try center.store(forUser: "ann").queue.read { $0.busyTimeout } == 12)
        #expect(try Store(path: folder.file("s.sqlite"), busyTimeout: 0.5).queue.read { $0.busyTimeout } == 0.5)
    }
}
