import DatacenterKit
import Foundation
import Testing

/// kill -9 across implementations: one side (this engine, or the pinned SQLCipher 4) rewrites
/// every row of an encrypted file in transactions that spill the page cache (into the file
/// behind a rollback journal, or into the WAL), and is killed at a random moment; the other
/// side opens what it left and must see the last committed generation whole, nothing of the
/// interrupted one, and a file both integrity checks pass. `make test` runs a few trials,
/// `make crash` (CRASH_TRIALS) many.
extension CrashTests {
    static let crossPassphrase = "cross crash"
    static let crossRows = 4_000

    /// The CrashWriter's `cipher-update` loop in Python, after `opening` (which sets `db` to
    /// a keyed connection of `path`, read from `sys.argv[1]` as `mode` is from `sys.argv[2]`).
    static func pythonWriter(opening: String) -> String {
        """
        import sys
        path, mode = sys.argv[1], sys.argv[2]
        \(opening)
        if mode == "wal":
            db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA cache_size = 8")
        generation = 1
        while True:
            db.execute("BEGIN IMMEDIATE")
            db.execute("UPDATE t SET v = 'gen ' || ? || ' row ' || id", (generation,))
            db.execute("COMMIT")
            print("ack %d" % generation, flush=True)
            generation += 1
        """
    }

    /// The writer SQLCipher runs.
    static let sqlcipherWriter = pythonWriter(opening: """
        import sqlcipher3
        db = sqlcipher3.connect(path, isolation_level=None)
        db.execute("PRAGMA key = 'cross crash'")
        """)

    /// The writer SQLite3 Multiple Ciphers runs (`apsw-sqlite3mc`), its settings the pragmas
    /// `sys.argv[3]` lists (`cipher=chacha20;legacy=1`).
    static let sqlite3mcWriter = pythonWriter(opening: """
        import apsw
        db = apsw.Connection(path)
        for pragma in sys.argv[3].split(";"): db.execute("PRAGMA " + pragma)
        db.execute("PRAGMA key = 'cross crash'")
        """)

