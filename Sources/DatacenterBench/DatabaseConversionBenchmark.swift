import CPageCipher
import DatacenterKit
import Foundation

/// The `bench db` scenarios measured against the real SQLCipher rather than a plain file:
/// opening a file with its passphrase, and converting a whole file (`db encrypt`, `db
/// decrypt`, `db rekey`) against SQLCipher's own route, `sqlcipher_export` into an attached
/// file (`SQLCipherPython`).
///
/// - `db-open`: a passphrase open as `--db-key` does it (`DatabaseKeyList`: the v4 settings
///   first, so detection costs a v4 file nothing) and a read of the schema, the derived-key
///   cache wiped before each so every open pays PBKDF2, as a new process does; SQLCipher
///   opens and reads the same file (ratio ≤ 1.05).
/// - `db-encrypt`, `db-decrypt`, `db-rekey`: `DatabaseFileConversion` with its verification,
///   against `sqlcipher_export`, which verifies nothing (ratio ≤ 1.5). Each also runs once
///   as a child process (`datacenter db …`) to read its peak memory (≤ 64 MB).
enum DatabaseConversionBenchmark {
    /// The scenarios, in the order they run.
    static let scenarios = ["db-open", "db-encrypt", "db-decrypt", "db-rekey"]

    /// The passphrases of the converted files.
    static let passphrase = DatabaseBenchmark.passphrase
    static let newPassphrase = DatabaseBenchmark.passphrase + "-new"

    /// The peak memory a conversion may take, whatever the file's size.
    static let memoryLimit = 64 << 20

    static func run(in folder: String, rows: Int, rounds: Int, selection: BenchmarkSelection,
                    report: (BenchmarkResult) -> Void) throws {
        guard scenarios.contains(where: selection.includes) else { return }
        let plain = folder + "/convert-plain.sqlite", encrypted = folder + "/convert-encrypted.sqlite"
        try makeSource(plain, rows: rows)
        let key = try DatabaseKey.passphrase(passphrase)
        try DatabaseFileConversion.encrypt(from: plain, to: encrypted, key: key)
        let reference = SQLCipherPython.python != nil
        let bytes = (try? FileManager.default.attributesOfItem(atPath: plain)[.size] as? Int) ?? 0
        let size = String(format: "%.0f MB", Double(bytes) / 1e6)

        if selection.includes("db-open") {
            let keys = try DatabaseKeyList(sqlcipherKeys: [passphrase])
            var engine: [Double] = [], baseline: [Double] = []
            for round in 0..<max(3, rounds) {
                func ours() throws {
                    dc_cipher_forget_derived_keys()
                    engine.append(try Stopwatch.time {
                        let (db, _) = try keys.open(path: encrypted, mode: .readOnly)
                        _ = try db.scalar("SELECT count(*) FROM sqlite_master", cached: false)
                    })
                }
                if round % 2 == 0 { try ours() }
                if reference { baseline.append(try SQLCipherPython.openTime(path: encrypted, passphrase: passphrase, opens: 1)) }
                if round % 2 == 1 { try ours() }
            }
            report(result("db-open", engine, baseline, limit: 1.05, reference: reference,
                          what: "open a SQLCipher 4 file with its passphrase (PBKDF2-HMAC-SHA512, 256,000 iterations) and read its schema"))
        }

        for mode in ["encrypt", "decrypt", "rekey"] where selection.includes("db-\(mode)") {
            let ours = folder + "/convert-ours.sqlite", theirs = folder + "/convert-theirs.sqlite"
            var engine: [Double] = [], baseline: [Double] = []
            for round in 0..<max(1, rounds) {
                func runOurs() throws {
                    DatabaseBenchmark.removeDatabase(at: ours)
                    switch mode {
                    case "encrypt":
                        engine.append(try Stopwatch.time { _ = try DatabaseFileConversion.encrypt(from: plain, to: ours, key: key) })
                    case "decrypt":
                        dc_cipher_forget_derived_keys()
                        engine.append(try Stopwatch.time {
                            _ = try DatabaseFileConversion.decrypt(from: encrypted, keys: DatabaseKeyList([key]), to: ours)
                        })
                    default:
                        try FileManager.default.copyItem(atPath: encrypted, toPath: ours)
                        dc_cipher_forget_derived_keys()
                        let newKey = try DatabaseKey.passphrase(newPassphrase)
                        engine.append(try Stopwatch.time {
                            _ = try DatabaseFileConversion.rekey(path: ours, keys: DatabaseKeyList([key]), to: newKey)
                        })
                    }
                }
                func runTheirs() throws {
                    DatabaseBenchmark.removeDatabase(at: theirs)
                    let source = mode == "encrypt" ? plain : encrypted
                    baseline.append(try SQLCipherPython.exportTime(mode, source: source, destination: theirs, key: passphrase,
                                                                   newKey: newPassphrase))
                }
                if round % 2 == 0 { try runOurs() }
                if reference { try runTheirs() }
                if round % 2 == 1 { try runOurs() }
            }
            DatabaseBenchmark.removeDatabase(at: ours)
            DatabaseBenchmark.removeDatabase(at: theirs)
            let peak = try peakMemory(mode: mode, plain: plain, encrypted: encrypted, folder: folder)
            let memory = peak.map { String(format: "; peak memory %.1f MB (<= 64 MB)", Double($0) / 1_048_576) } ?? ""
            var measured = result("db-\(mode)", engine, baseline, limit: 1.5, reference: reference,
                                  what: "db \(mode) of a \(size) file, verified (quick_check, schema, rows per table), "
                                      + "against sqlcipher_export, which verifies nothing\(memory)")
            if let peak, peak > memoryLimit {
                measured = BenchmarkResult(scenario: measured.scenario, engineNanoseconds: measured.engineNanoseconds,
                                           baselineNanoseconds: measured.baselineNanoseconds, target: measured.target, meetsTarget: false)
            }
            report(measured)
        }
        DatabaseBenchmark.removeDatabase(at: plain)
        DatabaseBenchmark.removeDatabase(at: encrypted)
    }

