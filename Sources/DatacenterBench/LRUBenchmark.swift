import CSQLite
import DatacenterBrowser
import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation

/// The LRU benchmarks behind `datacenter bench lru`.
package enum LRUBenchmark {
    /// The scenarios, in the order they run.
    package static let scenarios = ["lru-mem-get", "lru-mem-set", "lru-mem-get-4threads", "lru-disk-set", "lru-disk-get"]

    /// Runs the selected scenarios, reporting each result as soon as it is measured.
    package static func run(in folder: String, quick: Bool = false, selection: BenchmarkSelection = .all,
                           report: (BenchmarkResult) throws -> Void) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileTree.remove(atPath: folder) }
        let operations = quick ? 20_000 : 400_000
        let rounds = quick ? 3 : 9
        let keys = (0..<1024).map { "key-\($0)" }

        // lru-mem-get: hits, against a dictionary behind a lock.
        let cache = LRUMemoryCache<String, Int>(capacity: 2048)
        let baseline = LockedDictionary<String, Int>()
        for (i, key) in keys.enumerated() { cache.set(i, for: key); baseline.set(i, for: key) }
        var sink = 0
        if selection.includes("lru-mem-get") {
            let get = Stopwatch.interleaved(rounds: rounds, operations: operations, engine: { _ in
                for i in 0..<operations { sink &+= cache.get(keys[i & 1023]) ?? 0 }
            }, baseline: { _ in
                for i in 0..<operations { sink &+= baseline.get(keys[i & 1023]) ?? 0 }
            })
            try report(BenchmarkResult(scenario: "lru-mem-get", engineNanoseconds: get.engine, baselineNanoseconds: get.baseline,
                                       target: "engine_ns <= 500 and ratio <= 2", meetsTarget: get.engine <= 500 && get.engine / get.baseline <= 2))
        }

        // lru-mem-set: replacing and inserting with eviction.
        if selection.includes("lru-mem-set") {
            let small = LRUMemoryCache<String, Int>(capacity: 512)
            let set = Stopwatch.interleaved(rounds: rounds, operations: operations, engine: { round in
                for i in 0..<operations { small.set(i, for: keys[(i &+ round) & 1023]) }
            }, baseline: { round in
                for i in 0..<operations { baseline.set(i, for: keys[(i &+ round) & 1023]) }
            })
            try report(BenchmarkResult(scenario: "lru-mem-set", engineNanoseconds: set.engine, baselineNanoseconds: set.baseline,
                                       target: "engine_ns <= 1500", meetsTarget: set.engine <= 1500))
        }

        // lru-mem-get-4threads: wall time per operation with four threads, against one thread.
        if selection.includes("lru-mem-get-4threads") {
            let threads = 4
            let single = Stopwatch.median((0..<rounds).map { _ in
                Stopwatch.time { for i in 0..<operations { sink &+= cache.get(keys[i & 1023]) ?? 0 } } / Double(operations)
            })
            let multi = Stopwatch.median((0..<rounds).map { _ in
                Stopwatch.time {
                    DispatchQueue.concurrentPerform(iterations: threads) { t in
                        var local = 0
                        for i in 0..<(operations / threads) { local &+= cache.get(keys[(i &+ t &* 256) & 1023]) ?? 0 }
                        if local == 42 { print("") }
                    }
                } / Double(operations / threads * threads)
            })
            try report(BenchmarkResult(scenario: "lru-mem-get-4threads", engineNanoseconds: multi, baselineNanoseconds: single,
                                       target: "ratio <= 2 (four contending threads keep half one thread's throughput)",
                                       meetsTarget: multi <= 2 * single))
        }

        // lru-disk-set and lru-disk-get against raw SQLite on a table of the same shape.
        let store = try Store(path: folder + "/engine.sqlite")
        let disk = try LRUDiskCache(name: "bench", capacity: 1_000_000, store: store)
        let raw = try RawCacheBaseline(path: folder + "/baseline.sqlite")
        let value = Data(repeating: 0x5A, count: 100)
        let writes = quick ? 1_000 : 10_000
        let writeEngine = { (round: Int) in
            for i in 0..<writes { try disk.setData(value, forKey: "k\(round)-\(i)") }
            try disk.flush()
        }
        let writeBaseline = { (round: Int) in
            try raw.transaction { for i in 0..<writes { try raw.upsert(key: "k\(round)-\(i)", value: value) } }
        }
        if selection.includes("lru-disk-set") {
            let diskSet = try Stopwatch.interleaved(rounds: rounds * 2 + 1, operations: writes, engine: writeEngine, baseline: writeBaseline)
            try report(BenchmarkResult(scenario: "lru-disk-set", engineNanoseconds: diskSet.engine, baselineNanoseconds: diskSet.baseline,
                                       target: "ratio <= 1.2 (baseline: raw upserts, one transaction)", meetsTarget: diskSet.engine / diskSet.baseline <= 1.2))
        } else if selection.includes("lru-disk-get") {
            try writeEngine(0) // the entries the reads read
            try writeBaseline(0)
        }

        let reads = quick ? 2_000 : 20_000
        if selection.includes("lru-disk-get") {
            let diskGet = try Stopwatch.interleaved(rounds: rounds, operations: reads, engine: { round in
                for i in 0..<reads { sink &+= try disk.data(forKey: "k0-\((i &* 7919 &+ round) % writes)")?.count ?? 0 }
            }, baseline: { round in
                for i in 0..<reads { sink &+= raw.read(key: "k0-\((i &* 7919 &+ round) % writes)")?.count ?? 0 }
            })
            try report(BenchmarkResult(scenario: "lru-disk-get", engineNanoseconds: diskGet.engine, baselineNanoseconds: diskGet.baseline,
                                       target: "ratio <= 1.3", meetsTarget: diskGet.engine / diskGet.baseline <= 1.3))
        }
        try disk.flush()
        if sink == 42 { print("") }
    }
}

