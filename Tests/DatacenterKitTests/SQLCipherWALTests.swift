import Foundation
import Testing
@testable import DatacenterKit

/// WAL files left uncheckpointed (as a crash or a running app leaves them), recovered across
/// implementations: SQLCipher checksums frames over their ciphertext, and so must we.
@Suite(.enabled(if: SQLCipherReference.isAvailable,
                "SQLCipher reference missing: run `make test` to create .build/sqlcipher-venv"))
struct SQLCipherWALTests {
    static let passphrase = "wal interop"

    /// The writes both sides make: single-row commits, then one transaction big enough to
    /// spill its cache into the WAL and write some pages again in place (SQLite then
    /// rewrites the checksums of the frames it already wrote).
    static let commits = (0..<5).map { "INSERT INTO t(name, pad) VALUES ('commit \($0)', randomblob(500))" }
    static let bulk = """
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
        INSERT INTO t(name, pad) SELECT 'bulk ' || i, randomblob(300) FROM n;
        UPDATE t SET name = 'twice' WHERE id <= 50;
        UPDATE t SET pad = randomblob(310) WHERE id <= 300
        """

    /// Runs SQLCipher on `path` in WAL mode without checkpoints: `statements` one commit
    /// each, then `bulk` in one spilled transaction unless empty; copies the database and its
    /// WAL to `copy` while the connection is still open, as a crash would leave them.
    static func sqlcipherWrites(path: String, copy: String, compatibility: Int,
                                statements: [String], bulk: String) throws -> (status: Int32, output: String) {
        let program = """
        import sys, shutil, sqlcipher3
        path, copy, key, compat, bulk = sys.argv[1:6]
        statements = sys.argv[6:]
        db = sqlcipher3.connect(path, isolation_level=None)
        db.execute("PRAGMA key = '" + key + "'")
        if compat == "3":
            db.execute("PRAGMA cipher_compatibility = 3")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA wal_autocheckpoint = 0")
        db.execute("CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, name TEXT, pad BLOB)")
        for sql in statements:
            db.execute(sql)
        if bulk:
            db.execute("PRAGMA cache_size = 2")
            db.execute("BEGIN")
            for sql in bulk.split(";"):
                db.execute(sql)
            db.execute("COMMIT")
        for suffix in ["", "-wal"]:
            shutil.copyfile(path + suffix, copy + suffix)
        print(db.execute("SELECT count(*) FROM t").fetchone()[0])
        """
        return try SQLCipherReference.run(["-c", program, path, copy, passphrase, String(compatibility), bulk] + statements)
    }

    /// Reads `query` in SQLCipher from `path` (recovering its WAL if the -shm is gone).
    static func sqlcipherReads(path: String, compatibility: Int, query: String) throws -> (status: Int32, output: String) {
        try SQLCipherReference.execute(path: path, keyLiteral: "'\(passphrase)'", compatibility: compatibility, query: query)
    }

    /// Writes the same as `sqlcipherWrites`, here, and returns a crash copy of the files.
    static func ourWrites(path: String, key: DatabaseKey, into folder: TemporaryFolder) throws -> String {
        let db = try Database(path: path, key: key)
        try db.enableWAL()
        try db.execute("PRAGMA wal_autocheckpoint = 0")
        try db.execute("CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, name TEXT, pad BLOB)")
        for sql in commits { try db.execute(sql) }
        try db.execute("PRAGMA cache_size = 2")
        try db.execute("BEGIN")
        try db.execute(bulk)
        try db.execute("COMMIT")
        let wal = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        #expect(wal > 20 * key.format.pageSize, "the bulk transaction should have gone to the WAL")
        return try EncryptedDatabaseTests.crashCopy(path, suffixes: ["-wal"], into: folder)
    }

