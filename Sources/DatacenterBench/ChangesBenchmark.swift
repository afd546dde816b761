import DatacenterKit
import Foundation

/// `bench changes`: `datacenter diff` and `datacenter snapshot` against the tools a developer
/// would reach for otherwise, each run whole as a child process (start-up included), the
/// two alternately, the median of the rounds.
///
/// - `diff-messages`: two copies of a `messages` table of 2,000,000 rows (200,000 with
///   `--quick`), 1% of the rows changed in the second: `datacenter diff A B` against
///   `sqldiff A B` (both printing to `/dev/null`); the ratio and the diff's peak memory.
/// - `diff-kv-root`: a root of 100,000 KV values (10,000), 1% changed after a snapshot:
///   `datacenter diff --since SNAPSHOT ROOT`, under a second; `sqldiff` on the same pair of
///   common stores is shown beside it.
/// - `snapshot-messages`: `datacenter snapshot A -o X` against `sqlite3 A ".backup X"`.
package enum ChangesBenchmark {
    /// The scenarios, in the order they run.
    package static let scenarios = ["diff-messages", "diff-kv-root", "snapshot-messages"]

    /// How big a run is.
    package struct Scale: Sendable {
        let messages: Int
        let kvValues: Int
        let rounds: Int
        /// The standard run: what docs/CLI.md's targets are about.
        package static let standard = Scale(messages: 2_000_000, kvValues: 100_000, rounds: 3)
        /// A smoke test.
        package static let quick = Scale(messages: 200_000, kvValues: 10_000, rounds: 1)
    }

    /// Runs the selected scenarios with files in `folder` (removed afterwards).
    package static func run(in folder: String, scale: Scale, selection: BenchmarkSelection,
                            report: (BenchmarkResult) -> Void) throws {
        try? FileTree.remove(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileTree.remove(atPath: folder) }
        guard let sqldiff = BenchChildProcess.tool("sqldiff"), let shell = SQLiteShell.path else {
            throw DatabaseBenchmark.Failure(description: "bench changes needs sqldiff and sqlite3 (Debian: sqlite3-tools, sqlite3)")
        }
        if selection.includesAny("diff-messages", "snapshot-messages") {
            let a = folder + "/a.db", b = folder + "/b.db"
            let db = try Database(path: a)
            try db.execute("""
                PRAGMA journal_mode = DELETE;
                CREATE TABLE messages(id INTEGER PRIMARY KEY, conv INTEGER, sender TEXT, time INTEGER, content TEXT);
                CREATE INDEX m_conv ON messages(conv, time);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(scale.messages))
                INSERT INTO messages SELECT i, i % 1000, 'user' || (i % 97), 1767225600 + i, 'message ' || i || ' ' || hex(randomblob(16)) FROM n;
                """)
            db.close()
            try FileManager.default.copyItem(atPath: a, toPath: b)
            try Database(path: b).execute("UPDATE messages SET content = content || ' (edited)' WHERE id % 100 = 0")
            if selection.includes("diff-messages") {
                var ours: [BenchChildProcess.Measurement] = [], theirs: [Double] = []
                for _ in 0..<scale.rounds {
                    guard let run = try BenchChildProcess.run(["diff", a, b], exitCodes: [1]) else { return }
                    ours.append(run)
                    theirs.append(try BenchChildProcess.spawn(sqldiff, [a, b]).nanoseconds)
                }
                let engine = Stopwatch.median(ours.map(\.nanoseconds)), baseline = Stopwatch.median(theirs)
                let peak = ours.map(\.peakBytes).max() ?? 0
                report(BenchmarkResult(scenario: "diff-messages", engineNanoseconds: engine, baselineNanoseconds: baseline,
                                       target: "ratio <= 1.2 against sqldiff; peak RSS \(peak >> 20) MB <= 40 MB",
                                       meetsTarget: engine / baseline <= 1.2 && peak <= 40 << 20))
            }
            if selection.includes("snapshot-messages") {
                var ours: [Double] = [], theirs: [Double] = []
                for round in 0..<scale.rounds {
                    let target = folder + "/snap-\(round)", copy = folder + "/backup-\(round).db"
                    guard let run = try BenchChildProcess.run(["snapshot", a, "-o", target]) else { return }
                    ours.append(run.nanoseconds)
                    theirs.append(try BenchChildProcess.spawn(shell, [a, ".backup \(copy)"]).nanoseconds)
                    try? FileManager.default.removeItem(atPath: target)
                    try? FileManager.default.removeItem(atPath: copy)
                }
                let engine = Stopwatch.median(ours), baseline = Stopwatch.median(theirs)
                report(BenchmarkResult(scenario: "snapshot-messages", engineNanoseconds: engine, baselineNanoseconds: baseline,
                                       target: "ratio <= 1.2 against sqlite3 .backup", meetsTarget: engine / baseline <= 1.2))
            }
        }
        if selection.includes("diff-kv-root") {
            let root = folder + "/root"
            let center = try DataCenter(rootPath: root)
            let store = try center.commonPreferences
            try store.batch {
                for i in 0..<scale.kvValues {
                    try store.setString("value \(i)", forKey: "key-\(i)", business: "business-\(i % 20)")
                }
            }
            let snapshot = folder + "/root-snapshot"
            guard try BenchChildProcess.run(["snapshot", root, "-o", snapshot]) != nil else { return }
            try store.batch {
                for i in stride(from: 0, to: scale.kvValues, by: 100) {
                    try store.setString("changed \(i)", forKey: "key-\(i)", business: "business-\(i % 20)")
                }
            }
            try store.sync()
            var ours: [Double] = [], theirs: [Double] = []
            for _ in 0..<scale.rounds {
                guard let run = try BenchChildProcess.run(["diff", "--since", snapshot, root], exitCodes: [1]) else { return }
                ours.append(run.nanoseconds)
                theirs.append(try BenchChildProcess.spawn(sqldiff, [snapshot + "/common.sqlite", root + "/common.sqlite"]).nanoseconds)
            }
            let engine = Stopwatch.median(ours)
            report(BenchmarkResult(scenario: "diff-kv-root", engineNanoseconds: engine, baselineNanoseconds: Stopwatch.median(theirs),
                                   target: "engine <= 1 s (baseline: sqldiff of the common stores, for reference)",
                                   meetsTarget: engine <= 1e9))
        }
    }
}
