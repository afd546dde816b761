import CPageCipher
import Foundation
import Testing
@testable import DatacenterKit

/// Hot rollback journals left by a crash mid-transaction, rolled back across implementations:
/// SQLCipher checksums each journal record over the page as stored (its ciphertext), and so
/// must we, or each side stops replaying the other's journal at its first record and keeps
/// part of a transaction that never committed.
@Suite(.enabled(if: SQLCipherReference.isAvailable,
                "SQLCipher reference missing: run `make test` to create .build/sqlcipher-venv"))
struct SQLCipherJournalTests {
    static let passphrase = "journal interop"
    static let rows = 3000
    /// The uncommitted update: every row, with a cache so small that most changed pages are
    /// written into the database file before the crash (only the journal can undo them).
    static let update = "UPDATE t SET v = 'CHANGED-' || id, pad = randomblob(210)"
    /// What a correct rollback leaves: every row, none changed, and a sound file.
    static let check = "SELECT count(*), (SELECT count(*) FROM t WHERE v LIKE 'CHANGED-%'), (SELECT integrity_check FROM pragma_integrity_check) FROM t"
    static var expected: String { "\(rows)|0|ok" }

    /// SQLCipher fills `path` in rollback-journal mode and commits, then runs the update in a
    /// transaction with a 2-page cache and copies the database and its journal to `copy`
    /// while the transaction is open, as a crash would leave them.
    static func sqlcipherCrashesMidUpdate(path: String, copy: String, format: DatabaseCipherFormat) throws -> (status: Int32, output: String) {
        let program = """
        import sys, os, shutil, sqlcipher3
        path, copy, key, compat, rows, update = sys.argv[1:7]
        db = sqlcipher3.connect(path, isolation_level=None)
        db.execute("PRAGMA key = '" + key + "'")
        if compat == "3":
            db.execute("PRAGMA cipher_compatibility = 3")
        db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT, pad BLOB)")
        db.execute("BEGIN")
        for i in range(int(rows)):
            db.execute("INSERT INTO t(v, pad) VALUES (?, randomblob(200))", ("row %d" % i,))
        db.execute("COMMIT")
        db.execute("PRAGMA cache_size = 2")
        db.execute("BEGIN")
        db.execute(update)
        for suffix in ["", "-journal"]:
            shutil.copyfile(path + suffix, copy + suffix)
        print(os.path.getsize(path + "-journal"))
        """
        return try SQLCipherReference.run(["-c", program, path, copy, passphrase, String(format.rawValue), String(rows), update])
    }