/// A dictionary behind a lock: the memory cache's baseline.
final class LockedDictionary<Key: Hashable, Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Key: Value] = [:]
    func get(_ key: Key) -> Value? { lock.lock(); defer { lock.unlock() }; return storage[key] }
    func set(_ value: Value, for key: Key) { lock.lock(); storage[key] = value; lock.unlock() }
}

/// Raw SQLite on a table shaped like a disk cache's: the disk cache's baseline.
final class RawCacheBaseline {
    private let raw: RawSQLite
    private let upsertStatement: OpaquePointer?
    private let selectStatement: OpaquePointer?

    init(path: String) throws {
        raw = try RawSQLite(path: path)
        try raw.exec("CREATE TABLE c(key TEXT PRIMARY KEY, value BLOB NOT NULL, encoding TEXT NOT NULL, expires REAL, accessed INTEGER NOT NULL, size INTEGER NOT NULL) WITHOUT ROWID")
        try raw.exec("CREATE INDEX c_accessed ON c(accessed)")
        upsertStatement = try raw.prepare("INSERT OR REPLACE INTO c(key, value, encoding, expires, accessed, size) VALUES (?, ?, 'data', NULL, ?, ?)")
        selectStatement = try raw.prepare("SELECT value, encoding, expires FROM c WHERE key = ?")
    }

    func transaction(_ body: () throws -> Void) throws {
        try raw.exec("BEGIN IMMEDIATE")
        try body()
        try raw.exec("COMMIT")
    }

    func upsert(key: String, value: Data) throws {
        bind(upsertStatement, key)
        value.withUnsafeBytes { _ = sqlite3_bind_blob(upsertStatement, 2, $0.baseAddress, Int32($0.count), dc_sqlite_transient()) }
        sqlite3_bind_int64(upsertStatement, 3, Int64(Date().timeIntervalSince1970 * 1_000_000))
        sqlite3_bind_int64(upsertStatement, 4, Int64(value.count))
        let rc = sqlite3_step(upsertStatement)
        sqlite3_reset(upsertStatement)
        guard rc == SQLITE_DONE else { throw raw.lastError() }
    }

    func read(key: String) -> Data? {
        bind(selectStatement, key)
        defer { sqlite3_reset(selectStatement) }
        guard sqlite3_step(selectStatement) == SQLITE_ROW, let p = sqlite3_column_blob(selectStatement, 0) else { return nil }
        _ = sqlite3_column_text(selectStatement, 1)
        _ = sqlite3_column_double(selectStatement, 2)
        return Data(bytes: p, count: Int(sqlite3_column_bytes(selectStatement, 0)))
    }

    private func bind(_ statement: OpaquePointer?, _ key: String) { raw.bindText(statement, 1, key) }
}
