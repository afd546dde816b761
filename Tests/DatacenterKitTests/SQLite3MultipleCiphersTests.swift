import CPageCipher
import DatacenterTestSupport
import Foundation
import Testing
@testable import DatacenterKit

/// Files SQLite3 Multiple Ciphers writes, and files we write for it, against the real
/// library (PyPI's `apsw-sqlite3mc`, which `make test` installs): every scheme and setting
/// opens here with the key alone, shows the library's rows, and what we write there passes
/// its `integrity_check` with the same rows.
@Suite struct SQLite3MultipleCiphersTests {
    static let isAvailable: Bool = FileManager.default.isExecutableFile(atPath: SQLCipherReference.python)
        && (try? SQLCipherReference.run(["-c", "import apsw"], fullDerivation: true).status) == 0

    /// A scheme as the library's pragmas set it, and what `db info` must name.
    struct Written: CustomStringConvertible, Sendable {
        let cipher: String
        let pragmas: [String]
        let format: String
        let legacy: Bool
        let pageSize: Int
        var description: String { ([cipher] + pragmas).joined(separator: " ") }
    }

    static let written: [Written] = [
        Written(cipher: "chacha20", pragmas: [], format: "sqlite3mc-chacha20", legacy: false, pageSize: 4096),
        Written(cipher: "chacha20", pragmas: ["page_size=8192"], format: "sqlite3mc-chacha20", legacy: false, pageSize: 8192),
        Written(cipher: "chacha20", pragmas: ["legacy=1"], format: "sqlite3mc-chacha20", legacy: true, pageSize: 4096),
        Written(cipher: "chacha20", pragmas: ["legacy=1", "legacy_page_size=1024"], format: "sqlite3mc-chacha20", legacy: true, pageSize: 1024),
        Written(cipher: "aes128cbc", pragmas: [], format: "sqlite3mc-aes128cbc", legacy: false, pageSize: 4096),
        Written(cipher: "aes128cbc", pragmas: ["legacy=1"], format: "sqlite3mc-aes128cbc", legacy: true, pageSize: 4096),
        Written(cipher: "aes256cbc", pragmas: ["page_size=65536"], format: "sqlite3mc-aes256cbc", legacy: false, pageSize: 65536),
        Written(cipher: "aes256cbc", pragmas: ["legacy=1"], format: "sqlite3mc-aes256cbc", legacy: true, pageSize: 4096),
        Written(cipher: "sqlcipher", pragmas: [], format: "sqlite3mc-sqlcipher", legacy: false, pageSize: 4096),
        Written(cipher: "sqlcipher", pragmas: ["page_size=1024", "hmac_algorithm=0", "kdf_algorithm=0", "kdf_iter=4000"],
                format: "sqlite3mc-sqlcipher", legacy: false, pageSize: 1024),
        Written(cipher: "sqlcipher", pragmas: ["hmac_use=0"], format: "sqlite3mc-sqlcipher", legacy: false, pageSize: 4096),
        Written(cipher: "rc4", pragmas: [], format: "sqlite3mc-rc4", legacy: true, pageSize: 4096),
        Written(cipher: "rc4", pragmas: ["legacy_page_size=2048"], format: "sqlite3mc-rc4", legacy: true, pageSize: 2048),
    ]

    /// Runs `body` (Python, with `db` an apsw connection to `path` keyed with `secret` in
    /// `scheme`) in the library.
    private func library(_ path: String, _ scheme: Written, _ body: String, journal: String = "delete") throws -> String {
        let program = """
        import sys, apsw
        db = apsw.Connection(sys.argv[1])
        db.execute("PRAGMA cipher = '\(scheme.cipher)'")
        \(scheme.pragmas.map { "db.execute(\"PRAGMA \($0)\")" }.joined(separator: "\n"))
        db.execute("PRAGMA key = 'secret'")
        \(body)
        """
        let run = try SQLCipherReference.run(["-c", program, path], fullDerivation: true)
        #expect(run.status == 0, "\(scheme): \(run.output)")
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static let rows = """
        db.execute("CREATE TABLE t(x INTEGER PRIMARY KEY, y); WITH RECURSIVE c(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM c WHERE v < 2000) INSERT INTO t SELECT v, printf('row %d', v) FROM c")
        """

    private static let check = """
        print(list(db.execute("PRAGMA integrity_check"))[0][0], list(db.execute("SELECT count(*), sum(x), max(y) FROM t"))[0])
        """

    @Test(.enabled(if: SQLite3MultipleCiphersTests.isAvailable), arguments: SQLite3MultipleCiphersTests.written)
    func aFileTheLibraryWroteOpensWithTheKeyAloneAndWhatWeWriteReadsThere(scheme: Written) throws {
        let folder = TemporaryFolder()
        let path = folder.file("mc.db")
        _ = try library(path, scheme, Self.rows)
        let keys = DatabaseKeyList([try DatabaseKey.passphrase("secret")])
        let (db, key) = try keys.open(path: path)
        let found = try #require(key).settings
        #expect(found.formatName == scheme.format && found.legacy == scheme.legacy && found.pageSize == scheme.pageSize, "\(found)")
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(2000))
        #expect(try db.scalar("SELECT y FROM t WHERE x = 1234") == .text("row 1234"))
        try db.execute("DELETE FROM t WHERE x % 2 = 0; INSERT INTO t(y) VALUES ('ours')")
        db.close()
        // 1,000 odd rows (sum 1,000,000) and ours, numbered 2000 (after 1999, the last odd).
        #expect(try library(path, scheme, Self.check) == "ok (1001, 1002000, 'row 999')")
    }