    @Test(arguments: DatabaseCipherFormat.allCases)
    func theirUncheckpointedWALIsRecoveredHere(format: DatabaseCipherFormat) throws {
        let folder = TemporaryFolder()
        let copy = folder.file("copy.sqlite")
        let made = try Self.sqlcipherWrites(path: folder.file("theirs.sqlite"), copy: copy,
                                            compatibility: Int(format.rawValue), statements: Self.commits, bulk: Self.bulk)
        #expect(made.status == 0, "\(made.output)")
        #expect(made.output == "305")
        let db = try Database(path: copy, key: .passphrase(Self.passphrase, format: format), mode: .readWriteExisting)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(305))
        #expect(try db.scalar("SELECT count(*) FROM t WHERE name = 'twice'") == .integer(50))
        #expect(try db.scalar("SELECT name FROM t WHERE id = 5") == .text("twice"))
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
    }

    @Test(arguments: DatabaseCipherFormat.allCases)
    func ourUncheckpointedWALIsRecoveredBySQLCipher(format: DatabaseCipherFormat) throws {
        let folder = TemporaryFolder()
        let copy = try Self.ourWrites(path: folder.file("ours.sqlite"), key: .passphrase(Self.passphrase, format: format),
                                      into: folder)
        let read = try Self.sqlcipherReads(
            path: copy, compatibility: Int(format.rawValue),
            query: "SELECT count(*), (SELECT count(*) FROM t WHERE name = 'twice'), (SELECT integrity_check FROM pragma_integrity_check) FROM t")
        #expect(read.status == 0, "\(read.output)")
        #expect(read.output == "305|50|ok")
    }

    @Test func ourRecoveryOfASpilledTransactionKeepsEveryCommit() throws {
        let folder = TemporaryFolder()
        let key = try DatabaseKey.passphrase(Self.passphrase)
        let copy = try Self.ourWrites(path: folder.file("ours.sqlite"), key: key, into: folder)
        let db = try Database(path: copy, key: key)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(305))
        #expect(try db.scalar("SELECT count(*) FROM t WHERE name = 'twice'") == .integer(50))
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
    }

    @Test func aWALBothWroteIsRecoveredByEither() throws {
        let folder = TemporaryFolder()
        let theirs = folder.file("theirs.sqlite")
        let made = try Self.sqlcipherWrites(path: theirs, copy: folder.file("first.sqlite"), compatibility: 4,
                                            statements: Self.commits, bulk: "")
        #expect(made.status == 0, "\(made.output)")
        // Ours recovers their frames, then appends its own to the same log.
        let first = folder.file("first.sqlite")
        do {
            let db = try Database(path: first, key: .passphrase(Self.passphrase))
            try db.execute("PRAGMA wal_autocheckpoint = 0")
            #expect(try db.scalar("SELECT count(*) FROM t") == .integer(5))
            try db.execute("INSERT INTO t(name) VALUES ('ours')")
            let second = folder.file("second.sqlite")
            for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: first + suffix, toPath: second + suffix) }
        }
        let read = try Self.sqlcipherReads(path: folder.file("second.sqlite"), compatibility: 4,
                                           query: "SELECT count(*), max(name) FROM t")
        #expect(read.status == 0, "\(read.output)")
        #expect(read.output == "6|ours")
    }

    @Test func aDamagedFrameEndsTheRecoveredLogThere() throws {
        let folder = TemporaryFolder()
        let key = try DatabaseKey.passphrase(Self.passphrase)
        let path = folder.file("ours.sqlite")
        let db = try Database(path: path, key: key)
        try db.enableWAL()
        try db.execute("PRAGMA wal_autocheckpoint = 0")
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, pad BLOB)")
        for sql in Self.commits { try db.execute(sql) }
        let copy = try EncryptedDatabaseTests.crashCopy(path, suffixes: ["-wal"], into: folder)
        // Frames: 1 for CREATE TABLE's page 1, then per commit its table page (+ page 1 once
        // the table grows). Flip a byte in the ciphertext of the last frame.
        let frameSize = 4096 + 24
        let walSize = try FileManager.default.attributesOfItem(atPath: copy + "-wal")[.size] as! Int
        try EncryptedDatabaseTests.flipByte(copy + "-wal", at: walSize - frameSize + 24 + 100)
        let recovered = try Database(path: copy, key: key)
        // The last commit is lost with its frame, the others are all there, and no garbage.
        #expect(try recovered.scalar("SELECT count(*) FROM t") == .integer(4))
        #expect(try recovered.scalar("PRAGMA integrity_check") == .text("ok"))
    }
}
