import Foundation
import Testing
@testable import DatacenterKit

/// DBConnect's remaining switches: statement sequences atomic by default
/// (`createTransactionOnSQLSequences`, `rollbackSQLSequenceTransactionOnError`, a deferred
/// lock), new databases in UTF-16 (`defaultEncoding`), and NSLog format specifiers bound as
/// parameters.
@Suite struct DBConnectSwitchesTests {
    static let failingSequence = "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2); INSERT INTO nowhere VALUES (3)"

    func table(_ db: Database) throws -> [Int64] {
        try db.query("SELECT x FROM t ORDER BY x").compactMap { $0[0].int64Value }
    }

    /// DBConnect's headline example, as written: one call, five statements, thirteen values,
    /// `?1` reused in every insert. Numbered parameters are the call's values by number
    /// across the whole sequence (they were once counted statement by statement, so the third
    /// insert got 2 values for 10 parameters and the sequence rolled back).
    @Test func numberedParametersCountAcrossTheSequence() throws {
        let db = try Database.inMemory()
        try db.execute("""
            DROP TABLE IF EXISTS test; CREATE TABLE IF NOT EXISTS test (pid INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, \
            pType TEXT NOT NULL, pTitle TEXT, \
            loc_lat FLOAT NOT NULL, loc_lon FLOAT NOT NULL); \
            CREATE UNIQUE INDEX locationIndex ON test (loc_lat, loc_lon); \
            INSERT INTO test (pType, pTitle, loc_lat, loc_lon) VALUES ( ?1, ?2, ?3, ?4 ); \
            INSERT INTO test (pType, pTitle, loc_lat, loc_lon) VALUES ( ?1, ?5, ?6, ?7 ); \
            INSERT INTO test (pType, pTitle, loc_lat, loc_lon) VALUES ( ?1, ?8, ?9, ?10 ); \
            INSERT INTO test (pType, pTitle, loc_lat, loc_lon) VALUES ( ?1, ?11, ?12, ?13 );
            """, StatementArguments([.text("City"), .text("Cupertino"), .real(37.3261), .real(-122.0320),
                                     .text("New York"), .real(40.724), .real(-74.06),
                                     .text("Dnepropetrovsk"), .real(48.47), .real(35.050),
                                     .text("Kiev"), .real(50.457), .real(30.525)]))
        let rows = try db.query("SELECT pType, pTitle, loc_lat FROM test ORDER BY pid")
        #expect(rows.map { $0[0].stringValue } == ["City", "City", "City", "City"])
        #expect(rows.map { $0[1].stringValue } == ["Cupertino", "New York", "Dnepropetrovsk", "Kiev"])
        #expect(rows.map { $0[2].doubleValue } == [37.3261, 40.724, 48.47, 50.457])
        // Anonymous parameters still take the next values in line, statement by statement.
        try db.execute("CREATE TABLE t (x INTEGER)")
        try db.execute("INSERT INTO t VALUES (?); INSERT INTO t VALUES (?), (?)", StatementArguments([.integer(1), .integer(2), .integer(3)]))
        #expect(try table(db) == [1, 2, 3])
        // A value no statement takes is still an error, whichever way they count.
        #expect(throws: DatabaseError.self) {
            try db.execute("INSERT INTO t VALUES (?1); INSERT INTO t VALUES (?1)", StatementArguments([.integer(4), .integer(5)]))
        }
        #expect(try table(db) == [1, 2, 3])
    }

    /// The reference's defaults, pinned: a sequence that fails keeps nothing, through
    /// `execute` and `executeScript` alike.
    @Test func aFailingSequenceKeepsNothingByDefault() throws {
        let db = try Database.inMemory()
        #expect(db.sqlSequences == SQLSequenceOptions(createsTransaction: true, rollsBackOnError: true, lock: .deferred))
        try db.execute("CREATE TABLE t (x INTEGER)")
        #expect(throws: DatabaseError.self) { try db.execute(Self.failingSequence) }
        #expect(try table(db).isEmpty)
        #expect(throws: DatabaseError.self) { try db.executeScript(Self.failingSequence) }
        #expect(try table(db).isEmpty)
        #expect(!db.isInTransaction)
        try db.execute("INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)")
        #expect(try table(db) == [1, 2])
    }

    @Test func theSwitchesKeepWhatRanBeforeTheFailure() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE t (x INTEGER)")
        db.sqlSequences.rollsBackOnError = false
        #expect(throws: DatabaseError.self) { try db.execute(Self.failingSequence) }
        #expect(try table(db) == [1, 2], "committed up to the failure")
        #expect(!db.isInTransaction)
        try db.execute("DELETE FROM t")
        db.sqlSequences = SQLSequenceOptions(createsTransaction: false)
        #expect(throws: DatabaseError.self) { try db.executeScript(Self.failingSequence) }
        #expect(try table(db) == [1, 2], "each statement on its own")
    }

    /// A script with its own transaction, or a statement SQLite runs only outside one, runs
    /// as written; so does a sequence inside a caller's transaction (undone with it).
    @Test func scriptsThatCannotBeWrappedRunAsWritten() throws {
        let folder = TemporaryFolder()
        let db = try Database(path: folder.file("s.db"))
        try db.execute("CREATE TABLE t (x INTEGER)")
        try db.executeScript("BEGIN; INSERT INTO t VALUES (1); COMMIT; INSERT INTO t VALUES (2)")
        #expect(try table(db) == [1, 2])
        try db.executeScript("PRAGMA journal_mode = WAL; INSERT INTO t VALUES (3)")
        #expect(try db.scalar("PRAGMA journal_mode", cached: false) == .text("wal"))
        try db.execute("INSERT INTO t VALUES (4); VACUUM")
        #expect(try table(db) == [1, 2, 3, 4])
        #expect(throws: DatabaseError.self) {
            try db.inTransaction { try db.execute("DELETE FROM t; INSERT INTO t VALUES (5); INSERT INTO nowhere VALUES (6)") }
        }
        #expect(try table(db) == [1, 2, 3, 4])
    }

    @Test func aNewDatabaseTakesTheDefaultEncodingAnOldOneKeepsItsOwn() throws {
        let folder = TemporaryFolder()
        let path = folder.file("u16.db")
        do {
            let db = try Database(path: path, defaultEncoding: .utf16le)
            try db.execute("CREATE TABLE t (s TEXT)")
            try db.execute("INSERT INTO t VALUES ('héllo 😀')")
        }
        #expect(try sqlite3Shell(path, "PRAGMA encoding") == "UTF-16le")
        #expect(try sqlite3Shell(path, "SELECT s FROM t") == "héllo 😀")
        let again = try Database(path: path, defaultEncoding: .utf8)
        #expect(try again.scalar("PRAGMA encoding", cached: false) == .text("UTF-16le"))
        let plain = folder.file("u8.db")
        _ = try Database(path: plain).execute("CREATE TABLE t (s)")
        #expect(try Database(path: plain, defaultEncoding: .utf16be).scalar("PRAGMA encoding", cached: false) == .text("UTF-8"))
    }

    @Test func formatSpecifiersAreBoundNeverWrittenIntoTheText() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE test (pType TEXT, pTitle TEXT, loc_lat FLOAT, loc_lon FLOAT)")
        // The reference's example.
        try db.execute(format: "INSERT INTO test (pType, pTitle, loc_lat, loc_lon) VALUES ( %s, %@, %f, %d );",
                       "City", "Denver", .real(40.2338), -76)
        try db.execute(format: "INSERT INTO test VALUES (%@, %@, %lf, %lld)", "x'); DROP TABLE test; --", .null, 1, 2)
        let rows = try db.query(format: "SELECT pTitle FROM test WHERE loc_lat > %d AND loc_lat < %d AND pType LIKE '%i%%' ORDER BY 1", 0, 41)
        #expect(rows.map { $0[0] } == [.text("Denver")])
        #expect(try db.query(format: "SELECT count(*) FROM test WHERE pType = %@", "x'); DROP TABLE test; --").first?[0] == .integer(1))
        #expect(try db.query(format: "SELECT 100 %% 7").first?[0] == .integer(2))
        #expect(try db.query(format: "SELECT '%d' /* %d */ -- %d\n, %d", 5).first?.values == [.text("%d"), .integer(5)])
        for (format, values, reason) in [("SELECT %d", [DatabaseValue.text("1")], "takes an integer"), ("SELECT %f", [.text("x")], "takes a number"),
                                         ("SELECT %d, %d", [.integer(1)], "has no value"), ("SELECT %d", [.integer(1), .integer(2)], "2 value(s) given"),
                                         ("SELECT %p", [.integer(1)], "not a format specifier")] {
            #expect { _ = try FormatBinding.bind(format, values, path: "") } throws: { "\($0)".contains(reason) }
        }
    }
}