    /// The same crash, written by this engine.
    static func weCrashMidUpdate(path: String, key: DatabaseKey, into folder: TemporaryFolder) throws -> String {
        let db = try Database(path: path, key: key)
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT, pad BLOB)")
        try db.execute("BEGIN")
        for i in 0..<rows { try db.execute("INSERT INTO t(v, pad) VALUES (?, randomblob(200))", [.text("row \(i)")]) }
        try db.execute("COMMIT")
        try db.execute("PRAGMA cache_size = 2")
        try db.execute("BEGIN")
        try db.execute(update)
        let journal = try FileManager.default.attributesOfItem(atPath: path + "-journal")[.size] as? Int ?? 0
        #expect(journal > 20 * key.format.pageSize, "the update should have spilled pages, journaled first")
        let copy = try EncryptedDatabaseTests.crashCopy(path, suffixes: ["-journal"], into: folder)
        try db.execute("ROLLBACK")
        return copy
    }

    @Test(arguments: DatabaseCipherFormat.allCases)
    func theirHotJournalIsRolledBackHereExactly(format: DatabaseCipherFormat) throws {
        let folder = TemporaryFolder()
        let copy = folder.file("copy.sqlite")
        let made = try Self.sqlcipherCrashesMidUpdate(path: folder.file("theirs.sqlite"), copy: copy, format: format)
        #expect(made.status == 0, "\(made.output)")
        let db = try Database(path: copy, key: .passphrase(Self.passphrase, format: format))
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(Int64(Self.rows)))
        #expect(try db.scalar("SELECT count(*) FROM t WHERE v LIKE 'CHANGED-%'") == .integer(0))
        #expect(try db.scalar("SELECT v FROM t WHERE id = \(Self.rows)") == .text("row \(Self.rows - 1)"))
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
        #expect(!FileManager.default.fileExists(atPath: copy + "-journal"), "the journal should be rolled back and gone")
        // And SQLCipher agrees with what the rollback left.
        let read = try SQLCipherReference.query(path: copy, keyLiteral: "'\(Self.passphrase)'", compatibility: Int(format.rawValue),
                                                sql: Self.check + "; PRAGMA cipher_integrity_check")
        #expect(read.status == 0 && read.output == Self.expected, "\(read.output)")
    }

    @Test(arguments: DatabaseCipherFormat.allCases)
    func ourHotJournalIsRolledBackBySQLCipherExactly(format: DatabaseCipherFormat) throws {
        let folder = TemporaryFolder()
        let copy = try Self.weCrashMidUpdate(path: folder.file("ours.sqlite"), key: .passphrase(Self.passphrase, format: format),
                                             into: folder)
        let read = try SQLCipherReference.query(path: copy, keyLiteral: "'\(Self.passphrase)'", compatibility: Int(format.rawValue),
                                                sql: Self.check + "; PRAGMA cipher_integrity_check")
        #expect(read.status == 0 && read.output == Self.expected, "\(read.output)")
        #expect(!FileManager.default.fileExists(atPath: copy + "-journal"))
    }

    @Test func ourHotJournalIsRolledBackHereExactly() throws {
        let folder = TemporaryFolder()
        let key = try DatabaseKey.passphrase(Self.passphrase)
        let copy = try Self.weCrashMidUpdate(path: folder.file("ours.sqlite"), key: key, into: folder)
        let db = try Database(path: copy, key: key)
        #expect(try db.scalar("SELECT count(*) FROM t WHERE v LIKE 'CHANGED-%'") == .integer(0))
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(Int64(Self.rows)))
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
    }

    /// A journal whose records hold together (their checksums are right) but whose pages do
    /// not authenticate under the database's key was written for another file: rolling it
    /// back would write pages nobody can read. It is refused and named, and the database is
    /// left as it was.
    @Test func aHotJournalOfAnotherKeyIsNamedAndNotReplayed() throws {
        let folder = TemporaryFolder()
        let other = try Self.weCrashMidUpdate(path: folder.file("other.sqlite"), key: .passphrase("another key"), into: folder)
        // A database of the same shape under our key, with the other file's journal beside it.
        let path = folder.file("mine.sqlite")
        let key = try DatabaseKey.passphrase(Self.passphrase)
        do {
            let db = try Database(path: path, key: key)
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT, pad BLOB)")
            try db.execute("INSERT INTO t(v) VALUES ('mine')")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        try FileManager.default.copyItem(atPath: other + "-journal", toPath: path + "-journal")
        let error = #expect(throws: DatabaseError.self) {
            let db = try Database(path: path, key: key)
            _ = try db.scalar("SELECT count(*) FROM t")
        }
        #expect(error?.isForeignJournal == true, "\(String(describing: error)) \(String(describing: error?.extendedCode)) \(String(describing: error?.failedPage))")
        #expect(error?.description.contains("the rollback journal beside \(path)") == true, "\(String(describing: error))")
        #expect(error?.description.contains("the database is intact") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "nothing may be written into the database")
        // Moved away, the database opens as it was.
        try FileManager.default.moveItem(atPath: path + "-journal", toPath: folder.file("moved-journal"))
        #expect(try Database(path: path, key: key).scalar("SELECT v FROM t") == .text("mine"))
    }

    /// `db info` on a file with another file's journal beside it says the journal is foreign
    /// and the file intact (as the open does), never that the file is damaged; the file and
    /// the journal are left as they were.
    @Test func infoCallsAForeignJournalForeignNotTheFileDamaged() throws {
        let folder = TemporaryFolder()
        let other = try Self.weCrashMidUpdate(path: folder.file("other.sqlite"), key: .passphrase("another key"), into: folder)
        let path = folder.file("mine.sqlite")
        let key = try DatabaseKey.passphrase(Self.passphrase)
        do {
            let db = try Database(path: path, key: key)
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT, pad BLOB)")
        }
        try FileManager.default.copyItem(atPath: other + "-journal", toPath: path + "-journal")
        let before = try Data(contentsOf: URL(fileURLWithPath: path)), journal = try Data(contentsOf: URL(fileURLWithPath: path + "-journal"))
        let info = try DatabaseFileInfo.of(path: path, keys: DatabaseKeyList([key]))
        guard case .foreignJournal(let reason) = info.state else {
            Issue.record("state \(info.state)")
            return
        }
        #expect(reason.contains("the rollback journal beside \(path) was not written for it"), "\(reason)")
        #expect(reason.contains("the database is intact"), "\(reason)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "-journal")) == journal)
    }

    /// A torn last record (its checksum fails) ends the rollback there, as in SQLite: the
    /// records before it are replayed, and nothing is blamed on the key.
    @Test func aTornLastRecordEndsTheRollbackThere() throws {
        let folder = TemporaryFolder()
        let key = try DatabaseKey.passphrase(Self.passphrase)
        let copy = try Self.weCrashMidUpdate(path: folder.file("ours.sqlite"), key: key, into: folder)
        // Cut the journal inside its last record's page.
        let journal = copy + "-journal"
        let size = try FileManager.default.attributesOfItem(atPath: journal)[.size] as! Int
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: journal))
        try handle.truncate(atOffset: UInt64(size - 300))
        try handle.close()
        let db = try Database(path: copy, key: key)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(Int64(Self.rows)))
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
    }
}

