import CPageCipher
import Foundation
import Testing
@testable import DatacenterKit

/// Whole-database encryption in SQLCipher's format: round trips, tampering, wrong keys.
@Suite struct EncryptedDatabaseTests {
    static let rawKeyHex = "2b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfe"

    static func keys(_ format: DatabaseCipherFormat) throws -> [DatabaseKey] {
        [try .passphrase("correct horse", format: format),
         try DatabaseKey(sqlcipherKey: "x'\(rawKeyHex)'", format: format)]
    }

    /// Writes enough rows to span many pages (and overflow pages), then closes.
    static func fill(_ db: Database, rows: Int = 300) throws {
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, pad BLOB)")
        try db.execute("BEGIN")
        for i in 0..<rows {
            try db.execute("INSERT INTO t(name, pad) VALUES (?, randomblob(?))", [.text("row \(i)"), .integer(Int64(i % 7 == 0 ? 3000 : 40))])
        }
        try db.execute("COMMIT")
    }

    @Test(arguments: DatabaseCipherFormat.allCases)
    func roundTripWithPassphraseAndRawKey(format: DatabaseCipherFormat) throws {
        for key in try Self.keys(format) {
            let folder = TemporaryFolder()
            let path = folder.file("enc.sqlite")
            do {
                let db = try Database(path: path, key: key)
                try Self.fill(db)
                try db.execute("UPDATE t SET name = 'changed' WHERE id = 5")
                try db.execute("DELETE FROM t WHERE id > 250")
            }
            let file = try Data(contentsOf: URL(fileURLWithPath: path))
            // Nothing of SQLite's plaintext is left on disk.
            #expect(!file.starts(with: Array("SQLite format 3".utf8)))
            #expect(file.range(of: Data("row 1".utf8)) == nil)
            #expect(file.count % format.pageSize == 0)

            let db = try Database(path: path, key: key, mode: .readWriteExisting)
            #expect(try db.scalar("SELECT count(*) FROM t") == .integer(250))
            #expect(try db.scalar("SELECT name FROM t WHERE id = 5") == .text("changed"))
            #expect(try db.scalar("PRAGMA page_size") == .integer(Int64(format.pageSize)))
            #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
        }
    }

    @Test func walModeRoundTripKeepsFramesEncrypted() throws {
        let folder = TemporaryFolder()
        let path = folder.file("wal.sqlite")
        let key = try DatabaseKey.passphrase("wal secret")
        let db = try Database(path: path, key: key)
        try db.enableWAL()
        try Self.fill(db, rows: 200)
        let wal = try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
        #expect(wal.count > 4096)
        #expect(wal.range(of: Data("row 1".utf8)) == nil)
        // A second connection reads the frames from the WAL, before any checkpoint.
        let reader = try Database(path: path, key: key, mode: .readOnly)
        #expect(try reader.scalar("SELECT name FROM t WHERE id = 200") == .text("row 199"))
        #expect(try reader.scalar("PRAGMA integrity_check") == .text("ok"))
    }

    @Test func rollbackJournalKeepsPagesEncrypted() throws {
        let folder = TemporaryFolder()
        let path = folder.file("journal.sqlite")
        let key = try DatabaseKey.passphrase("journal secret")
        let db = try Database(path: path, key: key)
        try db.execute("PRAGMA journal_mode=PERSIST")
        try Self.fill(db, rows: 100)
        try db.execute("UPDATE t SET name = name || '!'")
        let journal = try Data(contentsOf: URL(fileURLWithPath: path + "-journal"))
        #expect(journal.count > 4096)
        #expect(journal.range(of: Data("row 1".utf8)) == nil)
        // A rolled-back transaction is undone from the (encrypted) journal pages.
        try db.execute("BEGIN")
        try db.execute("DELETE FROM t")
        try db.execute("ROLLBACK")
        #expect(try db.scalar("SELECT name FROM t WHERE id = 1") == .text("row 0!"))
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
    }

    /// Copies `path` and its `suffixes` files as a crash would leave them (no locks, no -shm).
    static func crashCopy(_ path: String, suffixes: [String], into folder: TemporaryFolder) throws -> String {
        let copy = folder.file("copy.sqlite")
        for suffix in [""] + suffixes {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
        }
        return copy
    }

    @Test func hotJournalIsRolledBackFromEncryptedPages() throws {
        let folder = TemporaryFolder()
        let path = folder.file("hot.sqlite")
        let key = try DatabaseKey.passphrase("hot journal")
        let db = try Database(path: path, key: key)
        try Self.fill(db, rows: 200)
        // A tiny cache makes the transaction write changed pages into the file before commit.
        try db.execute("PRAGMA cache_size = 2")
        try db.execute("BEGIN")
        try db.execute("UPDATE t SET name = 'uncommitted', pad = randomblob(200)")
        let journal = try Data(contentsOf: URL(fileURLWithPath: path + "-journal"))
        #expect(journal.range(of: Data("row 1".utf8)) == nil)
        let copy = try Self.crashCopy(path, suffixes: ["-journal"], into: folder)
        try db.execute("ROLLBACK")

        let recovered = try Database(path: copy, key: key)
        #expect(try recovered.scalar("SELECT count(*) FROM t WHERE name = 'uncommitted'") == .integer(0))
        #expect(try recovered.scalar("SELECT name FROM t WHERE id = 1") == .text("row 0"))
        #expect(try recovered.scalar("PRAGMA integrity_check") == .text("ok"))
    }

    @Test func walIsRecoveredFromEncryptedFrames() throws {
        let folder = TemporaryFolder()
        let path = folder.file("walcrash.sqlite")
        let key = try DatabaseKey.passphrase("wal crash", format: .sqlcipher3)
        let db = try Database(path: path, key: key)
        try db.enableWAL()
        try db.execute("PRAGMA wal_autocheckpoint = 0")
        try Self.fill(db, rows: 150)
        try db.execute("UPDATE t SET name = 'committed' WHERE id = 3")
        // Without the -shm, the copy's WAL index is rebuilt by reading every frame.
        let copy = try Self.crashCopy(path, suffixes: ["-wal"], into: folder)
        let recovered = try Database(path: copy, key: key)
        #expect(try recovered.scalar("SELECT name FROM t WHERE id = 3") == .text("committed"))
        #expect(try recovered.scalar("SELECT count(*) FROM t") == .integer(150))
        #expect(try recovered.scalar("PRAGMA integrity_check") == .text("ok"))
    }

    @Test func wrongKeyIsDetectedAtOpen() throws {
        let folder = TemporaryFolder()
        let path = folder.file("enc.sqlite")
        try Self.fill(try Database(path: path, key: try .passphrase("right")), rows: 3)
        for wrong in [try DatabaseKey.passphrase("wrong"), try .passphrase("right", format: .sqlcipher3)] {
            let error = #expect(throws: DatabaseError.self) { try Database(path: path, key: wrong) }
            #expect(error?.isWrongKeyOrNotEncrypted == true)
            #expect(error?.description.contains("wrong key or not an encrypted database") == true)
        }
    }

    @Test func plainFileGivenAKeyIsDetectedAtOpen() throws {
        let folder = TemporaryFolder()
        let path = folder.file("plain.sqlite")
        try Self.fill(try Database(path: path), rows: 3)
        let error = #expect(throws: DatabaseError.self) { try Database(path: path, key: try .passphrase("any")) }
        #expect(error?.isWrongKeyOrNotEncrypted == true)
        // And an encrypted file opened without a key is not a database.
        let encrypted = folder.file("enc.sqlite")
        try Self.fill(try Database(path: encrypted, key: try .passphrase("k")), rows: 3)
        let plainError = #expect(throws: DatabaseError.self) { try Database(path: encrypted) }
        #expect(plainError?.isNotADatabase == true)
    }

    @Test func flippedByteIsAnErrorNamingThePage() throws {
        let folder = TemporaryFolder()
        let path = folder.file("enc.sqlite")
        let key = try DatabaseKey.passphrase("tamper")
        try Self.fill(try Database(path: path, key: key))
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let pageCount = Int(try handle.seekToEnd()) / 4096
        #expect(pageCount > 5)
        let page = 4
        try handle.seek(toOffset: UInt64((page - 1) * 4096 + 100))
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64((page - 1) * 4096 + 100))
        try handle.write(contentsOf: [byte ^ 0x01])
        try handle.close()

        let db = try Database(path: path, key: key)
        let error = #expect(throws: DatabaseError.self) { try db.query("SELECT * FROM t") }
        #expect(error?.failedPage == page)
        #expect(error?.description.contains("page \(page)") == true)
    }

    /// Flips one byte at `offset` of the file.
    static func flipByte(_ path: String, at offset: Int) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64(offset))
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: [byte ^ 0x80])
        try handle.close()
    }

    /// In the ciphertext, the IV and the HMAC of a page, for both formats.
    @Test(arguments: DatabaseCipherFormat.allCases)
    func flippedByteAnywhereInAPageIsCaught(format: DatabaseCipherFormat) throws {
        let pageSize = format.pageSize
        let reserve = format == .sqlcipher4 ? 80 : 48
        let hmacEnd = pageSize - reserve + 16 + (format == .sqlcipher4 ? 64 : 20)
        for offsetInPage in [0, pageSize / 2, pageSize - reserve - 1, pageSize - reserve, hmacEnd - 1] {
            let folder = TemporaryFolder()
            let path = folder.file("enc.sqlite")
            let key = try DatabaseKey.passphrase("tamper", format: format)
            try Self.fill(try Database(path: path, key: key))
            try Self.flipByte(path, at: 2 * pageSize + offsetInPage)
            let db = try Database(path: path, key: key)
            let error = #expect(throws: DatabaseError.self, "offset \(offsetInPage)") {
                _ = try db.query("SELECT * FROM t")
                _ = try db.query("PRAGMA integrity_check")
            }
            #expect(error?.failedPage == 3, "offset \(offsetInPage)")
        }
    }

    @Test func flippedByteInPage1OrItsSaltFailsAtOpen() throws {
        for offset in [3, 16, 500] {
            let folder = TemporaryFolder()
            let path = folder.file("enc.sqlite")
            let key = try DatabaseKey.passphrase("page one")
            try Self.fill(try Database(path: path, key: key), rows: 3)
            try Self.flipByte(path, at: offset)
            let error = #expect(throws: DatabaseError.self) { try Database(path: path, key: key) }
            #expect(error?.failedPage == 1)
            #expect(error?.description.contains("page 1") == true)
        }
    }

    @Test func truncatedFileIsAnError() throws {
        let folder = TemporaryFolder()
        let path = folder.file("enc.sqlite")
        let key = try DatabaseKey.passphrase("cut")
        try Self.fill(try Database(path: path, key: key))
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let size = try handle.seekToEnd()
        try handle.truncate(atOffset: size - 1000)
        try handle.close()
        let db = try Database(path: path, key: key)
        let error = #expect(throws: DatabaseError.self) { try db.query("SELECT * FROM t") }
        #expect(error?.failedPage == Int((size - 1000) / 4096) + 1)
    }

    @Test func secondOpenReusesTheDerivedKeys() throws {
        let folder = TemporaryFolder()
        let path = folder.file("enc.sqlite")
        let key = try DatabaseKey.passphrase("cached \(UUID())")
        try Self.fill(try Database(path: path, key: key), rows: 2)
        let before = dc_cipher_kdf_count()
        _ = try Database(path: path, key: key)
        _ = try Database(path: path, key: key)
        #expect(dc_cipher_kdf_count() == before)
    }

    @Test func keyParsing() throws {
        #expect(try DatabaseKey(sqlcipherKey: "x'\(Self.rawKeyHex)'").secret == .raw(EncryptionKey.hexBytes(Self.rawKeyHex)!))
        #expect(try DatabaseKey(sqlcipherKey: "pass word").secret == .passphrase("pass word"))
        #expect(throws: CryptError.self) { try DatabaseKey(sqlcipherKey: "x'abcd'") }
        #expect(throws: CryptError.self) { try DatabaseKey.passphrase("") }
        #expect(throws: CryptError.self) { try DatabaseKey.raw([1, 2, 3]) }
        #expect(!String(describing: try DatabaseKey.passphrase("hunter2")).contains("hunter2"))
        #expect(throws: DatabaseError.self) { try Database(path: ":memory:", key: try .passphrase("k")) }
        // A URI naming another VFS would bypass encryption: refused, and nothing is written.
        let folder = TemporaryFolder()
        let path = folder.file("uri.sqlite")
        let error = #expect(throws: DatabaseError.self) {
            let db = try Database(path: "file:\(path)?vfs=unix", key: try .passphrase("k"))
            try db.execute("CREATE TABLE t(x)")
        }
        #expect(error?.code == SQLiteCode.misuse)
        #expect((try? Data(contentsOf: URL(fileURLWithPath: path)))?.isEmpty ?? true)
    }
}

