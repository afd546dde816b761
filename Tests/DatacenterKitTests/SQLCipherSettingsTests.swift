import CPageCipher
import Foundation
import Testing
@testable import DatacenterKit

/// Files written by the real SQLCipher with the settings apps choose (its pragmas) open here
/// with the key alone, found by detection, or with the settings that cannot be found in a
/// file (a custom kdf_iter, a salt kept outside it) given by name; and files written here
/// with each setting open in SQLCipher with the same pragmas.
@Suite(.enabled(if: SQLCipherReference.isAvailable,
                "SQLCipher reference missing: run `make test` to create .build/sqlcipher-venv"))
struct SQLCipherSettingsTests {
    static let passphrase = "settings interop"
    static let rawKey = String(repeating: "0123456789abcdef", count: 4)
    static let salt = "00112233445566778899aabbccddeeff"

    /// One way an app sets SQLCipher up: its key literal, its pragmas (run after the key), and
    /// whether the key alone is enough here (detection finds the rest).
    struct Setup: Sendable, CustomTestStringConvertible {
        let name: String
        let key: String
        let pragmas: [String]
        let keyAloneIsEnough: Bool
        var testDescription: String { name }
    }

    static let setups: [Setup] = [
        Setup(name: "SQLCipher 4 defaults", key: "'\(passphrase)'", pragmas: [], keyAloneIsEnough: true),
        Setup(name: "compatibility 3", key: "'\(passphrase)'", pragmas: ["cipher_compatibility=3"], keyAloneIsEnough: true),
        Setup(name: "compatibility 2", key: "'\(passphrase)'", pragmas: ["cipher_compatibility=2"], keyAloneIsEnough: true),
        Setup(name: "compatibility 1", key: "'\(passphrase)'", pragmas: ["cipher_compatibility=1"], keyAloneIsEnough: true),
        Setup(name: "page size 2048", key: "'\(passphrase)'", pragmas: ["cipher_page_size=2048"], keyAloneIsEnough: true),
        Setup(name: "page size 16384 without HMAC", key: "'\(passphrase)'", pragmas: ["cipher_page_size=16384", "cipher_use_hmac=OFF"],
              keyAloneIsEnough: true),
        Setup(name: "page size 8192", key: "'\(passphrase)'", pragmas: ["cipher_page_size=8192"], keyAloneIsEnough: true),
        Setup(name: "page size 65536", key: "'\(passphrase)'", pragmas: ["cipher_page_size=65536"], keyAloneIsEnough: true),
        Setup(name: "kdf_iter 64000", key: "'\(passphrase)'", pragmas: ["kdf_iter=64000"], keyAloneIsEnough: true),
        Setup(name: "HMAC and KDF SHA256", key: "'\(passphrase)'",
              pragmas: ["cipher_hmac_algorithm=HMAC_SHA256", "cipher_kdf_algorithm=PBKDF2_HMAC_SHA256"], keyAloneIsEnough: true),
        Setup(name: "HMAC SHA1 on SQLCipher 4", key: "'\(passphrase)'", pragmas: ["cipher_hmac_algorithm=HMAC_SHA1"], keyAloneIsEnough: true),
        Setup(name: "HMAC off", key: "'\(passphrase)'", pragmas: ["cipher_use_hmac=OFF"], keyAloneIsEnough: true),
        Setup(name: "page numbers big-endian", key: "'\(passphrase)'", pragmas: ["cipher_hmac_pgno=be"], keyAloneIsEnough: true),
        Setup(name: "compatibility 3 with 4096-byte pages", key: "'\(passphrase)'",
              pragmas: ["cipher_compatibility=3", "cipher_page_size=4096"], keyAloneIsEnough: true),
        Setup(name: "custom kdf_iter", key: "'\(passphrase)'", pragmas: ["kdf_iter=12345"], keyAloneIsEnough: false),
        Setup(name: "raw key", key: "\"x'\(rawKey)'\"", pragmas: [], keyAloneIsEnough: true),
        Setup(name: "raw key with its salt", key: "\"x'\(rawKey)\(salt)'\"", pragmas: [], keyAloneIsEnough: true),
        Setup(name: "plaintext header with a salt", key: "'\(passphrase)'",
              pragmas: ["cipher_plaintext_header_size=32", "cipher_salt=\"x'\(salt)'\""], keyAloneIsEnough: false),
    ]

    /// The key as `--db-key` takes it: the literal without SQL quotes.
    static func keyText(_ setup: Setup) -> String {
        String(setup.key.dropFirst().dropLast())
    }

    /// Runs SQLCipher on `path` with the setup's key and pragmas: creates and fills a table
    /// when `write`, and prints the rows and both integrity checks.
    static func sqlcipher(_ setup: Setup, path: String, write: Bool) throws -> (status: Int32, output: String) {
        let program = """
        import sys, sqlcipher3
        path, key, pragmas, write = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
        db = sqlcipher3.connect(path, isolation_level=None)
        db.execute("PRAGMA key = " + key)
        for p in [p for p in pragmas.split(";") if p]:
            db.execute("PRAGMA " + p)
        if write:
            db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT, pad BLOB)")
            db.execute("BEGIN")
            for i in range(400):
                db.execute("INSERT INTO t(v, pad) VALUES (?, randomblob(300))", ("row %d" % i,))
            db.execute("COMMIT")
        print(db.execute("SELECT count(*), max(v) FROM t").fetchone())
        failures = [r for r in db.execute("PRAGMA cipher_integrity_check").fetchall() if "HMAC is not enabled" not in r[0]]
        print(db.execute("PRAGMA integrity_check").fetchone()[0], len(failures))
        """
        return try SQLCipherReference.run(["-c", program, path, setup.key, setup.pragmas.joined(separator: ";"), write ? "1" : "0"])
    }