/// A transaction that spills its cache into an encrypted WAL rewrites the checksums of the
/// frames it wrote before the commit; reading them in order must cost one frame each, not a
/// walk of the WAL from its start per frame (which never finished on a large update).
@Suite struct EncryptedWALSpillTests {
    @Test func aSpilledUpdateOfAnIndexedColumnCommitsWithoutWalkingTheWAL() throws {
        let folder = TemporaryFolder()
        let path = folder.file("spill.sqlite")
        let key = try DatabaseKey.passphrase("spill")
        let db = try Database(path: path, key: key)
        try db.enableWAL()
        try db.execute("PRAGMA wal_autocheckpoint = 0")
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
        try db.execute("CREATE INDEX t_v ON t(v)")
        try db.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
            INSERT INTO t(v) SELECT 'value ' || i FROM n
            """)
        try db.execute("PRAGMA cache_size = 10")
        let before = dc_cipher_wal_chain_walk_frames()
        try db.execute("UPDATE t SET v = 'CHANGED-' || id")
        let walked = dc_cipher_wal_chain_walk_frames() - before
        let walFrames = (try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as! Int) / (4096 + 24)
        // At most one walk from the start (for the first frame rewritten), never one per frame.
        #expect(walked <= walFrames, "walked \(walked) frames for a WAL of \(walFrames)")
        #expect(try db.scalar("SELECT count(*) FROM t WHERE v LIKE 'CHANGED-%'") == .integer(20000))
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
        // Recovered from a crash copy (no -shm), every committed row is there.
        let copy = try EncryptedDatabaseTests.crashCopy(path, suffixes: ["-wal"], into: folder)
        let recovered = try Database(path: copy, key: key)
        #expect(try recovered.scalar("SELECT count(*) FROM t WHERE v LIKE 'CHANGED-%'") == .integer(20000))
        #expect(try recovered.scalar("PRAGMA integrity_check") == .text("ok"))
        if SQLCipherReference.isAvailable {
            let read = try SQLCipherReference.query(path: copy, keyLiteral: "'spill'", compatibility: 4,
                                                    sql: "SELECT count(*) FROM t WHERE v LIKE 'CHANGED-%'; PRAGMA cipher_integrity_check")
            #expect(read.status == 0 && read.output == "20000", "\(read.output)")
        }
    }
}