    /// The median times as a result against `limit`; without the reference, a baseline of 0
    /// and a target line that says how to install it.
    private static func result(_ scenario: String, _ engine: [Double], _ baseline: [Double], limit: Double, reference: Bool,
                               what: String) -> BenchmarkResult {
        let e = Stopwatch.median(engine), b = Stopwatch.median(baseline)
        let target = reference
            ? String(format: "ratio <= %.2f (%@; baseline: SQLCipher 4.12's Python module)", limit, what)
            : String(format: "ratio <= %.2f against SQLCipher: baseline unavailable, %@", limit, SQLCipherPython.howToInstall)
        return BenchmarkResult(scenario: scenario, engineNanoseconds: e, baselineNanoseconds: b, target: target,
                               meetsTarget: !reference || e <= b * limit)
    }

    /// A plain messages table of `rows` rows (about 130 bytes each) with an index, as an
    /// app's database holds them.
    private static func makeSource(_ path: String, rows: Int) throws {
        DatabaseBenchmark.removeDatabase(at: path)
        let db = try Database(path: path)
        try db.execute("CREATE TABLE messages(id INTEGER PRIMARY KEY, conversation INTEGER, sender TEXT, time INTEGER, content TEXT)")
        try db.execute("CREATE INDEX messages_conversation ON messages(conversation, time)")
        try db.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO messages SELECT i, i % 1000, 'user' || (i % 97), 1600000000 + i,
                'message content number ' || i || ' ' || hex(randomblob(30)) FROM n
            """)
    }

    /// The peak resident memory, in bytes, of `datacenter db MODE` run as a child process on
    /// the same files; nil when this process is not the `datacenter` binary (a test runner).
    private static func peakMemory(mode: String, plain: String, encrypted: String, folder: String) throws -> Int? {
        let output = folder + "/convert-memory.sqlite"
        DatabaseBenchmark.removeDatabase(at: output)
        defer { DatabaseBenchmark.removeDatabase(at: output) }
        var arguments: [String]
        switch mode {
        case "encrypt": arguments = ["db", "encrypt", plain, output, "--db-key", passphrase]
        case "decrypt": arguments = ["db", "decrypt", encrypted, output, "--db-key", passphrase]
        default:
            try FileManager.default.copyItem(atPath: encrypted, toPath: output)
            arguments = ["db", "rekey", output, "--db-key", passphrase, "--to", newPassphrase]
        }
        return try BenchChildProcess.run(arguments)?.peakBytes
    }
}