    @Test(arguments: setups)
    func theirFileOpensHere(setup: Setup) throws {
        let folder = TemporaryFolder()
        let path = folder.file("theirs.sqlite")
        let made = try Self.sqlcipher(setup, path: path, write: true)
        #expect(made.status == 0 && made.output == "(400, 'row 99')\nok 0", "\(made.output)")

        // The key alone: every key text with the v4 and v3 defaults, then detection.
        let alone = try DatabaseKeyList(sqlcipherKeys: [Self.keyText(setup)])
        if setup.keyAloneIsEnough {
            let (db, key) = try alone.open(path: path, mode: .readOnly)
            #expect(try db.scalar("SELECT count(*) FROM t") == .integer(400))
            #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
            // What was found is what the app set: the same settings SQLCipher's pragmas give.
            var expected = DatabaseCipherSettings.sqlcipher4
            for pair in setup.pragmas { try expected.apply(pair) }
            if setup.name == "raw key with its salt" { expected.salt = nil }
            var found = try #require(key).settings
            found.salt = setup.name == "raw key with its salt" ? nil : found.salt
            // Without an HMAC the HMAC digest is not in the file: any fits.
            if !expected.usesHMAC { found.hmacAlgorithm = expected.hmacAlgorithm }
            #expect(found == expected, "found \(found), expected \(expected)")
        } else {
            #expect(throws: DatabaseError.self) { _ = try alone.open(path: path, mode: .readOnly) }
        }
        // With the settings given by name, it opens whatever they are.
        let settings = try DatabaseCipherSettings(pairs: setup.pragmas)
        let key = try DatabaseKey(sqlcipherKey: Self.keyText(setup), settings: settings)
        let named = try DatabaseKeyList([key]).open(path: path, mode: .readOnly).database
        #expect(try named.scalar("SELECT max(v) FROM t") == .text("row 99"))
    }

    @Test(arguments: setups)
    func ourFileOpensInSQLCipher(setup: Setup) throws {
        let folder = TemporaryFolder()
        let path = folder.file("ours.sqlite")
        let settings = try DatabaseCipherSettings(pairs: setup.pragmas)
        let key = try DatabaseKey(sqlcipherKey: Self.keyText(setup), settings: settings)
        do {
            let db = try Database(path: path, key: key)
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT, pad BLOB)")
            try db.execute("BEGIN")
            for i in 0..<400 { try db.execute("INSERT INTO t(v, pad) VALUES (?, randomblob(300))", [.text("row \(i)")]) }
            try db.execute("COMMIT")
        }
        let header = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: 16) ?? Data()
        #expect((Array(header) == Array("SQLite format 3\0".utf8)) == (settings.plaintextHeaderSize > 0))
        let read = try Self.sqlcipher(setup, path: path, write: false)
        #expect(read.status == 0 && read.output == "(400, 'row 99')\nok 0", "\(read.output)")
    }

    @Test func detectionDerivesEachKeyOnceAndAV1FileUnderTen() throws {
        let folder = TemporaryFolder()
        let path = folder.file("v1.sqlite")
        let v1 = try #require(Self.setups.first { $0.name == "compatibility 1" })
        _ = try Self.sqlcipher(v1, path: path, write: true)
        let before = dc_cipher_kdf_count()
        let (_, key) = try DatabaseKeyList(sqlcipherKeys: ["\(Self.passphrase)-wrong", Self.passphrase]).open(path: path)
        #expect(key?.settings == .compatibility(1))
        let derivations = dc_cipher_kdf_count() - before
        // The wrong key: its v4 and v3 defaults, then 9 derivations of detection; the right
        // one: v4, v3, then v2's derivation finds version 1. Each distinct derivation once.
        #expect(derivations <= 2 + 9 + 3, "\(derivations) key derivations")
    }

    @Test func aPlaintextHeaderWithoutItsSaltSaysWhatToGive() throws {
        let folder = TemporaryFolder()
        let path = folder.file("header.sqlite")
        let setup = try #require(Self.setups.first { $0.name == "plaintext header with a salt" })
        _ = try Self.sqlcipher(setup, path: path, write: true)
        let error = #expect(throws: DatabaseError.self) {
            _ = try DatabaseKeyList(sqlcipherKeys: [Self.passphrase]).open(path: path, mode: .readOnly)
        }
        #expect(error?.keyProblem == .wrongKey)
        #expect(error?.description.contains("plaintext header") == true, "\(String(describing: error))")
        #expect(error?.description.contains("--db-cipher cipher_salt=x'") == true)
        // Given the salt alone, detection finds the header size and the rest.
        let key = try DatabaseKey(sqlcipherKey: Self.passphrase, settings: try DatabaseCipherSettings(pairs: ["cipher_salt=x'\(Self.salt)'"]))
        let (db, found) = try DatabaseKeyList([key]).open(path: path, mode: .readOnly)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(400))
        #expect(found?.settings.plaintextHeaderSize == 32)
    }
}
