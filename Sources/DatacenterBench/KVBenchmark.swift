import DatacenterBrowser
import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation

/// The key-value benchmarks behind `datacenter bench kv`: each scenario runs the engine and a
/// raw-SQLite baseline alternately in the same process, on files in one scratch folder.
package enum KVBenchmark {
    /// Sizes of the runs; `quick` is for smoke runs, `standard` for figures worth reporting.
    package struct Scale: Sendable {
        var singleWrites: Int
        var batchWrites: Int
        var reads: Int
        var rounds: Int
        var importRounds: Int

        /// Enough operations and rounds for stable medians; takes a while.
        package static let standard = Scale(singleWrites: 100, batchWrites: 10_000, reads: 20_000, rounds: 31, importRounds: 7)
        /// A few operations per scenario: checks that every scenario runs, not how fast.
        package static let quick = Scale(singleWrites: 50, batchWrites: 2_000, reads: 2_000, rounds: 3, importRounds: 1)
    }

    /// The scenarios, in the order they run.
    package static let scenarios = ["kv-set", "kv-set-batch", "kv-get", "kv-get-cached", "kv-set-encrypted", "import", "import-csv"]

    /// Runs the selected scenarios in `folder` (created if needed, files removed afterwards)
    /// and reports each result as soon as it is measured.
    package static func run(in folder: String, scale: Scale = .standard, selection: BenchmarkSelection = .all,
                           report: (BenchmarkResult) -> Void) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileTree.remove(atPath: folder) }
        let value = String(repeating: "v", count: 100)
        let key = try EncryptionKey(bytes: [UInt8](repeating: 7, count: 32))

        // kv-set: durable single writes, one commit each.
        let store = try Store(path: folder + "/engine.sqlite", crypt: KeyRing([key]))
        let raw = try RawKVBaseline(path: folder + "/baseline.sqlite")
        let n = scale.singleWrites
        if selection.includes("kv-set") {
            let set = try Stopwatch.interleaved(rounds: scale.rounds, operations: n, engine: { round in
                for i in 0..<n { try store.kv.setString(value, forKey: "k\(round)-\(i)", business: "bench") }
            }, baseline: { round in
                for i in 0..<n { try raw.setString(value, key: "k\(round)-\(i)", business: "bench") }
            })
            report(BenchmarkResult(scenario: "kv-set", engineNanoseconds: set.engine, baselineNanoseconds: set.baseline,
                                   target: "ratio <= 1.15", meetsTarget: set.engine / set.baseline <= 1.15))
        }

        // kv-set-batch: many writes in one transaction.
        let m = scale.batchWrites
        let writeBatch = { (round: Int) in
            try store.kv.batch { for i in 0..<m { try store.kv.setString(value, forKey: "b\(round)-\(i)", business: "batch") } }
        }
        let writeRawBatch = { (round: Int) in
            try raw.transaction { for i in 0..<m { try raw.setString(value, key: "b\(round)-\(i)", business: "batch") } }
        }
        if selection.includes("kv-set-batch") {
            let batch = try Stopwatch.interleaved(rounds: max(3, scale.rounds / 3), operations: m, engine: writeBatch, baseline: writeRawBatch)
            report(BenchmarkResult(scenario: "kv-set-batch", engineNanoseconds: batch.engine, baselineNanoseconds: batch.baseline,
                                   target: "ratio <= 1.3", meetsTarget: batch.engine / batch.baseline <= 1.3))
        } else if selection.includesAny("kv-get", "kv-get-cached") {
            try writeBatch(0) // the rows the reads read
            try writeRawBatch(0)
        }

        // kv-get: point reads that miss the memory cache.
        let uncached = try Store(path: folder + "/engine.sqlite", crypt: KeyRing([key]), cacheCapacity: 0)
        let keys = (0..<m).map { "b0-\($0)" }
        let reads = scale.reads
        var sink = 0
        if selection.includes("kv-get") {
            let get = try Stopwatch.interleaved(rounds: scale.rounds, operations: reads, engine: { round in
                for i in 0..<reads { sink &+= try uncached.kv.string(forKey: keys[(i &* 7919 &+ round) % m], business: "batch")?.utf8.count ?? 0 }
            }, baseline: { round in
                for i in 0..<reads { sink &+= raw.string(key: keys[(i &* 7919 &+ round) % m], business: "batch")?.utf8.count ?? 0 }
            })
            report(BenchmarkResult(scenario: "kv-get", engineNanoseconds: get.engine, baselineNanoseconds: get.baseline,
                                   target: "ratio <= 1.3", meetsTarget: get.engine / get.baseline <= 1.3))
        }

        // kv-get-cached: repeated reads served by the memory cache.
        if selection.includes("kv-get-cached") {
            let hot = Array(keys.prefix(512))
            for k in hot { _ = try store.kv.string(forKey: k, business: "batch") }
            let cached = try Stopwatch.interleaved(rounds: scale.rounds, operations: reads, engine: { round in
                for i in 0..<reads { sink &+= try store.kv.string(forKey: hot[(i &+ round) % hot.count], business: "batch")?.utf8.count ?? 0 }
            }, baseline: { round in
                for i in 0..<reads { sink &+= raw.string(key: hot[(i &+ round) % hot.count], business: "batch")?.utf8.count ?? 0 }
            })
            report(BenchmarkResult(scenario: "kv-get-cached", engineNanoseconds: cached.engine, baselineNanoseconds: cached.baseline,
                                   target: "engine_ns <= 1000", meetsTarget: cached.engine <= 1000))
        }

        // kv-set-encrypted: the engine's encrypted writes against its plain writes, one of each
        // in turn, each timed alone: both see the same state of the disk and the log, and the
        // medians leave out the writes that happened to wait on the file system. Each kind
        // has a store of its own, so both append at the end of their table (rows inserted in
        // the middle of a B-tree split pages more often, which is not the cost measured here).
        if selection.includes("kv-set-encrypted") {
            let encryptedStore = try Store(path: folder + "/encrypted.sqlite", crypt: KeyRing([key]))
            let plainStore = try Store(path: folder + "/plain.sqlite", crypt: KeyRing([key]))
            var encryptedTimes: [Double] = [], plainTimes: [Double] = []
            for i in 0..<(n * scale.rounds) {
                let k = "k-" + String(i).leftPadded(to: 8)
                encryptedTimes.append(try Stopwatch.time { try encryptedStore.kv.setString(value, forKey: k, business: "bench", encryption: .default) })
                plainTimes.append(try Stopwatch.time { try plainStore.kv.setString(value, forKey: k, business: "bench") })
            }
            let encrypted = (engine: Stopwatch.median(encryptedTimes), baseline: Stopwatch.median(plainTimes))
            report(BenchmarkResult(scenario: "kv-set-encrypted", engineNanoseconds: encrypted.engine, baselineNanoseconds: encrypted.baseline,
                                   target: "ratio <= 1.25 or at most 3 µs more a write (baseline: engine kv-set)",
                                   meetsTarget: encrypted.engine / encrypted.baseline <= 1.25 || encrypted.engine - encrypted.baseline <= 3000))
        }

        if selection.includes("import"), let result = try importScenario(folder: folder, rounds: scale.importRounds) { report(result) }
        if selection.includes("import-csv"), let result = try importCSVScenario(folder: folder, rounds: scale.importRounds) { report(result) }
        if sink == 42 { print("") } // keeps the reads from being optimized away
    }

    /// `import` of a ~600 KB dump against the `sqlite3` shell reading the same file; skipped
    /// (nil) when no `sqlite3` shell is on PATH.
    static func importScenario(folder: String, rounds: Int) throws -> BenchmarkResult? {
        let dumpPath = folder + "/dump.sql"
        try makeDump(bytes: 600_000).write(toFile: dumpPath, atomically: true, encoding: .utf8)
        return try againstShell("import", folder: folder, rounds: rounds, target: "sqlite3 shell", input: dumpPath) { path in
            _ = try Database(path: path).importDump(atPath: dumpPath)
        }
    }

    /// `import --csv` of a ~5 MB CSV (50,000 rows, quoted fields among them) into a new
    /// table, against the `sqlite3` shell's `.import --csv` of the same file; skipped (nil)
    /// when no `sqlite3` shell is on PATH.
    static func importCSVScenario(folder: String, rounds: Int) throws -> BenchmarkResult? {
        let csvPath = folder + "/rows.csv"
        var csv = "id,name,amount,note\n"
        for i in 0..<50_000 {
            csv += "\(i),\"name \(i), with a comma\",\(Double(i) * 1.5),\"\(String(repeating: "note ", count: 12))\"\"q\"\"\"\n"
        }
        try csv.write(toFile: csvPath, atomically: true, encoding: .utf8)
        return try againstShell("import-csv", folder: folder, rounds: rounds, target: "sqlite3 .import --csv",
                                arguments: [".import --csv \(csvPath) t"]) { path in
            let db = try Database(path: path)
            _ = try db.inTransaction { try TableImport.run(file: csvPath, format: .csv, into: db, table: "t") }
        }
    }

    /// `scenario`: `engine` loading a new database at the path it is given, against the
    /// `sqlite3` shell on another given `arguments` (and the file `input` on its stdin),
    /// `rounds` times each, medians; nil when no `sqlite3` shell is on PATH.
    private static func againstShell(_ scenario: String, folder: String, rounds: Int, target: String, arguments: [String] = [],
                                     input: String? = nil, engine: (String) throws -> Void) throws -> BenchmarkResult? {
        guard let shell = findExecutable("sqlite3") else { return nil }
        var ours: [Double] = [], baseline: [Double] = []
        for round in 0..<max(1, rounds) {
            let enginePath = folder + "/\(scenario)-engine-\(round).sqlite"
            let shellPath = folder + "/\(scenario)-shell-\(round).sqlite"
            ours.append(try Stopwatch.time { try engine(enginePath) })
            baseline.append(try Stopwatch.time {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: shell)
                process.arguments = [shellPath] + arguments
                if let input { process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input)) }
                process.standardOutput = FileHandle.nullDevice
                try process.run()
                process.waitUntilExit()
            })
        }
        let e = Stopwatch.median(ours), b = Stopwatch.median(baseline)
        return BenchmarkResult(scenario: scenario, engineNanoseconds: e, baselineNanoseconds: b,
                               target: "ratio <= 1.2 (baseline: \(target))", meetsTarget: e / b <= 1.2)
    }

    /// A dump like `sqlite3 .dump` writes: a table and rows of about 100 bytes.
    static func makeDump(bytes: Int) -> String {
        var text = "PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\nCREATE TABLE messages(id INTEGER PRIMARY KEY, uin INTEGER, time INTEGER, content TEXT, read BOOLEAN);\n"
        var i = 0
        while text.utf8.count < bytes {
            i += 1
            text += "INSERT INTO messages VALUES(\(i),\(100_000 + i * 37 % 900_000),\(1_600_000_000 + i * 7),'message \(i): hello world meeting tomorrow lunch call back later it''s ok',\(i % 2));\n"
        }
        return text + "CREATE INDEX messages_uin ON messages(uin);\nCOMMIT;\n"
    }

    static func findExecutable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
