import Foundation
import Testing
@testable import DatacenterKit

/// Whole-file conversions: plain ↔ encrypted, SQLCipher 3 ↔ 4, rekey in place, and what they
/// refuse.
@Suite struct DatabaseFileConversionTests {
    /// A database with one of everything a conversion must carry.
    static func makeSource(_ path: String, key: DatabaseKey? = nil) throws {
        let db = try Database(path: path, key: key)
        try db.executeScript("""
            CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, n INT);
            CREATE TABLE r(a, b);
            CREATE TABLE w(k TEXT PRIMARY KEY, v) WITHOUT ROWID;
            CREATE INDEX r_a ON r(a);
            CREATE VIEW v AS SELECT name FROM t WHERE n % 2 = 0;
            CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO r VALUES('fired', new.id); END;
            CREATE VIRTUAL TABLE f USING fts5(body);
            PRAGMA user_version = 7;
            PRAGMA application_id = 1684234849;
            BEGIN;
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 500)
                INSERT INTO t(name, n) SELECT 'name ' || x, x FROM c;
            INSERT INTO r(rowid, a, b) VALUES (9000, 'gap', x'00ff');
            DELETE FROM r WHERE rowid % 3 = 0;
            DELETE FROM t WHERE id > 490;
            INSERT INTO w VALUES ('a', 1), ('b', 2.5), ('c', NULL);
            INSERT INTO f(body) VALUES ('hello world'), ('other text');
            COMMIT;
            ANALYZE;
            """)
    }

    /// Everything a conversion must keep, as text: schema, every row with its rowid,
    /// sqlite_sequence, statistics, header values.
    static func fingerprint(_ db: Database) throws -> [String] {
        var lines = try db.query("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").map {
            $0.values.map(\.description).joined(separator: "|")
        }
        for sql in ["SELECT rowid, * FROM t ORDER BY rowid", "SELECT rowid, * FROM r ORDER BY rowid", "SELECT * FROM w ORDER BY k",
                    "SELECT * FROM sqlite_sequence", "SELECT * FROM sqlite_stat1 ORDER BY tbl, idx",
                    "SELECT rowid FROM f WHERE f MATCH 'hello'", "SELECT count(*) FROM v",
                    "PRAGMA user_version", "PRAGMA application_id"] {
            lines.append(sql)
            lines += try db.query(sql).map { $0.values.map(\.description).joined(separator: "|") }
        }
        return lines
    }

    static func fingerprint(path: String, key: DatabaseKey? = nil) throws -> [String] {
        try fingerprint(try Database(path: path, key: key, mode: .readOnly))
    }

    static func count(_ path: String) throws -> Int64? {
        try Database(path: path, mode: .readOnly).scalar("SELECT count(*) FROM t")?.int64Value
    }