/// Interchange with the real SQLCipher 4 (and its SQLCipher 3 compatibility mode).
@Suite(.enabled(if: SQLCipherReference.isAvailable,
                "SQLCipher reference missing: run `make test` to create .build/sqlcipher-venv"))
struct SQLCipherInteropTests {
    static let cases: [(format: DatabaseCipherFormat, raw: Bool)] = [
        (.sqlcipher4, false), (.sqlcipher4, true), (.sqlcipher3, false), (.sqlcipher3, true),
    ]

    static func key(_ format: DatabaseCipherFormat, raw: Bool) throws -> (DatabaseKey, String) {
        raw ? (try DatabaseKey(sqlcipherKey: "x'\(EncryptedDatabaseTests.rawKeyHex)'", format: format),
               "\"x'\(EncryptedDatabaseTests.rawKeyHex)'\"")
            : (try .passphrase("interop pass", format: format), "'interop pass'")
    }

    @Test(arguments: 0..<4)
    func sqlcipherFileOpensInOurs(index: Int) throws {
        let (format, raw) = Self.cases[index]
        let (key, literal) = try Self.key(format, raw: raw)
        let folder = TemporaryFolder()
        let path = folder.file("theirs.sqlite")
        let made = try SQLCipherReference.execute(
            path: path, keyLiteral: literal, compatibility: Int(format.rawValue),
            script: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, pad BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
            INSERT INTO t(name, pad) SELECT 'name ' || i, randomblob(i % 50 * 20) FROM n;
            UPDATE t SET name = 'updated' WHERE id = 7;
            DELETE FROM t WHERE id > 350;
            VACUUM;
            """)
        #expect(made.status == 0, "\(made.output)")
        let db = try Database(path: path, key: key, mode: .readWriteExisting)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(350))
        #expect(try db.scalar("SELECT name FROM t WHERE id = 7") == .text("updated"))
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
        // And what we write to their file, they read back.
        try db.execute("INSERT INTO t(name) VALUES ('from us')")
        let read = try SQLCipherReference.execute(path: path, keyLiteral: literal, compatibility: Int(format.rawValue),
                                                  query: "SELECT count(*), max(name) FROM t")
        #expect(read.status == 0, "\(read.output)")
        #expect(read.output == "351|updated")
    }

    @Test(arguments: 0..<4)
    func ourFileOpensInSQLCipher(index: Int) throws {
        let (format, raw) = Self.cases[index]
        let (key, literal) = try Self.key(format, raw: raw)
        let folder = TemporaryFolder()
        let path = folder.file("ours.sqlite")
        do {
            let db = try Database(path: path, key: key)
            try EncryptedDatabaseTests.fill(db)
            try db.execute("UPDATE t SET name = 'updated' WHERE id = 9")
            try db.execute("DELETE FROM t WHERE id > 280")
            try db.execute("VACUUM")
        }
        let read = try SQLCipherReference.execute(
            path: path, keyLiteral: literal, compatibility: Int(format.rawValue),
            query: "SELECT count(*), (SELECT name FROM t WHERE id = 9), (SELECT integrity_check FROM pragma_integrity_check) FROM t")
        #expect(read.status == 0, "\(read.output)")
        #expect(read.output == "280|updated|ok")
    }

    @Test func ourWALFileOpensInSQLCipherOnceCheckpointed() throws {
        let (key, literal) = try Self.key(.sqlcipher4, raw: false)
        let folder = TemporaryFolder()
        let path = folder.file("ourwal.sqlite")
        do {
            let db = try Database(path: path, key: key)
            try db.enableWAL()
            try EncryptedDatabaseTests.fill(db, rows: 120)
            try db.execute("DELETE FROM t WHERE id % 2 = 0")
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let read = try SQLCipherReference.execute(path: path, keyLiteral: literal, compatibility: 4,
                                                  query: "SELECT count(*) FROM t")
        #expect(read.status == 0, "\(read.output)")
        #expect(read.output == "60")
    }

    /// The cipher keys its AES and HMAC contexts once per connection and then only sets each
    /// page's IV: a connection that reads and writes in turn for many transactions (WAL
    /// frames written, read back, checkpointed into the file) must still write what
    /// SQLCipher reads, and read what SQLCipher wrote after it.
    @Test(arguments: 0..<4)
    func pagesOfALongLivedConnectionOpenInSQLCipher(index: Int) throws {
        let (format, raw) = Self.cases[index]
        let (key, literal) = try Self.key(format, raw: raw)
        let folder = TemporaryFolder()
        let path = folder.file("long.sqlite")
        do {
            let db = try Database(path: path, key: key)
            try db.enableWAL()
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)")
            for round in 0..<20 {
                try db.inTransaction {
                    for i in 0..<50 { try db.execute("INSERT INTO t(name) VALUES (?)", [.text("round \(round) row \(i) " + String(repeating: "x", count: i * 7))]) }
                }
                #expect(try db.scalar("SELECT count(*) FROM t WHERE name LIKE 'round \(round) %'") == .integer(50))
                if round % 5 == 4 { try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
            }
            try db.execute("DELETE FROM t WHERE id % 3 = 0")
        }
        let read = try SQLCipherReference.execute(
            path: path, keyLiteral: literal, compatibility: Int(format.rawValue),
            script: "INSERT INTO t(name) VALUES ('from sqlcipher')",
            query: "SELECT count(*), sum(length(name)), (SELECT integrity_check FROM pragma_integrity_check) FROM t")
        #expect(read.status == 0, "\(read.output)")
        let db = try Database(path: path, key: key, mode: .readWriteExisting)
        let ours = try db.queryFirst("SELECT count(*), sum(length(name)) FROM t")
        #expect(read.output == "\(ours?.values[0].int64Value ?? -1)|\(ours?.values[1].int64Value ?? -1)|ok")
        #expect(try db.scalar("SELECT count(*) FROM t WHERE name = 'from sqlcipher'") == .integer(1))
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
    }

    @Test func sqlcipherRefusesOurFileWithAnotherKey() throws {
        let folder = TemporaryFolder()
        let path = folder.file("ours.sqlite")
        try EncryptedDatabaseTests.fill(try Database(path: path, key: try .passphrase("one")), rows: 3)
        let read = try SQLCipherReference.execute(path: path, keyLiteral: "'two'", compatibility: 4,
                                                  query: "SELECT count(*) FROM t")
        #expect(read.status != 0)
        #expect(read.output.contains("file is not a database"))
    }
}

/// Copies of an encrypted database: never in plaintext.
@Suite struct EncryptedCopyTests {
    @Test(arguments: DatabaseCipherFormat.allCases)
    func aBackupOfAnEncryptedDatabaseIsEncryptedWithItsKey(format: DatabaseCipherFormat) throws {
        let folder = TemporaryFolder()
        let key = try DatabaseKey.passphrase("copy me", format: format)
        let source = try Database(path: folder.file("source.sqlite"), key: key)
        try EncryptedDatabaseTests.fill(source, rows: 120)
        let copy = folder.file("copy.sqlite")
        try source.backup(to: copy)
        #expect(try DatabaseFileKind.of(path: copy) == .encryptedOrNotADatabase)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: copy))
        #expect(bytes.range(of: Data("row 1".utf8)) == nil)
        let reopened = try Database(path: copy, key: key, mode: .readOnly)
        #expect(try reopened.scalar("SELECT count(*) FROM t") == .integer(120))
        #expect(try reopened.scalar("PRAGMA integrity_check") == .text("ok"))
    }

    @Test func anEncryptedDatabaseIsNotReopenedElsewhere() throws {
        let folder = TemporaryFolder()
        let source = try Database(path: folder.file("source.sqlite"), key: .passphrase("stay"))
        try source.execute("CREATE TABLE t(x)")
        let target = folder.file("mutable.sqlite")
        let error = #expect(throws: DatabaseError.self) { try source.makeMutable(at: target) }
        #expect(error?.message.contains("encrypted") == true)
        #expect(!FileManager.default.fileExists(atPath: target))
    }
}
