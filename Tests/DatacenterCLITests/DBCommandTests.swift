import DatacenterKit
import Foundation
import Testing

/// `datacenter db encrypt|decrypt|rekey|info` and `--db-key`.
@Suite struct DBCommandTests {
    static let rawKey = "x'" + String(repeating: "3c", count: 32) + "'"

    /// A plain database of `rows` rows (about 250 bytes each).
    static func makePlain(_ path: String, rows: Int = 300) throws {
        let db = try Database(path: path)
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, pad BLOB)")
        try db.execute("CREATE INDEX t_name ON t(name)")
        try db.execute("""
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(rows))
            INSERT INTO t SELECT x, 'name ' || x, randomblob(200) FROM c
            """)
        try db.execute("PRAGMA user_version = 3")
    }

    static func count(_ path: String, key: DatabaseKey? = nil) throws -> Int64? {
        try Database(path: path, key: key, mode: .readOnly).scalar("SELECT count(*) FROM t")?.int64Value
    }

    @Test func encryptWithAKeyFileThenDecryptWithTheEnvironmentKey() throws {
        let folder = TemporaryFolder()
        let (plain, encrypted, back) = (folder.file("plain.db"), folder.file("enc.db"), folder.file("back.db"))
        try Self.makePlain(plain)
        let keyFile = folder.file("db.key")
        try Data("file secret\n".utf8).write(to: URL(fileURLWithPath: keyFile))

        let encrypt = try CLI.run(["db", "encrypt", plain, encrypted, "--db-key", "@" + keyFile])
        #expect(encrypt.status == 0, "\(encrypt.stderr)")
        #expect(encrypt.stdout.contains("SQLCipher 4"))
        #expect(encrypt.stderr.isEmpty)   // no progress when stderr is not a terminal
        // The file's content without its trailing newline is the passphrase.
        #expect(try Self.count(encrypted, key: try .passphrase("file secret")) == 300)

        // Keys before the subcommand count first; the file's key is then the second.
        let info = try CLI.run(["--db-key", "not it", "db", "info", encrypted, "--db-key", "@" + keyFile, "--json"])
        #expect((try CLI.json(info.stdout) as? [String: Any])?["key"] as? Int == 2, "\(info.stdout)\(info.stderr)")

        let decrypt = try CLI.run(["db", "decrypt", encrypted, back, "--db-key", "not it"],
                                  environment: ["DATACENTER_DB_KEY": "file secret"])
        #expect(decrypt.status == 0, "\(decrypt.stderr)")
        #expect(try DatabaseFileKind.of(path: back) == .plain)
        #expect(try Self.count(back) == 300)
        #expect(try Database(path: back, mode: .readOnly).userVersion() == 3)
    }

    @Test func infoJSONHasOneShapeForEveryState() throws {
        let folder = TemporaryFolder()
        let (plain, encrypted) = (folder.file("plain.db"), folder.file("enc.db"))
        try Self.makePlain(plain, rows: 10)
        #expect(try CLI.run(["db", "encrypt", plain, encrypted, "--compat", "3", "--db-key", Self.rawKey]).status == 0)
        let fields: Set = ["path", "state", "format", "key", "keyKind", "pageSize", "pageCount", "journalMode", "fileSize",
                           "settings", "reason"]

        func info(_ path: String, _ extra: [String] = [], environment: [String: String] = [:]) throws -> [String: Any] {
            let result = try CLI.run(["db", "info", path, "--json"] + extra, environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            let object = try #require(try CLI.json(result.stdout) as? [String: Any])
            #expect(Set(object.keys) == fields)
            return object
        }
        let plainInfo = try info(plain)
        #expect(plainInfo["state"] as? String == "plain")
        #expect(plainInfo["pageSize"] as? Int == 4096)
        #expect(plainInfo["format"] is NSNull)
        #expect(try info(encrypted)["state"] as? String == "encryptedOrNotADatabase")
        #expect(try info(encrypted, ["--db-key", "wrong"])["state"] as? String == "wrongKey")
        #expect(try info(folder.file("none.db"))["state"] as? String == "missing")

        // The environment's key counts after the two given: key 3.
        let found = try info(encrypted, ["--db-key", "wrong", "--db-key", "wrong too"], environment: ["DATACENTER_DB_KEY": Self.rawKey])
        #expect(found["state"] as? String == "encrypted")
        #expect(found["format"] as? String == "sqlcipher3")
        #expect(found["key"] as? Int == 3)
        #expect(found["keyKind"] as? String == "raw")
        let settings = try #require(found["settings"] as? [String: Any])
        #expect(settings["cipher_compatibility"] as? Int == 3 && settings["kdf_iter"] as? Int == 64000, "\(settings)")
        #expect(found["pageSize"] as? Int == 1024)
        #expect(found["journalMode"] as? String == "delete")

        let text = try CLI.run(["db", "info", encrypted, "--db-key", Self.rawKey])
        #expect(text.stdout.contains("encrypted, SQLCipher 3, opened by database key #1 (raw key)"))
    }

    @Test func errorsNameTheFileAndWhatIsWrong() throws {
        let folder = TemporaryFolder()
        let (plain, encrypted, out) = (folder.file("plain.db"), folder.file("enc.db"), folder.file("out.db"))
        try Self.makePlain(plain, rows: 5)
        #expect(try CLI.run(["db", "encrypt", plain, encrypted, "--db-key", "k"]).status == 0)

        let cases: [([String], [String: String], Int32, String)] = [
            (["db", "encrypt", plain, out], [:], 1, "encrypting needs a database key"),
            (["db", "decrypt", plain, out, "--db-key", "k"], [:], 1, "\(plain): plain SQLite database: nothing to decrypt"),
            (["db", "decrypt", encrypted, out], [:], 1, "\(encrypted): encrypted database: pass --db-key"),
            (["db", "decrypt", encrypted, out, "--db-key", "nope"], [:], 1, "\(encrypted): wrong key or not an encrypted database"),
            (["db", "encrypt", plain, encrypted, "--db-key", "k"], [:], 1, "\(encrypted): exists already"),
            (["db", "encrypt", encrypted, out, "--db-key", "k"], [:], 1, "\(encrypted): encrypted already"),
            (["db", "rekey", plain, "--to", "n", "--db-key", "k"], [:], 1, "\(plain): plain SQLite database"),
            (["db", "rekey", encrypted, "--to", "n", "--db-key", "nope"], [:], 1, "wrong key or not an encrypted database"),
            (["db", "decrypt", folder.file("none.db"), out, "--db-key", "k"], [:], 1, "none.db: no such file"),
            (["db", "encrypt", plain, out, "--db-key", "@" + folder.file("missing.key")], [:], 1, "cannot read key file"),
            (["db", "encrypt", plain, out, "--db-key", "x'abcd'"], [:], 1, "64 hex digits"),
            (["db", "encrypt", plain, out, "--db-key", "k", "--compat", "5"], [:], 2, "--compat takes 4, 3, 2 or 1"),
        ]
        for (arguments, environment, status, message) in cases {
            let result = try CLI.run(arguments, environment: environment)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(arguments)")
        }
        // Nothing was changed by the refusals.
        #expect(try Self.count(encrypted, key: try .passphrase("k")) == 5)
    }

    @Test func rekeyChangesKeyAndFormatInPlace() throws {
        let folder = TemporaryFolder()
        let (plain, file) = (folder.file("plain.db"), folder.file("store.db"))
        try Self.makePlain(plain, rows: 50)
        #expect(try CLI.run(["db", "encrypt", plain, file, "--db-key", "old"]).status == 0)
        let newKeyFile = folder.file("new.key")
        try Data((Self.rawKey + "\n").utf8).write(to: URL(fileURLWithPath: newKeyFile))
        let rekey = try CLI.run(["db", "rekey", file, "--to", "@" + newKeyFile, "--compat", "3", "--db-key", "old"])
        #expect(rekey.status == 0, "\(rekey.stderr)")
        #expect(rekey.stdout.contains("from SQLCipher 4 to SQLCipher 3"))
        #expect(try Self.count(file, key: try DatabaseKey(sqlcipherKey: Self.rawKey, format: .sqlcipher3)) == 50)
        #expect(throws: DatabaseError.self) { try Self.count(file, key: try .passphrase("old")) }
    }
}