    static func partialFiles(in folder: TemporaryFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".dc-partial-") }
    }

    @Test func plainToEncryptedToPlainKeepsSchemaRowsAndHeader() throws {
        let folder = TemporaryFolder()
        let (plain, encrypted, back) = (folder.file("plain.db"), folder.file("enc.db"), folder.file("back.db"))
        try Self.makeSource(plain)
        let expected = try Self.fingerprint(path: plain)
        let key = try DatabaseKey.passphrase("export secret")

        let summary = try DatabaseFileConversion.encrypt(from: plain, to: encrypted, key: key)
        #expect(summary.sourceKey == nil)
        #expect(summary.rows > 800)
        let file = try Data(contentsOf: URL(fileURLWithPath: encrypted))
        #expect(!file.starts(with: Array("SQLite format 3".utf8)))
        #expect(file.range(of: Data("name 1".utf8)) == nil)
        #expect(try DatabaseFileKind.of(path: encrypted) == .encryptedOrNotADatabase)
        let opened = try Database(path: encrypted, key: key, mode: .readOnly)
        #expect(try opened.scalar("PRAGMA page_size") == .integer(4096))
        #expect(try opened.scalar("PRAGMA integrity_check") == .text("ok"))
        #expect(try Self.fingerprint(opened) == expected)

        let decrypted = try DatabaseFileConversion.decrypt(from: encrypted, keys: DatabaseKeyList([key]), to: back)
        #expect(decrypted.sourceKey == key)
        #expect(try DatabaseFileKind.of(path: back) == .plain)
        #expect(try Self.fingerprint(path: back) == expected)
        #expect(try Self.partialFiles(in: folder).isEmpty)
        // New files are private.
        var status = stat()
        #expect(stat(encrypted, &status) == 0 && status.st_mode & 0o777 == 0o600)
    }

    @Test func sqlcipher3AndSqlcipher4ConvertBothWays() throws {
        let folder = TemporaryFolder()
        let plain = folder.file("plain.db")
        try Self.makeSource(plain)
        let expected = try Self.fingerprint(path: plain)
        let raw = try DatabaseKey(sqlcipherKey: "x'" + String(repeating: "5a", count: 32) + "'", format: .sqlcipher3)
        let v3 = folder.file("v3.db"), v4 = folder.file("v4.db"), v3again = folder.file("v3again.db")
        try DatabaseFileConversion.encrypt(from: plain, to: v3, key: raw)
        #expect(try Database(path: v3, key: raw, mode: .readOnly).scalar("PRAGMA page_size") == .integer(1024))
        #expect(try Self.fingerprint(path: v3, key: raw) == expected)

        // The same passphrase, both formats tried: SQLCipher 3 is found, 4 is written.
        let keys = try DatabaseKeyList(sqlcipherKeys: ["x'" + String(repeating: "5a", count: 32) + "'"])
        let new = try DatabaseKey.passphrase("four", format: .sqlcipher4)
        let summary = try DatabaseFileConversion.export(from: v3, keys: keys, to: v4, key: new)
        #expect(summary.sourceKey == raw)
        #expect(try Database(path: v4, key: new, mode: .readOnly).scalar("PRAGMA page_size") == .integer(4096))
        #expect(try Self.fingerprint(path: v4, key: new) == expected)
        #expect(throws: DatabaseError.self) { try Database(path: v4, key: raw, mode: .readOnly) }

        let back3 = try DatabaseKey.passphrase("three", format: .sqlcipher3)
        try DatabaseFileConversion.export(from: v4, keys: DatabaseKeyList([new]), to: v3again, key: back3)
        #expect(try Self.fingerprint(path: v3again, key: back3) == expected)
    }

    @Test func decryptWithAWrongKeyFailsAndWritesNothing() throws {
        let folder = TemporaryFolder()
        let (plain, encrypted, out) = (folder.file("plain.db"), folder.file("enc.db"), folder.file("out.db"))
        try Self.makeSource(plain)
        try DatabaseFileConversion.encrypt(from: plain, to: encrypted, key: try .passphrase("right"))
        let error = #expect(throws: DatabaseError.self) {
            try DatabaseFileConversion.decrypt(from: encrypted, keys: try DatabaseKeyList(sqlcipherKeys: ["wrong", "also wrong"]), to: out)
        }
        #expect(error?.keyProblem == .wrongKey)
        #expect(error?.path == encrypted)
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try Self.partialFiles(in: folder).isEmpty)
        // A plain source with a key, and an encrypted one without, are refused by kind too.
        let plainError = #expect(throws: DatabaseError.self) {
            try DatabaseFileConversion.decrypt(from: plain, keys: try DatabaseKeyList(sqlcipherKeys: ["right"]), to: out)
        }
        #expect(plainError?.keyProblem == .notEncrypted)
        let missing = #expect(throws: DatabaseError.self) {
            try DatabaseFileConversion.encrypt(from: encrypted, to: out, key: try .passphrase("x"))
        }
        #expect(missing?.keyProblem == .missingKey)
    }

    @Test func anExistingDestinationIsRefusedAndKept() throws {
        let folder = TemporaryFolder()
        let (plain, out) = (folder.file("plain.db"), folder.file("out.db"))
        try Self.makeSource(plain)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: out))
        let error = #expect(throws: DatabaseConversionError.self) {
            try DatabaseFileConversion.encrypt(from: plain, to: out, key: try .passphrase("k"))
        }
        #expect(error?.kind == .destinationExists)
        #expect(error?.path == out)
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data("keep me".utf8))
        #expect(try Self.partialFiles(in: folder).isEmpty)
    }

    @Test func aPartialFileLeftByAKilledRunIsRemoved() throws {
        let folder = TemporaryFolder()
        let (plain, out) = (folder.file("plain.db"), folder.file("out.db"))
        try Self.makeSource(plain)
        // The pid of a process that has exited: what a killed conversion leaves is named so.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let stale = folder.file(".out.db.dc-partial-\(gone.processIdentifier)-1f2e3d")
        for suffix in ["", "-journal"] { try Data("half a database".utf8).write(to: URL(fileURLWithPath: stale + suffix)) }
        try DatabaseFileConversion.encrypt(from: plain, to: out, key: try .passphrase("k"))
        #expect(try Self.partialFiles(in: folder).isEmpty)
        #expect(FileManager.default.fileExists(atPath: out))
    }

    @Test func aWALSourceIsExportedWithItsUncheckpointedFramesAndLeftAsItWas() throws {
        let folder = TemporaryFolder()
        let (source, out) = (folder.file("wal.db"), folder.file("out.db"))
        let key = try DatabaseKey.passphrase("wal source", format: .sqlcipher3)
        let writer = try Database(path: source, key: key)
        try writer.enableWAL()
        try writer.execute("PRAGMA wal_autocheckpoint = 0")
        try writer.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
        try writer.execute("""
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000)
            INSERT INTO t(v) SELECT 'row ' || x FROM c
            """)
        let wal = try Data(contentsOf: URL(fileURLWithPath: source + "-wal"))
        #expect(wal.count > 10 * 1024)
        try DatabaseFileConversion.decrypt(from: source, keys: DatabaseKeyList([key]), to: out)
        // The same, from the files as a crash leaves them (no -shm, no other connection):
        // the conversion is then the last connection, which must not checkpoint on close.
        let crashed = folder.file("crashed.db"), out2 = folder.file("out2.db")
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: source + suffix, toPath: crashed + suffix) }
        let before = try Data(contentsOf: URL(fileURLWithPath: crashed))
        try DatabaseFileConversion.decrypt(from: crashed, keys: DatabaseKeyList([key]), to: out2)
        #expect(try Data(contentsOf: URL(fileURLWithPath: crashed)) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: crashed + "-wal")).count == wal.count)
        #expect(try Self.count(out2) == 2000)

        let copy = try Database(path: out, mode: .readOnly)
        #expect(try copy.scalar("SELECT count(*) FROM t") == .integer(2000))
        #expect(try copy.scalar("SELECT v FROM t WHERE id = 2000") == .text("row 2000"))
        // WAL mode is kept; the source's file was not checkpointed into.
        #expect(try copy.scalar("PRAGMA journal_mode") == .text("wal"))
        #expect(try writer.scalar("SELECT count(*) FROM t") == .integer(2000))
    }

    @Test func rekeyInPlaceMovesToTheNewKeyAndFormatAndKeepsWALMode() throws {
        let folder = TemporaryFolder()
        let path = folder.file("store.db")
        let old = try DatabaseKey.passphrase("old key")
        try Self.makeSource(path, key: old)
        do { try Database(path: path, key: old).enableWAL() }
        let expected = try Self.fingerprint(path: path, key: old)
        var status = stat()
        chmod(path, 0o640)

        let new = try DatabaseKey(sqlcipherKey: "x'" + String(repeating: "c3", count: 32) + "'", format: .sqlcipher3)
        let summary = try DatabaseFileConversion.rekey(path: path, keys: DatabaseKeyList([try .passphrase("stale"), old]), to: new)
        #expect(summary.sourceKey == old)
        let error = #expect(throws: DatabaseError.self) { try Database(path: path, key: old, mode: .readOnly) }
        #expect(error?.keyProblem == .wrongKey)
        let db = try Database(path: path, key: new, mode: .readOnly)
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
        #expect(try db.scalar("PRAGMA journal_mode") == .text("wal"))
        #expect(try Self.fingerprint(db) == expected)
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o640)
        #expect(try Self.partialFiles(in: folder).isEmpty)
    }

    @Test func rekeyOfAFileInPersistJournalModeFinishes() throws {
        let folder = TemporaryFolder()
        let path = folder.file("persist.db")
        let old = try DatabaseKey.passphrase("old", format: .sqlcipher3)
        do {
            let db = try Database(path: path, key: old)
            try db.execute("PRAGMA journal_mode=PERSIST")
            try db.execute("CREATE TABLE t(x)")
            try db.execute("INSERT INTO t VALUES (1)")
        }
        // The journal a PERSIST connection leaves has a zeroed header: nothing to replay.
        #expect(FileManager.default.fileExists(atPath: path + "-journal"))
        let new = try DatabaseKey.passphrase("new")
        try DatabaseFileConversion.rekey(path: path, keys: DatabaseKeyList([old]), to: new)
        #expect(try Database(path: path, key: new, mode: .readOnly).scalar("SELECT x FROM t") == .integer(1))
    }

    @Test func rekeyThroughASymbolicLinkReplacesTheFileItNames() throws {
        let folder = TemporaryFolder()
        let (real, link) = (folder.file("real.db"), folder.file("link.db"))
        let old = try DatabaseKey.passphrase("old")
        try Self.makeSource(real, key: old)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.db")
        let new = try DatabaseKey.passphrase("new")
        try DatabaseFileConversion.rekey(path: link, keys: DatabaseKeyList([old]), to: new)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real.db")
        #expect(try Database(path: real, key: new, mode: .readOnly).scalar("PRAGMA integrity_check") == .text("ok"))
    }

    @Test func rekeyRefusesAFileInUseAndLeavesItAsItWas() throws {
        let folder = TemporaryFolder()
        let path = folder.file("busy.db")
        let old = try DatabaseKey.passphrase("old")
        let other = try Database(path: path, key: old)
        try other.enableWAL()
        try other.execute("CREATE TABLE t(x)")
        try other.execute("INSERT INTO t VALUES (1)")
        let error = #expect(throws: DatabaseConversionError.self) {
            try DatabaseFileConversion.rekey(path: path, keys: DatabaseKeyList([old]), to: try .passphrase("new"), busyTimeout: 0.2)
        }
        #expect(error?.kind == .inUse)
        #expect(error?.description.contains("in use") == true)
        #expect(try other.scalar("SELECT count(*) FROM t") == .integer(1))
        try other.execute("INSERT INTO t VALUES (2)")
        let reader = try Database(path: path, key: old, mode: .readOnly)
        #expect(try reader.scalar("PRAGMA journal_mode") == .text("wal"))
        #expect(try reader.scalar("SELECT count(*) FROM t") == .integer(2))
        #expect(try Self.partialFiles(in: folder).isEmpty)
    }

    @Test func infoTellsEachKindOfFile() throws {
        let folder = TemporaryFolder()
        let (plain, encrypted, empty) = (folder.file("plain.db"), folder.file("enc.db"), folder.file("empty.db"))
        try Self.makeSource(plain)
        let key = try DatabaseKey.passphrase("info", format: .sqlcipher3)
        try DatabaseFileConversion.encrypt(from: plain, to: encrypted, key: key)
        #expect(FileManager.default.createFile(atPath: empty, contents: nil))

        #expect(try DatabaseFileInfo.of(path: folder.file("none.db")).state == .missing)
        #expect(try DatabaseFileInfo.of(path: empty).state == .empty)
        let plainInfo = try DatabaseFileInfo.of(path: plain)
        #expect(plainInfo.state == .plain)
        #expect(plainInfo.pageSize == 4096)
        #expect(plainInfo.journalMode == "delete")
        #expect((plainInfo.pageCount ?? 0) * 4096 == Int(plainInfo.fileSize))
        #expect(try DatabaseFileInfo.of(path: encrypted).state == .encryptedOrNotADatabase)
        #expect(try DatabaseFileInfo.of(path: encrypted, keys: try DatabaseKeyList(sqlcipherKeys: ["nope"])).state == .wrongKey)
        let found = try DatabaseFileInfo.of(path: encrypted, keys: try DatabaseKeyList(sqlcipherKeys: ["nope", "info"]))
        #expect(found.state == .encrypted(key: key, keyIndex: 3))
        #expect(found.pageSize == 1024)
    }
}