    /// A new encrypted file of `crossRows` rows at generation 0, with an index on the value
    /// the writers rewrite (so each transaction touches pages all over the file), in SQLCipher
    /// 4's format or with `scheme`'s settings (`cipher=chacha20`, `;` between pairs).
    static func makeCrossFile(_ path: String, scheme: String? = nil) throws {
        let db = try Database(path: path, key: .passphrase(crossPassphrase, settings: try crossSettings(scheme)))
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT, pad BLOB)")
        try db.execute("CREATE INDEX t_v ON t(v)")
        try db.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(crossRows))
            INSERT INTO t SELECT i, 'gen 0 row ' || i, randomblob(150) FROM n
            """)
    }

    /// The generations the file holds (one when every transaction was whole), as SQLCipher
    /// sees it, with its integrity checks (cipher_integrity_check prints a row per failure).
    static func sqlcipherGenerations(_ path: String) throws -> (status: Int32, output: String) {
        try SQLCipherReference.query(path: path, keyLiteral: "'\(crossPassphrase)'", compatibility: 4, sql: """
            SELECT group_concat(g) FROM (SELECT DISTINCT CAST(substr(v, 5, instr(substr(v, 5), ' ') - 1) AS INTEGER) AS g FROM t ORDER BY g);
            SELECT count(*) FROM t; PRAGMA integrity_check; PRAGMA cipher_integrity_check
            """)
    }

    /// SQLCipher 4's settings, or the pairs `scheme` lists (`cipher=chacha20;legacy=1`).
    static func crossSettings(_ scheme: String?) throws -> DatabaseCipherSettings {
        try scheme.map { try DatabaseCipherSettings(pairs: $0.split(separator: ";").map(String.init)) } ?? .sqlcipher4
    }

    /// The same, as this engine sees it.
    static func ourGenerations(_ path: String, scheme: String? = nil) throws -> String {
        let db = try Database(path: path, key: .passphrase(crossPassphrase, settings: try crossSettings(scheme)), mode: .readWriteExisting)
        let generations = try db.scalar("""
            SELECT group_concat(g) FROM (SELECT DISTINCT CAST(substr(v, 5, instr(substr(v, 5), ' ') - 1) AS INTEGER) AS g FROM t ORDER BY g)
            """, cached: false)?.stringValue ?? ""
        let count = try db.scalar("SELECT count(*) FROM t", cached: false)?.int64Value ?? -1
        let check = try db.scalar("PRAGMA integrity_check", cached: false)?.stringValue ?? ""
        return "\(generations)\n\(count)\n\(check)"
    }

    @Test(.enabled(if: SQLCipherReference.isAvailable, "SQLCipher reference missing: run `make test`"),
          arguments: ["delete", "wal"])
    func aKilledWriterOnEitherSideIsRecoveredExactlyByTheOther(mode: String) throws {
        var dice = SplitMix64(seed: Self.seed &+ (mode == "wal" ? 8 : 7))
        let scratch = TemporaryFolder()
        for trial in 0..<max(2, Self.trials / 2) {
            for ours in [true, false] {
                let path = scratch.file("cross-\(mode)-\(trial)-\(ours ? "ours" : "theirs").sqlite")
                try Self.makeCrossFile(path)
                let acks = Int.random(in: 1...3, using: &dice)
                let out = ours
                    ? try Self.runAndKill(Self.writerPath, ["cipher-update", path, mode], acks: acks, dice: &dice)
                    : try Self.runAndKill(SQLCipherReference.python, ["-c", SQLCipherReference.program(Self.sqlcipherWriter), path, mode], acks: acks, dice: &dice)
                let last = Self.lastAck(out)
                let label = "seed \(Self.seed) trial \(trial), \(mode), writer \(ours ? "ours" : "SQLCipher")"
                #expect(last >= 1, "\(label): the writer acknowledged nothing: \(out.suffix(300))")
                // The other side recovers: one generation, the last acknowledged or the next
                // (committed just before the kill, unacknowledged), never a mix.
                let generations: String
                if ours {
                    let read = try Self.sqlcipherGenerations(path)
                    #expect(read.status == 0, "\(label): \(read.output)")
                    let lines = read.output.split(separator: "\n").map(String.init)
                    #expect(lines.count == 3 && lines[1] == "\(Self.crossRows)" && lines[2] == "ok", "\(label): \(read.output)")
                    generations = lines.first ?? ""
                } else {
                    let read = try Self.ourGenerations(path)
                    let lines = read.split(separator: "\n").map(String.init)
                    #expect(lines.count == 3 && lines[1] == "\(Self.crossRows)" && lines[2] == "ok", "\(label): \(read)")
                    generations = lines.first ?? ""
                }
                #expect(generations == "\(last)" || generations == "\(last + 1)", "\(label): generations \(generations), last acknowledged \(last)")
            }
        }
    }

    /// The generations and integrity check as SQLite3 Multiple Ciphers sees the file.
    static func sqlite3mcGenerations(_ path: String, scheme: String) throws -> (status: Int32, output: String) {
        let program = """
            import sys, apsw
            db = apsw.Connection(sys.argv[1])
            for pragma in sys.argv[2].split(";"): db.execute("PRAGMA " + pragma)
            db.execute("PRAGMA key = 'cross crash'")
            print(list(db.execute("SELECT group_concat(g) FROM (SELECT DISTINCT CAST(substr(v, 5, instr(substr(v, 5), ' ') - 1) AS INTEGER) AS g FROM t ORDER BY g)"))[0][0])
            print(list(db.execute("SELECT count(*) FROM t"))[0][0])
            print(list(db.execute("PRAGMA integrity_check"))[0][0])
            """
        return try SQLCipherReference.run(["-c", program, path, scheme], fullDerivation: true)
    }

    static let sqlite3mcAvailable = FileManager.default.isExecutableFile(atPath: SQLCipherReference.python)
        && (try? SQLCipherReference.run(["-c", "import apsw"], fullDerivation: true).status) == 0

    /// The same kill -9 trials in SQLite3 Multiple Ciphers' chacha20 and aes256cbc, against
    /// `apsw-sqlite3mc`: the other side sees the last committed generation whole. And its
    /// `cipher=sqlcipher legacy=4`, SQLCipher 4's own format, whose rollback journal it writes
    /// under SQLite's checksum, not SQLCipher's: recovered here (the other way round, our
    /// journal keeps SQLCipher's convention, which SQLCipher itself needs).
    @Test(.enabled(if: CrashTests.sqlite3mcAvailable, "apsw-sqlite3mc missing: run `make test`"),
          arguments: [("cipher=chacha20", "delete"), ("cipher=chacha20", "wal"), ("cipher=aes256cbc", "delete"),
                      ("cipher=aes256cbc", "wal"), ("cipher=sqlcipher;legacy=4;kdf_iter=256000", "delete")])
    func aKilledWriterInASQLite3MCSchemeIsRecoveredExactlyByTheOther(scheme: String, mode: String) throws {
        var dice = SplitMix64(seed: Self.seed &+ (mode == "wal" ? 18 : 17) &+ UInt64(scheme.utf8.count))
        let scratch = TemporaryFolder()
        let writers = scheme.contains("legacy=4") ? [false] : [true, false]
        for trial in 0..<max(1, Self.trials / 4) {
            for ours in writers {
                let path = scratch.file("mc-\(trial)-\(mode)-\(ours ? "ours" : "theirs").sqlite")
                try Self.makeCrossFile(path, scheme: scheme)
                let acks = Int.random(in: 1...3, using: &dice)
                let out = ours
                    ? try Self.runAndKill(Self.writerPath, ["cipher-update", path, mode, scheme], acks: acks, dice: &dice)
                    : try Self.runAndKill(SQLCipherReference.python, ["-c", Self.sqlite3mcWriter, path, mode, scheme], acks: acks, dice: &dice)
                let last = Self.lastAck(out)
                let label = "seed \(Self.seed) trial \(trial), \(scheme) \(mode), writer \(ours ? "ours" : "SQLite3MC")"
                #expect(last >= 1, "\(label): the writer acknowledged nothing: \(out.suffix(300))")
                let read: String
                if ours {
                    let theirs = try Self.sqlite3mcGenerations(path, scheme: scheme)
                    #expect(theirs.status == 0, "\(label): \(theirs.output)")
                    read = theirs.output.trimmingCharacters(in: .whitespacesAndNewlines)
                } else {
                    read = try Self.ourGenerations(path, scheme: scheme)
                }
                let lines = read.split(separator: "\n").map(String.init)
                #expect(lines.count == 3 && lines[1] == "\(Self.crossRows)" && lines[2] == "ok", "\(label): \(read)")
                let generations = lines.first ?? ""
                #expect(generations == "\(last)" || generations == "\(last + 1)", "\(label): generations \(generations), last acknowledged \(last)")
            }
        }
    }
}