/// Files written by `db encrypt` open in the real SQLCipher, and files SQLCipher writes
/// decrypt with `db decrypt`: both formats, passphrases and raw keys. Both sides derive
/// keys as SQLCipher does (256,000 rounds for SQLCipher 4), whatever count the other tests
/// use (`DATACENTER_TEST_KDF_ITER`): these prove that SQLCipher's real defaults need the key alone.
@Suite(.enabled(if: SQLCipherReference.isAvailable, "SQLCipher reference missing: run `make sqlcipher-reference`"))
struct DBCommandInteropTests {
    static let cases: [(key: String, literal: String, compat: Int)] = [
        ("pass phrase", "'pass phrase'", 4), ("pass phrase", "'pass phrase'", 3),
        (DBCommandTests.rawKey, "\"\(DBCommandTests.rawKey)\"", 4), (DBCommandTests.rawKey, "\"\(DBCommandTests.rawKey)\"", 3),
    ]

    @Test(arguments: 0..<4)
    func encryptedFilesOpenInSQLCipher(_ index: Int) throws {
        let (key, literal, compat) = Self.cases[index]
        let folder = TemporaryFolder()
        let (plain, encrypted) = (folder.file("plain.db"), folder.file("enc.db"))
        try DBCommandTests.makePlain(plain, rows: 400)
        let result = try CLI.run(["db", "encrypt", plain, encrypted, "--compat", String(compat), "--db-key", key],
                                 environment: CLI.fullKeyDerivation)
        #expect(result.status == 0, "\(result.stderr)")
        let read = try SQLCipherReference.query(path: encrypted, keyLiteral: literal, compatibility: compat,
                                            sql: "SELECT count(*), max(name) FROM t; PRAGMA integrity_check; PRAGMA user_version",
                                            fullDerivation: true)
        #expect(read.status == 0, "\(read.output)")
        #expect(read.output == "400|name 99\nok\n3")
    }