    @Test(.enabled(if: SQLite3MultipleCiphersTests.isAvailable), arguments: ["chacha20", "aes256cbc", "aes128cbc", "sqlcipher", "rc4"])
    func aFileWeWriteInAScheme_TheLibraryReads_WALFramesIncluded(cipher: String) throws {
        let folder = TemporaryFolder()
        let path = folder.file("ours.db")
        let settings = try DatabaseCipherSettings(pairs: ["cipher=\(cipher)"])
        let db = try Database(path: path, key: .passphrase("secret", settings: settings))
        try db.execute("PRAGMA journal_mode = WAL")
        try db.execute("CREATE TABLE t(x INTEGER PRIMARY KEY, y)")
        try db.execute("WITH RECURSIVE c(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM c WHERE v < 3000) INSERT INTO t SELECT v, printf('row %d', v) FROM c")
        _ = dc_no_checkpoint_on_close(db.handle)   // the rows stay in the WAL's frames
        db.close()
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        let scheme = Written(cipher: cipher, pragmas: [], format: "", legacy: false, pageSize: 4096)
        #expect(try library(path, scheme, Self.check) == "ok (3000, 4501500, 'row 999')")
    }

    /// Every scheme without a MAC (and sqlcipher with `hmac_use=0`): page 1 is checked as
    /// SQLite would read it, so a wrong key is never taken for the right one.
    @Test(.enabled(if: SQLite3MultipleCiphersTests.isAvailable),
          arguments: [("chacha20", [String]()), ("aes256cbc", []), ("aes128cbc", ["legacy=1"]), ("rc4", []), ("sqlcipher", ["hmac_use=0"])])
    func aWrongKeyIsCalledWrongAndOpensNothing(cipher: String, pragmas: [String]) throws {
        let folder = TemporaryFolder()
        let path = folder.file("mc.db")
        let scheme = Written(cipher: cipher, pragmas: pragmas, format: "", legacy: cipher == "rc4", pageSize: 4096)
        _ = try library(path, scheme, Self.rows)
        let named = try DatabaseCipherSettings(pairs: ["cipher=\(cipher)"] + pragmas)
        for keys in [DatabaseKeyList([try DatabaseKey.passphrase("Secret")]), DatabaseKeyList([try .passphrase("Secret", settings: named)])] {
            let error = #expect(throws: DatabaseError.self) { _ = try keys.open(path: path, mode: .readOnly) }
            #expect(error?.keyProblem == .wrongKey)
            #expect(error?.description.contains("wrong key") == true, "\(String(describing: error))")
        }
        // The right key, with the scheme named, opens it.
        let (db, _) = try DatabaseKeyList([try .passphrase("secret", settings: named)]).open(path: path, mode: .readOnly)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(2000))
    }

    /// Ascon-128 and AEGIS: no library here provides them. Named as not read, so a right key
    /// is never taken for a wrong one without a word.
    @Test(.enabled(if: SQLite3MultipleCiphersTests.isAvailable), arguments: ["ascon128", "aegis"])
    func aSchemeNotReadIsNamed(cipher: String) throws {
        let folder = TemporaryFolder()
        let path = folder.file("mc.db")
        _ = try library(path, Written(cipher: cipher, pragmas: [], format: "", legacy: false, pageSize: 4096), Self.rows)
        let keys = DatabaseKeyList([try DatabaseKey.passphrase("secret")])
        let error = #expect(throws: DatabaseError.self) { _ = try keys.open(path: path, mode: .readOnly) }
        #expect(error?.description.contains("Ascon-128 and AEGIS files are not read by this version") == true, "\(String(describing: error))")
    }

    /// chacha20 behind a plaintext header, which the library reopens only with a raw key (a
    /// passphrase would need the salt it does not keep): opens here with that key alone, and
    /// what we write there keeps the header plain and reads in the library.
    @Test(.enabled(if: SQLite3MultipleCiphersTests.isAvailable))
    func chacha20BehindAPlaintextHeaderOpensWithItsRawKey() throws {
        let folder = TemporaryFolder()
        let path = folder.file("header.db")
        let hex = String(repeating: "2b", count: 32)
        let program = """
            import sys, apsw
            db = apsw.Connection(sys.argv[1])
            db.execute("PRAGMA cipher = 'chacha20'")
            db.execute("PRAGMA plaintext_header_size = 32")
            db.execute("PRAGMA key = \\"x'\(hex)'\\"")
            if sys.argv[2] == "write":
                db.execute("CREATE TABLE t(x INTEGER PRIMARY KEY, y); INSERT INTO t(y) VALUES ('theirs')")
            else:
                print(list(db.execute("PRAGMA integrity_check"))[0][0], list(db.execute("SELECT group_concat(y) FROM t"))[0][0])
            """
        let written = try SQLCipherReference.run(["-c", program, path, "write"], fullDerivation: true)
        #expect(written.status == 0, "\(written.output)")
        #expect(try DatabaseFileKind.of(path: path) == .plain)   // the header is SQLite's own
        let keys = try DatabaseKeyList(sqlcipherKeys: ["x'\(hex)'"])
        let (db, key) = try keys.open(path: path)
        #expect(key?.settings.scheme == .chacha20 && key?.settings.plaintextHeaderSize == 32, "\(String(describing: key))")
        #expect(try db.scalar("SELECT y FROM t") == .text("theirs"))
        try db.execute("INSERT INTO t(y) VALUES ('ours')")
        db.close()
        let read = try SQLCipherReference.run(["-c", program, path, "read"], fullDerivation: true)
        #expect(read.output.trimmingCharacters(in: .whitespacesAndNewlines) == "ok theirs,ours", "\(read.output)")
        // A wrong raw key is wrong.
        let wrong = try DatabaseKeyList(sqlcipherKeys: ["x'" + String(repeating: "2c", count: 32) + "'"])
        #expect(throws: DatabaseError.self) { _ = try wrong.open(path: path, mode: .readOnly) }
    }

    /// The clear fields pick the schemes: chacha20 by its 32-byte reserve, the AES schemes
    /// by none, the non-legacy sqlcipher by SQLCipher's reserve for its HMAC.
    @Test func theClearHeaderFieldsChooseTheSchemesTried() {
        func schemes(pageSize: [UInt8], reserve: UInt8) -> Set<DatabaseCipherSettings.Scheme> {
            Set(DatabaseCipherSettings.sqlite3mcCandidates(clearFields: pageSize + [1, 1, reserve, 64, 32, 32], base: nil).map(\.scheme))
        }
        #expect(schemes(pageSize: [0x10, 0], reserve: 32) == [.chacha20])
        #expect(schemes(pageSize: [0x10, 0], reserve: 0) == [.aes128cbc, .aes256cbc])
        #expect(schemes(pageSize: [0x10, 0], reserve: 80) == [.sqlite3mcSQLCipher])
        #expect(schemes(pageSize: [0x10, 0], reserve: 48) == [.sqlite3mcSQLCipher])
        #expect(schemes(pageSize: [0x10, 0], reserve: 7).isEmpty)
        let big = DatabaseCipherSettings.sqlite3mcCandidates(clearFields: [0, 1, 1, 1, 32, 64, 32, 32], base: nil)
        #expect(big.map(\.pageSize) == [65536])
    }

    @Test func settingsAreNamedAsTheLibraryNamesThem() throws {
        let chacha = try DatabaseCipherSettings(pairs: ["cipher=chacha20"])
        #expect(chacha.scheme == .chacha20 && chacha.kdfIterations == 64_007 && !chacha.legacy && chacha.reserve == 32)
        let sqleet = try DatabaseCipherSettings(pairs: ["cipher=chacha20", "legacy=1"])
        #expect(sqleet.legacy && sqleet.kdfIterations == 12_345 && sqleet.pragmaStatements == "PRAGMA cipher = 'chacha20'; PRAGMA legacy = 1;")
        #expect(try DatabaseCipherSettings(pairs: ["cipher=sqlcipher", "legacy=4"]) == .sqlcipher4)
        #expect(try DatabaseCipherSettings(pairs: ["cipher=sqlcipher"]).scheme == .sqlite3mcSQLCipher)
        #expect(try DatabaseCipherSettings(pairs: ["cipher=sqlcipher", "hmac_algorithm=0"]).hmacAlgorithm == .sha1)
        #expect(throws: CryptError.self) { try DatabaseCipherSettings(pairs: ["cipher=ascon128"]) }
        #expect(throws: CryptError.self) { try DatabaseCipherSettings(pairs: ["cipher=rc4", "legacy=0"]) }
        // The AES schemes and rc4 hash the text they are given: a raw key means nothing to them.
        let aes = try DatabaseCipherSettings(pairs: ["cipher=aes256cbc"])
        #expect(throws: CryptError.self) { try DatabaseKey(sqlcipherKey: "x'" + String(repeating: "ab", count: 32) + "'", settings: aes) }
    }
}
