import DatacenterKit
import Foundation

/// The page-encryption benchmarks behind `datacenter bench db`: the engine's work on an
/// encrypted database (SQLCipher's format) against the identical work on a plain one, both
/// through `Database`, in one run; and an import into a SQLCipher 3 file against the real
/// SQLCipher doing the same import (`SQLCipherPython`).
///
/// Passphrase keys pay PBKDF2 when the file is opened; every file is opened before its timed
/// part, so the figures are the cipher's per-page cost, never the key derivation.
package enum DatabaseBenchmark {
    /// Sizes of the runs; `quick` is for smoke runs, `standard` for figures worth reporting.
    package struct Scale: Sendable {
        var rows: Int
        var reads: Int
        var readRounds: Int
        var batches: Int
        var batchRounds: Int
        var scanRounds: Int
        var importRounds: Int
        var spillRows: Int
        var spillRounds: Int
        var convertRows: Int
        var convertRounds: Int

        /// A 200,000-row table (about 40 MB with the cipher's reserve, far beyond SQLite's
        /// 2 MB page cache, so reads really pass through the cipher).
        package static let standard = Scale(rows: 200_000, reads: 20_000, readRounds: 15, batches: 10, batchRounds: 9,
                                           scanRounds: 7, importRounds: 7, spillRows: 150_000, spillRounds: 5,
                                           convertRows: 800_000, convertRounds: 3)
        /// Small runs: checks that every scenario runs, not how fast.
        package static let quick = Scale(rows: 5_000, reads: 2_000, readRounds: 3, batches: 2, batchRounds: 3,
                                        scanRounds: 3, importRounds: 1, spillRows: 5_000, spillRounds: 1,
                                        convertRows: 20_000, convertRounds: 1)
    }

    /// The scenarios, in the order they run.
    package static let scenarios = ["db-point-read", "db-point-read-cold", "db-full-scan", "db-batch-write", "db-wal-spill-update",
                                   "db-import"] + DatabaseConversionBenchmark.scenarios + SQLite3MCBenchmark.scenarios

    /// The passphrase of the SQLCipher 4 files (a benchmark's scratch key, published so the
    /// files kept with `--keep-files` can be opened).
    package static let passphrase = "datacenter-bench"
    /// The raw key of the `db-import` files, as 64 hex digits (SQLCipher 3 format).
    package static let rawKeyHex = String(repeating: "2b7e1516", count: 8)
    /// Rows `db-point-read` reads among: their pages (about 1.2 MB) fit in SQLite's
    /// default 2 MB page cache, so after the first round they are decrypted no more.
    package static let cachedRows = 8_000
    /// Rows in one transaction of `db-batch-write`.
    package static let batchSize = 1_000

    /// The files a run leaves in its folder (with `keepFiles`): each scenario's encrypted file
    /// and the plain or SQLCipher file it is compared with.
    package static let files = (read: (encrypted: "read-encrypted.sqlite", plain: "read-plain.sqlite"),
                               write: (encrypted: "write-encrypted.sqlite", plain: "write-plain.sqlite"),
                               spill: (encrypted: "spill-encrypted.sqlite", plain: "spill-plain.sqlite"),
                               importing: (encrypted: "import-engine.sqlite", reference: "import-sqlcipher.sqlite"))

    /// Why a scenario could not measure what it measures.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs the selected scenarios in `folder` (created if needed; removed afterwards unless
    /// `keepFiles`) and reports each result as soon as it is measured.
    package static func run(in folder: String, scale: Scale = .standard, selection: BenchmarkSelection = .all,
                           keepFiles: Bool = false, report: (BenchmarkResult) -> Void) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { if !keepFiles { try? FileTree.remove(atPath: folder) } }
        let key = try DatabaseKey.passphrase(passphrase, format: .sqlcipher4)
        var sink = 0

        if selection.includesAny("db-point-read", "db-point-read-cold", "db-full-scan") {
            let encrypted = try open(folder + "/" + files.read.encrypted, key: key)
            let plain = try open(folder + "/" + files.read.plain, key: nil)
            for db in [encrypted, plain] { try fill(db, rows: scale.rows) }
            try checkEncryption(encrypted: encrypted.path, plain: plain.path)

            if selection.includes("db-point-read") {
                let reads = scale.reads, rows = min(cachedRows, scale.rows)
                let (e, b) = try Stopwatch.interleaved(rounds: scale.readRounds, operations: reads, engine: { round in
                    sink &+= try pointReads(encrypted, count: reads, rows: rows, seed: round)
                }, baseline: { round in
                    sink &+= try pointReads(plain, count: reads, rows: rows, seed: round)
                })
                report(result("db-point-read", e, b, limit: 1.3,
                              what: "random rowids among \(rows) rows, a working set the page cache holds; statement reused"))
            }
            if selection.includes("db-point-read-cold") {
                let reads = scale.reads, rows = scale.rows
                let (e, b) = try Stopwatch.interleaved(rounds: scale.readRounds, operations: reads, engine: { round in
                    sink &+= try pointReads(encrypted, count: reads, rows: rows, seed: round)
                }, baseline: { round in
                    sink &+= try pointReads(plain, count: reads, rows: rows, seed: round)
                })
                report(BenchmarkResult(scenario: "db-point-read-cold", engineNanoseconds: e, baselineNanoseconds: b,
                                       target: "reported only: random rowids of a table beyond the page cache; a read that misses "
                                           + "authenticates (HMAC-SHA512) and decrypts a 4 KB page, as SQLCipher does",
                                       meetsTarget: true, isReportedOnly: true))
            }
            if selection.includes("db-full-scan") {
                let rows = scale.rows
                let (e, b) = try Stopwatch.interleaved(rounds: scale.scanRounds, operations: rows, engine: { _ in
                    sink &+= try scan(encrypted, rows: rows)
                }, baseline: { _ in
                    sink &+= try scan(plain, rows: rows)
                })
                report(result("db-full-scan", e, b, limit: 1.8, what: "every row, table beyond the page cache"))
            }
        }

        if selection.includes("db-batch-write") {
            let encrypted = try open(folder + "/" + files.write.encrypted, key: key)
            let plain = try open(folder + "/" + files.write.plain, key: nil)
            for db in [encrypted, plain] { try db.execute(schema) }
            let rows = scale.batches * batchSize
            var next = (encrypted: 0, plain: 0)
            let (e, b) = try Stopwatch.interleaved(rounds: scale.batchRounds, operations: rows, engine: { _ in
                try insert(encrypted, batches: scale.batches, from: &next.encrypted)
            }, baseline: { _ in
                try insert(plain, batches: scale.batches, from: &next.plain)
            })
            try checkEncryption(encrypted: encrypted.path, plain: plain.path)
            report(result("db-batch-write", e, b, limit: 1.5, what: "\(batchSize)-row transactions, WAL"))
        }

        if selection.includes("db-wal-spill-update") {
            let encrypted = try open(folder + "/" + files.spill.encrypted, key: key)
            let plain = try open(folder + "/" + files.spill.plain, key: nil)
            let rows = scale.spillRows
            for db in [encrypted, plain] { try fillIndexed(db, rows: rows) }
            let (e, b) = try Stopwatch.interleaved(rounds: scale.spillRounds, operations: rows, engine: { round in
                try spillUpdate(encrypted, round: round, rows: rows)
            }, baseline: { round in
                try spillUpdate(plain, round: round, rows: rows)
            })
            try checkEncryption(encrypted: encrypted.path, plain: plain.path)
            report(result("db-wal-spill-update", e, b, limit: 2.5,
                          what: "one UPDATE of an indexed column over \(rows) rows, WAL: the transaction spills the page cache"))
        }

        if selection.includes("db-import") { report(try importScenario(folder: folder, rounds: scale.importRounds)) }
        try DatabaseConversionBenchmark.run(in: folder, rows: scale.convertRows, rounds: scale.convertRounds, selection: selection,
                                            report: report)
        try SQLite3MCBenchmark.run(in: folder, rows: scale.convertRows, rounds: scale.convertRounds, selection: selection,
                                   report: report)
        if sink == 42 { print("") } // keeps the reads from being optimized away
    }

    /// The result of a ratio target of `limit`, its target line naming what was timed.
    private static func result(_ scenario: String, _ engine: Double, _ baseline: Double, limit: Double, what: String) -> BenchmarkResult {
        BenchmarkResult(scenario: scenario, engineNanoseconds: engine, baselineNanoseconds: baseline,
                        target: String(format: "ratio <= %.1f (%@; baseline: the same on a plain file; KDF at open, untimed)", limit, what),
                        meetsTarget: engine <= baseline * limit)
    }

    // MARK: The work

    /// The table the scenarios read and write: a messages table of the benchmarks' shape.
    static let schema = "CREATE TABLE IF NOT EXISTS messages(id INTEGER PRIMARY KEY, sender INTEGER, time INTEGER, content TEXT)"

    /// Opens `path` as the engine's stores are opened (WAL, `synchronous=NORMAL`), encrypted
    /// with `key` when given. Opening pays the key derivation, before any timing.
    private static func open(_ path: String, key: DatabaseKey?) throws -> Database {
        let db = try Database(path: path, key: key)
        try db.enableWAL()
        return db
    }

    /// Row `i`'s text: about 100 bytes, varied so pages do not compress into sameness.
    private static func content(_ i: Int) -> DatabaseValue {
        .text("message \(i) from \(i &* 2_654_435_761 % 1_000_003): see you at the meeting tomorrow, bring the notes \(i % 97)")
    }

    /// Inserts `batches` transactions of `batchSize` rows, ids counting on from `next`.
    private static func insert(_ db: Database, batches: Int, from next: inout Int) throws {
        let statement = try db.cachedStatement("INSERT INTO messages(id, sender, time, content) VALUES (?, ?, ?, ?)")
        for _ in 0..<batches {
            try db.inTransaction(.immediate) {
                for _ in 0..<batchSize {
                    next += 1
                    statement.reset()
                    try statement.bind(.integer(Int64(next)), toParameter: 1)
                    try statement.bind(.integer(Int64(100_000 + next % 5_000)), toParameter: 2)
                    try statement.bind(.integer(Int64(1_600_000_000 + next * 7)), toParameter: 3)
                    try statement.bind(content(next), toParameter: 4)
                    _ = try statement.step()
                }
            }
        }
        statement.reset()
    }

    /// Fills the table with `rows` rows (untimed set-up) and checkpoints, so reads come from
    /// the database file itself.
    private static func fill(_ db: Database, rows: Int) throws {
        try db.execute(schema)
        var next = 0
        try insert(db, batches: (rows + batchSize - 1) / batchSize, from: &next)
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// The `db-wal-spill-update` table: `rows` rows with an index on the column the update
    /// changes (untimed set-up), checkpointed.
    private static func fillIndexed(_ db: Database, rows: Int) throws {
        try db.execute("CREATE TABLE spill(id INTEGER PRIMARY KEY, v TEXT)")
        try db.execute("CREATE INDEX spill_v ON spill(v)")
        try db.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO spill(v) SELECT 'value ' || i FROM n
            """)
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Rewrites every row's indexed value in one transaction: the index's pages outgrow the
    /// page cache, which spills into the WAL before the commit (SQLite then rewrites the
    /// checksums of the frames written before it).
    private static func spillUpdate(_ db: Database, round: Int, rows: Int) throws {
        try db.execute("UPDATE spill SET v = 'round \(round) ' || id")
        guard try db.scalar("SELECT count(*) FROM spill WHERE v = 'round \(round) \(rows)'") == .integer(1) else {
            throw Failure(description: "the update of \(db.path) did not reach every row")
        }
    }

    /// `count` lookups of rowids spread over the table; returns the bytes read.
    private static func pointReads(_ db: Database, count: Int, rows: Int, seed: Int) throws -> Int {
        let statement = try db.cachedStatement("SELECT content FROM messages WHERE id = ?")
        var bytes = 0
        var id = seed &* 7_919 &+ 1
        for _ in 0..<count {
            id = (id &* 48_271 &+ 12_345) % rows
            try statement.bind(.integer(Int64(id + 1)), toParameter: 1)
            guard try statement.step() else { throw Failure(description: "row \(id + 1) missing from \(db.path)") }
            if case .text(let text) = statement.value(at: 0) { bytes &+= text.utf8.count }
            statement.reset()
        }
        return bytes
    }

    /// Reads every row and column of the table; returns a sum of what it read.
    private static func scan(_ db: Database, rows: Int) throws -> Int {
        let statement = try db.cachedStatement("SELECT id, sender, time, content FROM messages")
        var total = 0, count = 0
        try statement.forEachRow { row in
            count += 1
            for column in 0..<4 {
                switch row.value(at: column) {
                case .integer(let value): total &+= Int(value)
                case .text(let text): total &+= text.utf8.count
                default: break
                }
            }
            return true
        }
        guard count == rows else { throw Failure(description: "the scan of \(db.path) read \(count) rows, not \(rows)") }
        return total
    }

    /// Checks that the encrypted file is not a plain SQLite file and that the plain one is:
    /// a run that compared plaintext with plaintext would measure nothing.
    private static func checkEncryption(encrypted: String, plain: String?) throws {
        let header = Array("SQLite format 3\0".utf8)
        func head(_ path: String) throws -> [UInt8] {
            guard let handle = FileHandle(forReadingAtPath: path) else { throw Failure(description: "cannot read \(path)") }
            defer { try? handle.close() }
            return [UInt8](try handle.read(upToCount: 16) ?? Data())
        }
        guard try head(encrypted).count == 16, try head(encrypted) != header else {
            throw Failure(description: "\(encrypted) is not encrypted: it starts with SQLite's plaintext header")
        }
        if let plain, try head(plain) != header { throw Failure(description: "\(plain) is not a plain SQLite file") }
    }

    // MARK: db-import

    /// `KVBenchmark`'s `import` dump imported into a new SQLCipher 3 file with a raw key,
    /// against SQLCipher doing the same import (the import alone is timed on both sides: the
    /// file is opened and keyed before). Without the reference, the baseline is 0 and the
    /// target line says how to install it.
    static func importScenario(folder: String, rounds: Int) throws -> BenchmarkResult {
        let dumpPath = folder + "/dump.sql"
        try KVBenchmark.makeDump(bytes: 600_000).write(toFile: dumpPath, atomically: true, encoding: .utf8)
        let key = try DatabaseKey(sqlcipherKey: "x'\(rawKeyHex)'", format: .sqlcipher3)
        let reference = SQLCipherPython.python != nil
        var engine: [Double] = [], baseline: [Double] = []
        for round in 0..<max(1, rounds) {
            let ours = folder + "/" + files.importing.encrypted, theirs = folder + "/" + files.importing.reference
            for path in [ours, theirs] { removeDatabase(at: path) }
            /// Our import, timed without the open (as the reference's).
            func engineImport() throws {
                let db = try Database(path: ours, key: key)
                engine.append(try Stopwatch.time { _ = try db.importDump(atPath: dumpPath) })
            }
            if round % 2 == 0 { try engineImport() }
            if reference { baseline.append(try SQLCipherPython.importTime(dump: dumpPath, into: theirs, keyHex: rawKeyHex)) }
            if round % 2 == 1 { try engineImport() }
            try checkEncryption(encrypted: ours, plain: nil)
            if reference {
                try checkEncryption(encrypted: theirs, plain: nil)
                // The same work on both sides: SQLCipher's file opens with our reader and holds what ours holds.
                let count = "SELECT count(*) FROM messages"
                let (a, b) = (try Database(path: ours, key: key, mode: .readOnly).scalar(count),
                              try Database(path: theirs, key: key, mode: .readOnly).scalar(count))
                guard a == b, (a?.int64Value ?? 0) > 0 else {
                    throw Failure(description: "the imports differ: \(ours) holds \(a.map(String.init(describing:)) ?? "nothing"), \(theirs) \(b.map(String.init(describing:)) ?? "nothing")")
                }
            }
        }
        let e = Stopwatch.median(engine), b = Stopwatch.median(baseline)
        let target = reference
            ? "ratio <= 1.2 (600 KB dump, raw key, SQLCipher 3 format; baseline: SQLCipher 4.12's Python module, compatibility 3, executescript alone)"
            : "ratio <= 1.2 against SQLCipher: baseline unavailable, \(SQLCipherPython.howToInstall)"
        return BenchmarkResult(scenario: "db-import", engineNanoseconds: e, baselineNanoseconds: b, target: target,
                               meetsTarget: !reference || e <= b * 1.2)
    }

    /// Removes a database file and its journal, WAL and shared-memory files.
    static func removeDatabase(at path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