    @Test(arguments: 0..<4)
    func sqlcipherFilesDecrypt(_ index: Int) throws {
        let (key, literal, compat) = Self.cases[index]
        let folder = TemporaryFolder()
        let (encrypted, plain) = (folder.file("made.db"), folder.file("plain.db"))
        let made = try SQLCipherReference.query(path: encrypted, keyLiteral: literal, compatibility: compat, sql: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT); CREATE INDEX t_name ON t(name);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 700) INSERT INTO t SELECT x, 'row ' || x FROM c;
            DELETE FROM t WHERE id % 7 = 0; CREATE VIEW odd AS SELECT * FROM t WHERE id % 2 = 1; SELECT count(*) FROM t
            """, fullDerivation: true)
        #expect(made.output == "600", "\(made.output)")
        let result = try CLI.run(["db", "decrypt", encrypted, plain, "--db-key", key], environment: CLI.fullKeyDerivation)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("SQLCipher \(compat)"))
        let db = try Database(path: plain, mode: .readOnly)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(600))
        #expect(try db.scalar("SELECT count(*) FROM odd") == .integer(300))
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
    }
}

/// A SQLCipher file with transactions still in its WAL (a crash, or a copy of a phone's files
/// made while the app ran): its frames are read like ours, and a conversion carries them over.
@Suite(.enabled(if: SQLCipherReference.isAvailable, "SQLCipher reference missing: run `make sqlcipher-reference`"))
struct DBCommandForeignWALTests {
    @Test(arguments: [4, 3])
    func uncheckpointedSQLCipherFramesAreCarriedOver(_ compat: Int) throws {
        let folder = TemporaryFolder()
        let (live, copy, out) = (folder.file("live.db"), folder.file("copy.db"), folder.file("out.db"))
        // SQLCipher writes in WAL mode and, connection still open, the files are copied as a
        // crash (or a backup of a phone) leaves them.
        let program = """
        import sys, shutil, sqlcipher3
        live, copy, compat = sys.argv[1:4]
        db = sqlcipher3.connect(live, isolation_level=None)
        db.execute("PRAGMA key = 'wal secret'")
        if compat == "3":
            db.execute("PRAGMA cipher_compatibility = 3")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA wal_autocheckpoint = 0")
        db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
        db.execute("INSERT INTO t(v) VALUES ('in the wal')")
        shutil.copyfile(live, copy)
        shutil.copyfile(live + "-wal", copy + "-wal")
        db.close()
        """
        let made = try SQLCipherReference.run(["-c", program, live, copy, String(compat)])
        #expect(made.status == 0, "\(made.output)")
        let walBefore = try Data(contentsOf: URL(fileURLWithPath: copy + "-wal"))
        #expect(walBefore.count > 32, "the copy's WAL should hold frames")

        let result = try CLI.run(["db", "decrypt", copy, out, "--db-key", "wal secret"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Database(path: out, mode: .readOnly).scalar("SELECT v FROM t") == .text("in the wal"))
        // Decrypting only reads: the source's WAL is as SQLCipher left it.
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy + "-wal")) == walBefore)

        // A rekey in place checkpoints the frames into the file first, then moves it.
        let rekey = try CLI.run(["db", "rekey", copy, "--to", "other", "--db-key", "wal secret"])
        #expect(rekey.status == 0, "\(rekey.stderr)")
        let read = try SQLCipherReference.query(path: copy, keyLiteral: "'other'", compatibility: 4, sql: "SELECT v FROM t")
        #expect(read.output.hasSuffix("in the wal"), "\(read.output)")
    }
}

/// `db rekey` while another process (SQLCipher itself) has the file open in WAL mode: refused,
/// the file left as it was; once that process is gone, the same command succeeds.
@Suite(.enabled(if: SQLCipherReference.isAvailable, "SQLCipher reference missing: run `make sqlcipher-reference`"))
struct DBCommandInUseTests {
    @Test func rekeyRefusesAFileAnotherProcessHasOpen() throws {
        let folder = TemporaryFolder()
        let (plain, file) = (folder.file("plain.db"), folder.file("store.db"))
        try DBCommandTests.makePlain(plain, rows: 20)
        #expect(try CLI.run(["db", "encrypt", plain, file, "--db-key", "shared"]).status == 0)
        do { try Database(path: file, key: try .passphrase("shared")).enableWAL() }

        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: SQLCipherReference.python)
        holder.arguments = ["-c", SQLCipherReference.program("""
            import sys, sqlcipher3
            db = sqlcipher3.connect(sys.argv[1], isolation_level=None)
            db.execute("PRAGMA key = 'shared'")
            print(db.execute("SELECT count(*) FROM t").fetchone()[0], flush=True)
            sys.stdin.read()
            """), file]
        let input = Pipe(), output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        let ready = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        #expect(ready.hasPrefix("20"), "\(ready)")

        let refused = try CLI.run(["db", "rekey", file, "--to", "next", "--db-key", "shared", "--busy-timeout", "0.3"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("\(file): in use by another connection or process"), "\(refused.stderr)")
        let info = try CLI.run(["db", "info", file, "--db-key", "shared", "--json"])
        #expect((try CLI.json(info.stdout) as? [String: Any])?["journalMode"] as? String == "wal", "\(info.stdout)")

        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        let done = try CLI.run(["db", "rekey", file, "--to", "next", "--db-key", "shared"])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(try DBCommandTests.count(file, key: try .passphrase("next")) == 20)
    }

    // MARK: SQLCipher settings

    /// Runs the pinned SQLCipher on `path` with `key` and `pragmas`, printing the rows of `t`.
    static func sqlcipherCount(_ path: String, key: String, pragmas: [String]) throws -> (status: Int32, output: String) {
        try SQLCipherReference.run(["-c", """
            import sys, sqlcipher3
            db = sqlcipher3.connect(sys.argv[1], isolation_level=None)
            db.execute("PRAGMA key = '" + sys.argv[2] + "'")
            for p in sys.argv[3:]:
                db.execute("PRAGMA " + p)
            print(db.execute("SELECT count(*) FROM t").fetchone()[0], db.execute("PRAGMA integrity_check").fetchone()[0])
            """, path, key] + pragmas)
    }

    @Test(.enabled(if: SQLCipherReference.isAvailable, "SQLCipher reference missing"))
    func encryptAndRekeyWriteTheSettingsNamedAndInfoFindsThem() throws {
        let folder = TemporaryFolder()
        let (plain, encrypted) = (folder.file("plain.db"), folder.file("enc.db"))
        try DBCommandTests.makePlain(plain, rows: 50)
        // --compat 2, then settings on top of it, in SQLCipher's pragma names.
        let encrypt = try CLI.run(["db", "encrypt", plain, encrypted, "--db-key", "pw", "--compat", "2",
                                   "--db-cipher", "cipher_page_size=4096", "--db-cipher", "cipher_hmac_pgno=be"])
        #expect(encrypt.status == 0, "\(encrypt.stderr)")
        #expect(encrypt.stdout.contains("custom SQLCipher settings"), "\(encrypt.stdout)")
        let read = try Self.sqlcipherCount(encrypted, key: "pw", pragmas: ["cipher_compatibility=2", "cipher_page_size=4096", "cipher_hmac_pgno=be"])
        #expect(read.status == 0 && read.output == "50 ok", "\(read.output)")

        // The key alone finds them, and info shows them as pragmas to paste into an app.
        let info = try CLI.run(["db", "info", encrypted, "--db-key", "pw"])
        #expect(info.status == 0, "\(info.stderr)")
        // What differs from SQLCipher 4's defaults (where an app on SQLCipher 4 starts).
        #expect(info.stdout.contains("settings: PRAGMA kdf_iter = 4000; PRAGMA cipher_hmac_algorithm = HMAC_SHA1; "
                                     + "PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA1; PRAGMA cipher_hmac_pgno = be;"), "\(info.stdout)")
        let json = try #require(try CLI.json(try CLI.run(["db", "info", encrypted, "--db-key", "pw", "--json"]).stdout) as? [String: Any])
        #expect(json["format"] as? String == "custom")
        #expect((json["settings"] as? [String: Any])?["cipher_hmac_algorithm"] as? String == "HMAC_SHA1")

        // --verbose on another command says what opened it, on stderr.
        let verbose = try CLI.run(["sql", encrypted, "SELECT count(*) FROM t", "--db-key", "pw", "--verbose"])
        #expect(verbose.status == 0 && verbose.stdout.contains("50"), "\(verbose.stderr)")
        #expect(verbose.stderr.contains("\(encrypted): opened with database key #1; settings: PRAGMA kdf_iter = 4000;"), "\(verbose.stderr)")

        // Rekeyed into SQLCipher 1's settings (no HMAC): SQLCipher opens it with them.
        let rekey = try CLI.run(["db", "rekey", encrypted, "--db-key", "pw", "--to", "new", "--to-cipher", "cipher_compatibility=1"])
        #expect(rekey.status == 0, "\(rekey.stderr)")
        #expect(rekey.stdout.contains("to SQLCipher 1"), "\(rekey.stdout)")
        let after = try Self.sqlcipherCount(encrypted, key: "new", pragmas: ["cipher_compatibility=1"])
        #expect(after.status == 0 && after.output == "50 ok", "\(after.output)")
    }

    @Test func aSettingThatDoesNotParseIsNamed() throws {
        let folder = TemporaryFolder()
        let plain = folder.file("plain.db")
        try DBCommandTests.makePlain(plain, rows: 1)
        for (pair, expected) in [("kdf_iter=many", "kdf_iter: expected a whole number"),
                                 ("kdf_iter=0", "kdf_iter must be a whole number from 1 to 2147483647, not 0"),
                                 // Past what SQLCipher's int holds: refused with its bound, not as "at least 1".
                                 ("kdf_iter=3000000000", "kdf_iter must be a whole number from 1 to 2147483647, not 3000000000"),
                                 ("cipher_page_size=1000", "cipher_page_size must be a power of 2"),
                                 ("cipher_colour=red", "unknown database cipher setting 'cipher_colour'")] {
            let result = try CLI.run(["db", "encrypt", plain, folder.file("out-\(pair.count).db"), "--db-key", "pw", "--db-cipher", pair])
            #expect(result.status != 0)
            #expect(result.stderr.contains(expected), "\(pair): \(result.stderr)")
        }
        // The environment's pairs, separated by ';', count too.
        let env = try CLI.run(["db", "info", plain, "--db-key", "pw"], environment: ["DATACENTER_DB_CIPHER": "kdf_iter=64000; cipher_use_hmac=maybe"])
        #expect(env.status != 0 && env.stderr.contains("cipher_use_hmac: expected ON or OFF"), "\(env.stderr)")
    }

    // MARK: Damage and paths

    @Test func infoAnswersForACutShortFileWithOneJSONObject() throws {
        let folder = TemporaryFolder()
        let (plain, encrypted) = (folder.file("plain.db"), folder.file("enc.db"))
        try DBCommandTests.makePlain(plain, rows: 200)
        #expect(try CLI.run(["db", "encrypt", plain, encrypted, "--db-key", "pw"]).status == 0)
        for (path, key) in [(plain, [String]()), (encrypted, ["--db-key", "pw"])] {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            try data.prefix(data.count - 1000).write(to: URL(fileURLWithPath: path))
            let result = try CLI.run(["db", "info", path, "--json"] + key)
            #expect(result.status == 0, "\(result.stderr)")
            let object = try #require(try CLI.json(result.stdout) as? [String: Any])
            #expect(object["state"] as? String == "damaged", "\(result.stdout)")
            #expect((object["reason"] as? String)?.contains("cut short") == true, "\(result.stdout)")
            let text = try CLI.run(["db", "info", path] + key)
            #expect(text.status == 0 && text.stdout.contains("damaged: "), "\(text.stdout)\(text.stderr)")
        }
    }

    @Test func errorsNameTheFileAsItWasGiven() throws {
        let folder = TemporaryFolder()
        let (plain, encrypted) = (folder.file("plain.db"), folder.file("enc.db"))
        try DBCommandTests.makePlain(plain, rows: 5)
        #expect(try CLI.run(["db", "encrypt", plain, encrypted, "--db-key", "pw"]).status == 0)
        try FileManager.default.createSymbolicLink(atPath: folder.file("link.db"), withDestinationPath: "enc.db")
        for given in ["./enc.db", "link.db"] {
            let result = try CLI.run(["db", "rekey", given, "--db-key", "wrong", "--to", "new"], directory: folder.path)
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("error: \(given): wrong key or not an encrypted database"), "\(result.stderr)")
            // What was tried, and what to give.
            #expect(result.stderr.contains("--db-cipher"), "\(result.stderr)")
        }
    }
}

/// SQLite3 Multiple Ciphers' schemes through the commands: written by `db encrypt` and
/// `db rekey --to-cipher`, named by `db info` in its own setting names, read by `sql` with
/// the key alone.
@Suite struct DBSQLite3MultipleCiphersCommandTests {
    @Test func encryptInfoRekeyAndReadAcrossSchemes() throws {
        let folder = TemporaryFolder()
        let (plain, chacha) = (folder.file("plain.db"), folder.file("chacha.db"))
        try DBCommandTests.makePlain(plain, rows: 50)
        let encrypt = try CLI.run(["db", "encrypt", plain, chacha, "--db-key", "s3", "--db-cipher", "cipher=chacha20"])
        #expect(encrypt.status == 0, "\(encrypt.stderr)")
        #expect(encrypt.stdout.contains("encrypted (SQLite3 Multiple Ciphers chacha20)"), "\(encrypt.stdout)")
        #expect(encrypt.stderr.isEmpty, "\(encrypt.stderr)")

        let info = try #require(try CLI.json(try CLI.run(["db", "info", chacha, "--db-key", "s3", "--json"]).stdout) as? [String: Any])
        #expect(info["state"] as? String == "encrypted" && info["format"] as? String == "sqlite3mc-chacha20", "\(info)")
        let settings = try #require(info["settings"] as? [String: Any])
        #expect(settings["cipher"] as? String == "chacha20" && settings["legacy"] as? Int == 0
            && settings["kdf_iter"] as? Int == 64_007 && settings["page_size"] as? Int == 4096, "\(settings)")
        let text = try CLI.run(["db", "info", chacha, "--db-key", "s3"])
        #expect(text.stdout.contains("SQLite3 Multiple Ciphers chacha20") && text.stdout.contains("PRAGMA cipher = 'chacha20';"), "\(text.stdout)")

        let read = try CLI.run(["sql", chacha, "SELECT count(*) FROM t", "--db-key", "s3", "--json"])
        #expect(read.status == 0 && read.stdout.contains("50"), "\(read.stdout)\(read.stderr)")

        // Between schemes, SQLCipher's included; cipher=sqlcipher warns that SQLCipher cannot read it.
        let toAES = try CLI.run(["db", "rekey", chacha, "--db-key", "s3", "--to", "t4", "--to-cipher", "cipher=aes256cbc"])
        #expect(toAES.status == 0 && toAES.stdout.contains("from SQLite3 Multiple Ciphers chacha20 to SQLite3 Multiple Ciphers aes256cbc"),
                "\(toAES.stdout)\(toAES.stderr)")
        let toMC = try CLI.run(["db", "rekey", chacha, "--db-key", "t4", "--to", "t5", "--to-cipher", "cipher=sqlcipher"])
        #expect(toMC.status == 0 && toMC.stderr.contains("warning: cipher=sqlcipher writes SQLite3 Multiple Ciphers' non-legacy"),
                "\(toMC.stderr)")
        let toSQLCipher = try CLI.run(["db", "rekey", chacha, "--db-key", "t5", "--to", "t6"])
        #expect(toSQLCipher.status == 0 && toSQLCipher.stdout.contains("to SQLCipher 4"), "\(toSQLCipher.stdout)\(toSQLCipher.stderr)")
        let back = try #require(try CLI.json(try CLI.run(["db", "info", chacha, "--db-key", "t6", "--json"]).stdout) as? [String: Any])
        #expect(back["format"] as? String == "sqlcipher4", "\(back)")
    }

    @Test func aSchemeThatIsNotReadOrARawKeyItCannotTakeIsNamed() throws {
        let folder = TemporaryFolder()
        let plain = folder.file("plain.db")
        try DBCommandTests.makePlain(plain, rows: 5)
        let ascon = try CLI.run(["db", "encrypt", plain, folder.file("a.db"), "--db-key", "s3", "--db-cipher", "cipher=ascon128"])
        #expect(ascon.status == 1 && ascon.stderr.contains("cipher: expected chacha20, aes128cbc, aes256cbc, sqlcipher or rc4"), "\(ascon.stderr)")
        let raw = try CLI.run(["db", "encrypt", plain, folder.file("r.db"), "--db-key", DBCommandTests.rawKey, "--db-cipher", "cipher=rc4"])
        #expect(raw.status == 1 && raw.stderr.contains("cipher=rc4 derives its key from the text it is given"), "\(raw.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("a.db")) && !FileManager.default.fileExists(atPath: folder.file("r.db")))
    }
}