/// The check a conversion makes of its new file before it takes the source's place catches a
/// bad copy: a page that does not authenticate, a lost row, an index that lost entries.
@Suite struct ConversionVerificationTests {
    /// A plain source of 2,000 rows with an index, its encrypted copy, and a connection with
    /// the source as `main`.
    static func setUp(_ folder: TemporaryFolder) throws -> (source: Database, copy: String, key: DatabaseKey) {
        let source = folder.file("source.db"), copy = folder.file("copy.db")
        let db = try Database(path: source)
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); CREATE INDEX t_v ON t(v)")
        try db.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
            INSERT INTO t SELECT i, 'value ' || i || ' ' || hex(randomblob(40)) FROM n
            """)
        let key = try DatabaseKey.passphrase("verify")
        try DatabaseFileConversion.encrypt(from: source, to: copy, key: key)
        return (try Database(path: source, mode: .readWriteExisting), copy, key)
    }

    static func verify(_ setUp: (source: Database, copy: String, key: DatabaseKey)) throws {
        try DatabaseFileConversion.attach(setUp.source, path: setUp.copy, key: setUp.key)
        defer { try? setUp.source.detach(DatabaseFileConversion.schema) }
        try DatabaseFileConversion.verify(setUp.source, destination: setUp.copy, copiedRows: ["t": 2000])
    }

    @Test func aGoodCopyPasses() throws {
        let folder = TemporaryFolder()
        try Self.verify(try Self.setUp(folder))
    }

    @Test func aPageThatDoesNotAuthenticateFails() throws {
        let folder = TemporaryFolder()
        let setUp = try Self.setUp(folder)
        let size = try FileManager.default.attributesOfItem(atPath: setUp.copy)[.size] as! Int
        try EncryptedDatabaseTests.flipByte(setUp.copy, at: size / 2 + 100)
        #expect(throws: (any Error).self) { try Self.verify(setUp) }
    }

    @Test func aLostRowFails() throws {
        let folder = TemporaryFolder()
        let setUp = try Self.setUp(folder)
        try Database(path: setUp.copy, key: setUp.key).execute("DELETE FROM t WHERE id = 1234")
        let error = #expect(throws: DatabaseConversionError.self) { try Self.verify(setUp) }
        #expect(error?.kind == .verificationFailed)
        #expect(error?.description.contains("table t has 2000 rows in the source, 1999 in the copy") == true, "\(String(describing: error))")
    }

    @Test func anIndexThatLostEntriesFails() throws {
        let folder = TemporaryFolder()
        let setUp = try Self.setUp(folder)
        // Rows added behind the index's back: the table holds them, the index does not.
        let copy = try Database(path: setUp.copy, key: setUp.key)
        let root = try copy.scalar("SELECT rootpage FROM sqlite_master WHERE name = 't_v'")?.int64Value ?? 0
        #expect(root > 0)
        try copy.execute("PRAGMA writable_schema = ON")
        try copy.execute("UPDATE sqlite_master SET sql = 'CREATE INDEX t_v ON t(v) WHERE 0' WHERE name = 't_v'")
        try copy.execute("PRAGMA writable_schema = OFF")
        copy.close()
        let reopened = try Database(path: setUp.copy, key: setUp.key)
        try reopened.execute("INSERT INTO t VALUES (5000, 'only in the table')")
        try reopened.execute("PRAGMA writable_schema = ON")
        try reopened.execute("UPDATE sqlite_master SET sql = 'CREATE INDEX t_v ON t(v)' WHERE name = 't_v'")
        try reopened.execute("PRAGMA writable_schema = OFF")
        reopened.close()
        let error = #expect(throws: DatabaseConversionError.self) {
            try DatabaseFileConversion.attach(setUp.source, path: setUp.copy, key: setUp.key)
            defer { try? setUp.source.detach(DatabaseFileConversion.schema) }
            try DatabaseFileConversion.verify(setUp.source, destination: setUp.copy, copiedRows: ["t": 2001])
        }
        #expect(error?.description.contains("index t_v has 2000 entries for the 2001 rows of t") == true, "\(String(describing: error))")
    }
}
