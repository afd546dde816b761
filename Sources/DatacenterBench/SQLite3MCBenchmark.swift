import CPageCipher
import DatacenterKit
import Foundation

/// `bench db`'s SQLite3 Multiple Ciphers scenarios: the same work on a file in each of its
/// schemes, here and in the library itself (PyPI's `apsw-sqlite3mc`, in the virtual
/// environment `make test` makes), alternated round by round. Each side times single SQL
/// statements (a scan, 20,000 point reads in one statement, a 10,000-row insert), so no
/// interpreter time is counted.
///
/// - `db-mc-scan-S`, `db-mc-point-read-S`, `db-mc-insert-S`: per row; target ≤ 1.1×.
/// - `db-mc-open-S`: opening the file with the key alone (`DatabaseKeyList`, the derived-key
///   cache wiped) and reading its schema, against the library opening it with its scheme
///   named plus the key derivations of what is tried before it (SQLCipher 4's and 3's
///   defaults; for rc4 also sqleet's, measured here); target ≤ 1.2×. The line names both.
/// - `db-mc-rekey-S`: `DatabaseFileConversion.rekey` to a new passphrase (the check of the
///   new file included) against the library's `PRAGMA rekey`; target ≤ 1.5×, and ≤ 64 MB
///   peak memory for `datacenter db rekey` of the file run as a child process.
package enum SQLite3MCBenchmark {
    static let schemes = ["chacha20", "aes256cbc", "aes128cbc", "sqlcipher", "rc4"]
    static let kinds = ["scan", "point-read", "insert", "open", "rekey"]
    /// In the order they run: each scheme's five.
    package static let scenarios = schemes.flatMap { scheme in kinds.map { "db-mc-\($0)-\(scheme)" } }

    /// Whether the library is at hand (without it these scenarios are left out, with a warning).
    package static var isAvailable: Bool {
        guard let python = SQLCipherPython.python else { return false }
        return (try? SQLCipherPython.run(python, ["-c", "import apsw"]).status) == 0
    }
    static let passphrase = "datacenter-bench"
    static let reads = 20_000
    static let inserts = 10_000

    /// The library's side: `op` on the file at `path` in `scheme`, printing nanoseconds.
    private static let program = """
        import sys, time, apsw
        path, scheme, op, rows = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
        def connect():
            db = apsw.Connection(path)
            if scheme != "plain":
                db.execute("PRAGMA cipher = '" + scheme + "'")
                db.execute("PRAGMA key = 'datacenter-bench'")
            return db
        if op == "make":
            db = connect()
            db.execute("CREATE TABLE t(x INTEGER PRIMARY KEY, y TEXT); CREATE TABLE u(x INTEGER PRIMARY KEY, y TEXT)")
            db.execute("WITH RECURSIVE c(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM c WHERE v < ?) INSERT INTO t SELECT v, printf('%0100d', v) FROM c", (rows,))
            print(0)
            sys.exit(0)
        start = time.perf_counter_ns()
        db = connect()
        if op == "open":
            list(db.execute("SELECT count(*) FROM sqlite_master"))
            print(time.perf_counter_ns() - start)
            sys.exit(0)
        list(db.execute("SELECT count(*) FROM sqlite_master"))
        sql = sys.argv[5]
        start = time.perf_counter_ns()
        list(db.execute(sql)) if op != "rekey" else db.execute("PRAGMA rekey = 'datacenter-bench-2'")
        print(time.perf_counter_ns() - start)
        if op == "rekey":
            db.execute("PRAGMA rekey = 'datacenter-bench'")
        """

    /// The statement each kind times, the same on both sides.
    static func sql(_ kind: String, rows: Int) -> String {
        switch kind {
        case "scan": return "SELECT sum(length(y)) FROM t"
        case "point-read":
            return "WITH RECURSIVE r(i, k) AS (SELECT 1, 12345 UNION ALL SELECT i + 1, (k * 1103515245 + 12345) % 2147483648 FROM r "
                + "WHERE i < \(reads)) SELECT sum(length((SELECT y FROM t WHERE x = k % \(rows) + 1))) FROM r"
        case "insert":
            return "INSERT INTO u(y) SELECT y FROM t WHERE x <= \(inserts)"
        default: return ""
        }
    }

    static func run(in folder: String, rows: Int, rounds: Int, selection: BenchmarkSelection,
                    report: (BenchmarkResult) -> Void) throws {
        guard scenarios.contains(where: selection.includes) else { return }
        guard isAvailable, let python = SQLCipherPython.python else { return }
        for scheme in schemes where kinds.contains(where: { selection.includes("db-mc-\($0)-\(scheme)") }) {
            let path = folder + "/mc-\(scheme).sqlite"
            DatabaseBenchmark.removeDatabase(at: path)
            func library(_ op: String, _ sql: String = "", file: String? = nil) throws -> Double {
                let run = try SQLCipherPython.run(python, ["-c", program, file ?? path, file == nil ? scheme : "plain", op, "\(rows)", sql])
                guard run.status == 0, let ns = Double(run.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                    throw DatabaseBenchmark.Failure(description: "apsw-sqlite3mc failed (\(scheme) \(op)): \(run.output)")
                }
                return ns
            }
            _ = try library("make")
            let keys = DatabaseKeyList([try DatabaseKey.passphrase(passphrase)])
            let (db, found) = try keys.open(path: path)
            guard let key = found, key.settings.scheme.cipherName == scheme else {
                throw DatabaseBenchmark.Failure(description: "\(path) did not open as \(scheme)")
            }
            let timed = ["scan", "point-read", "insert"].filter { selection.includes("db-mc-\($0)-\(scheme)") }
            // The floor: the same statements on a plain copy, where the cipher costs nothing and
            // what differs is the two SQLite builds (the system's here, the library's own there).
            let plainPath = folder + "/mc-\(scheme)-plain.sqlite"
            DatabaseBenchmark.removeDatabase(at: plainPath)
            if !timed.isEmpty { try DatabaseFileConversion.decrypt(from: path, keys: DatabaseKeyList([key]), to: plainPath) }
            for kind in timed {
                let plain = try Database(path: plainPath)
                defer { plain.close() }
                let statement = sql(kind, rows: rows)
                var ours: [Double] = [], theirs: [Double] = [], oursPlain: [Double] = [], theirsPlain: [Double] = []
                for _ in 0..<rounds {
                    theirs.append(try library(kind, statement))
                    ours.append(try Stopwatch.time { _ = try db.scalar(statement, cached: false) })
                    theirsPlain.append(try library(kind, statement, file: plainPath))
                    oursPlain.append(try Stopwatch.time { _ = try plain.scalar(statement, cached: false) })
                    if kind == "insert" { for d in [db, plain] { try d.execute("DELETE FROM u") } }
                }
                let operations = Double(kind == "scan" ? rows : kind == "point-read" ? reads : inserts)
                let (e, b) = (Stopwatch.median(ours) / operations, Stopwatch.median(theirs) / operations)
                let floor = Stopwatch.median(oursPlain) / Stopwatch.median(theirsPlain)
                report(BenchmarkResult(scenario: "db-mc-\(kind)-\(scheme)", engineNanoseconds: e, baselineNanoseconds: b,
                                       target: String(format: "ratio <= 1.1 (\(kind) of a \(rows)-row \(scheme) file, per row; baseline: "
                                           + "apsw-sqlite3mc; floor: the same on a plain copy, %.2f)", floor),
                                       meetsTarget: e / b <= 1.1))
            }
            DatabaseBenchmark.removeDatabase(at: plainPath)
            db.close()
            if selection.includes("db-mc-open-\(scheme)") {
                // What is tried before the scheme: each key's SQLCipher 4 and 3 defaults, and
                // for rc4 (nothing in its page 1 names it) the legacy schemes before it, of
                // which sqleet's PBKDF2 is the one derivation that counts.
                let before = Stopwatch.median((0..<rounds).map { _ in
                    Stopwatch.time { derive(.sha512, 256_000) } + Stopwatch.time { derive(.sha1, 64_000) }
                        + (scheme == "rc4" ? Stopwatch.time { derive(.sha256, 12_345) } : 0)
                })
                var ours: [Double] = [], theirs: [Double] = []
                for _ in 0..<rounds {
                    theirs.append(try library("open"))
                    dc_cipher_forget_derived_keys()
                    ours.append(try Stopwatch.time {
                        let (opened, _) = try DatabaseKeyList(sqlcipherKeys: [passphrase]).open(path: path, mode: .readOnly)
                        _ = try opened.scalar("SELECT count(*) FROM sqlite_master", cached: false)
                        opened.close()
                    })
                }
                let (e, library) = (Stopwatch.median(ours), Stopwatch.median(theirs))
                report(BenchmarkResult(scenario: "db-mc-open-\(scheme)", engineNanoseconds: e, baselineNanoseconds: library + before,
                                       target: String(format: "ratio <= 1.2 (key alone; baseline: apsw-sqlite3mc with the scheme named, "
                                           + "%.1f ms, + the derivations tried first, %.1f ms)", library / 1e6, before / 1e6),
                                       meetsTarget: e / (library + before) <= 1.2))
            }
            if selection.includes("db-mc-rekey-\(scheme)") {
                var ours: [Double] = [], theirs: [Double] = []
                let old = DatabaseKeyList([key])
                let new = try DatabaseKey.passphrase("datacenter-bench-2", settings: key.settings)
                for _ in 0..<rounds {
                    theirs.append(try library("rekey", "rekey"))
                    ours.append(try Stopwatch.time { _ = try DatabaseFileConversion.rekey(path: path, keys: old, to: new) })
                    _ = try DatabaseFileConversion.rekey(path: path, keys: DatabaseKeyList([new]), to: key)
                }
                // Peak memory: `datacenter db rekey` of a copy, as a child process.
                let copy = folder + "/mc-\(scheme)-memory.sqlite"
                DatabaseBenchmark.removeDatabase(at: copy)
                try FileManager.default.copyItem(atPath: path, toPath: copy)
                let peak = try BenchChildProcess.run(["db", "rekey", copy, "--db-key", passphrase, "--to", "datacenter-bench-2",
                                                      "--to-cipher", "cipher=\(scheme)"])?.peakBytes
                DatabaseBenchmark.removeDatabase(at: copy)
                let memory = peak.map { String(format: "; peak memory %.1f MB (<= 64 MB)", Double($0) / 1_048_576) } ?? ""
                let (e, b) = (Stopwatch.median(ours), Stopwatch.median(theirs))
                report(BenchmarkResult(scenario: "db-mc-rekey-\(scheme)", engineNanoseconds: e, baselineNanoseconds: b,
                                       target: "ratio <= 1.5 (rekey of the \(rows)-row \(scheme) file, checked; baseline: its PRAGMA rekey"
                                           + memory + ")",
                                       meetsTarget: e / b <= 1.5 && (peak ?? 0) <= 64 * 1_048_576))
            }
            DatabaseBenchmark.removeDatabase(at: path)
        }
    }

    /// One PBKDF2 run of `iterations` with `digest`, as an open pays it.
    private static func derive(_ digest: DatabaseCipherSettings.Digest, _ iterations: Int) {
        var out = [UInt8](repeating: 0, count: 32)
        let secret = Array(passphrase.utf8), salt = [UInt8](repeating: 7, count: 16)
        _ = dc_cipher_pbkdf2(digest.rawValue, secret, Int32(secret.count), salt, 16, Int32(iterations), &out, 32)
    }
}
