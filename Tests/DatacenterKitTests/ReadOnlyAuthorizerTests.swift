import Foundation
import Testing
@testable import DatacenterKit

/// Read-only means read-only: a read-only connection refuses every statement that could write
/// or create a file, and still answers the pragmas that read.
@Suite struct ReadOnlyAuthorizerTests {
    static func setUp(_ folder: TemporaryFolder) throws -> (Database, String) {
        let path = folder.file("ro.sqlite")
        try Database(path: path).execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        return (try Database(path: path, mode: .readOnly), path)
    }

    @Test(arguments: ["VACUUM INTO '%@'", "ATTACH '%@' AS other", "PRAGMA journal_mode = WAL", "PRAGMA user_version = 5",
                      "PRAGMA wal_checkpoint(TRUNCATE)", "PRAGMA main.application_id = 7", "SELECT load_extension('%@')"])
    func aStatementThatCouldWriteAFileIsRefused(sql: String) throws {
        let folder = TemporaryFolder()
        let (db, path) = try Self.setUp(folder)
        let target = folder.file("written.sqlite")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: DatabaseError.self) { try db.execute(sql.replacingOccurrences(of: "%@", with: target)) }
        // (load_extension is also off in SQLite unless enabled: refused either way.)
        if !sql.contains("load_extension") {
            #expect(error?.description.contains("is open read-only") == true, "\(String(describing: error))")
        }
        #expect(!FileManager.default.fileExists(atPath: target), "\(sql) created \(target)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try db.scalar("PRAGMA user_version") == .integer(0))
    }

    @Test func pragmasThatReadOrTuneTheConnectionStillRun() throws {
        let folder = TemporaryFolder()
        let (db, _) = try Self.setUp(folder)
        #expect(try db.query("PRAGMA table_info(t)").count == 1)
        #expect(try db.scalar("PRAGMA quick_check(5)") == .text("ok"))
        try db.execute("PRAGMA cache_size = -4096")
        #expect(try db.scalar("PRAGMA cache_size") == .integer(-4096))
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(1))
        // A read-write connection is not limited.
        let writable = try Database(path: folder.file("rw.sqlite"))
        try writable.execute("PRAGMA user_version = 5")
        #expect(try writable.scalar("PRAGMA user_version") == .integer(5))
    }
}
