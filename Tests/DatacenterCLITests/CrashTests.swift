import DatacenterKit
import Foundation
import Testing

/// Writers killed with SIGKILL at random moments, many times: no acknowledged write is lost,
/// every store passes `PRAGMA integrity_check`, an import is all or nothing and a store being
/// re-keyed is all old key or all new key. Seeded and printed; `CRASH_TRIALS` sets the number
/// of kills per writer (`make crash` runs many more).
@Suite struct CrashTests {
    static let trials = testCount("CRASH_TRIALS", default: 10)
    static let seed = testSeed("CRASH_SEED", default: 0xC0FFEE)

    /// The test writer, built with the tests (`Tests/CrashWriter`).
    static let writerPath: String = {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("crash-writer").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: CLI.binaryPath).deletingLastPathComponent().appendingPathComponent("crash-writer").path
    }()

    /// Runs `executable ARGS`, kills it with SIGKILL after `acks` acknowledgements (or after
    /// `delay` when `acks` is nil) plus a few random microseconds, and returns everything it
    /// printed before it died.
    static func runAndKill(_ executable: String, _ arguments: [String], acks: Int?, delay: TimeInterval = 0,
                           dice: inout SplitMix64) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var text = ""
        if let acks {
            while text.components(separatedBy: "ack ").count - 1 < acks {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
        } else {
            Thread.sleep(forTimeInterval: delay)
        }
        usleep(UInt32(Int.random(in: 0...3_000, using: &dice)))
        kill(process.processIdentifier, SIGKILL)
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    /// The highest `ack N` printed, or -1.
    static func lastAck(_ text: String) -> Int {
        text.split(separator: "\n").compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max() ?? -1
    }

    static func integrityCheck(_ path: String) throws -> String? {
        try Database(path: path, mode: .readOnly).scalar("PRAGMA integrity_check", cached: false)?.stringValue
    }

    @Test func killedKVWritesKeepEveryAcknowledgedValue() throws {
        var dice = SplitMix64(seed: Self.seed)
        let scratch = TemporaryFolder()
        for trial in 0..<Self.trials {
            let root = scratch.file("kv-\(trial)")
            let out = try Self.runAndKill(Self.writerPath, ["kv", root], acks: Int.random(in: 1...300, using: &dice), dice: &dice)
            let last = Self.lastAck(out)
            #expect(last >= 0, "seed \(Self.seed) trial \(trial): the writer acknowledged nothing: \(out.suffix(300))")
            let store = try Store(path: root + "/common.sqlite", readOnly: true)
            for n in 0...max(0, last) where last >= 0 {
                let value = try store.kv.string(forKey: "k\(n)", business: "crash")
                #expect(value == "v\(n)", "seed \(Self.seed) trial \(trial): acknowledged k\(n) reads \(value ?? "nil")")
                if value != "v\(n)" { break }
            }
            #expect(try Self.integrityCheck(root + "/common.sqlite") == "ok")
        }
    }

    @Test func killedDAOForEachInsertsKeepEveryAcknowledgedBatch() throws {
        var dice = SplitMix64(seed: Self.seed &+ 1)
        let scratch = TemporaryFolder()
        for trial in 0..<Self.trials {
            let path = scratch.file("dao-\(trial).sqlite")
            let out = try Self.runAndKill(Self.writerPath, ["dao", path], acks: Int.random(in: 1...60, using: &dice), dice: &dice)
            let last = Self.lastAck(out)
            #expect(last >= 0, "seed \(Self.seed) trial \(trial): \(out.suffix(300))")
            let db = try Database(path: path, mode: .readOnly)
            let count = try db.scalar("SELECT count(*) FROM rows WHERE id < ?", [.integer(Int64((last + 1) * 25))])?.int64Value
            #expect(count == Int64((last + 1) * 25), "seed \(Self.seed) trial \(trial): batches 0…\(last) acknowledged")
            // A batch is whole or absent: rows come in multiples of 25.
            #expect((try db.scalar("SELECT count(*) FROM rows")?.int64Value ?? 1) % 25 == 0)
            #expect(try Self.integrityCheck(path) == "ok")
        }
    }

    @Test func killedDiskCacheWritesKeepEveryFlushedEntry() throws {
        var dice = SplitMix64(seed: Self.seed &+ 2)
        let scratch = TemporaryFolder()
        for trial in 0..<Self.trials {
            let root = scratch.file("cache-\(trial)")
            let out = try Self.runAndKill(Self.writerPath, ["cache", root], acks: Int.random(in: 7...400, using: &dice), dice: &dice)
            let last = Self.lastAck(out)
            #expect(last >= 0, "seed \(Self.seed) trial \(trial): \(out.suffix(300))")
            let center = try DataCenter(rootPath: root)
            let cache = try LRUDiskCache(name: "crash", capacity: 1_000_000, dataCenter: center)
            for n in 0...max(0, last) where last >= 0 {
                let value = try cache.data(forKey: "k\(n)")
                #expect(value == Data("v\(n)".utf8), "seed \(Self.seed) trial \(trial): flushed k\(n) lost")
                if value != Data("v\(n)".utf8) { break }
            }
            #expect(try Self.integrityCheck(root + "/common.sqlite") == "ok")
        }
    }

    @Test func aKilledImportIsAllOrNothing() throws {
        var dice = SplitMix64(seed: Self.seed &+ 3)
        let scratch = TemporaryFolder()
        let dump = scratch.file("dump.sql")
        let rows = 30_000
        var text = "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT);\n"
        for i in 0..<rows { text += "INSERT INTO t VALUES(\(i), 'row \(i) of the dump');\n" }
        try text.write(toFile: dump, atomically: true, encoding: .utf8)
        var outcomes: Set<String> = []
        for trial in 0..<Self.trials {
            let db = scratch.file("import-\(trial).sqlite")
            _ = try Self.runAndKill(CLI.binaryPath, ["import", dump, db], acks: nil,
                                    delay: Double(Int.random(in: 0...400, using: &dice)) / 1000, dice: &dice)
            guard FileManager.default.fileExists(atPath: db) else { outcomes.insert("no file"); continue }
            // Opened read-write, so a transaction the kill interrupted is rolled back first.
            let connection = try Database(path: db, mode: .readWriteExisting)
            let hasTable = try connection.scalar("SELECT count(*) FROM sqlite_master WHERE name = 't'")?.int64Value == 1
            let count = hasTable ? try connection.scalar("SELECT count(*) FROM t")?.int64Value : 0
            #expect(count == 0 || count == Int64(rows), "seed \(Self.seed) trial \(trial): \(count ?? -1) of \(rows) rows imported")
            outcomes.insert(count == 0 ? "nothing" : "all")
            #expect(try Self.integrityCheck(db) == "ok")
        }
        #expect(!outcomes.isEmpty)
    }

    @Test func aKilledRekeyLeavesEachStoreAllOldOrAllNew() throws {
        var dice = SplitMix64(seed: Self.seed &+ 4)
        let scratch = TemporaryFolder()
        let old = try EncryptionKey(parsing: TestKeys.first), new = try EncryptionKey(parsing: TestKeys.second)
        for trial in 0..<max(1, Self.trials / 2) {
            let root = scratch.file("rekey-\(trial)")
            do {
                let center = try DataCenter(rootPath: root, crypt: KeyRing([old]))
                try center.setCurrentUserId("ann")
                for kv in [try center.commonPreferences, try center.userPreferences!] {
                    try kv.batch {
                        for i in 0..<3_000 { try kv.setString("secret \(i)", forKey: "k\(i)", business: "b", encryption: .default) }
                    }
                }
            }
            _ = try Self.runAndKill(CLI.binaryPath, ["rekey", "--root", root, "--from", TestKeys.first, "--to", TestKeys.second],
                                    acks: nil, delay: Double(Int.random(in: 0...250, using: &dice)) / 1000, dice: &dice)
            for path in [root + "/common.sqlite", root + "/users/ann/user.sqlite"] {
                #expect(try Self.integrityCheck(path) == "ok")
                let withOld = try Store(path: path, crypt: KeyRing([old]), readOnly: true).kv
                let withNew = try Store(path: path, crypt: KeyRing([new]), readOnly: true).kv
                var opened: Set<String> = []
                for i in stride(from: 0, to: 3_000, by: 97) {
                    if (try? withOld.string(forKey: "k\(i)", business: "b")) == "secret \(i)" { opened.insert("old") }
                    else if (try? withNew.string(forKey: "k\(i)", business: "b")) == "secret \(i)" { opened.insert("new") }
                    else { opened.insert("neither") }
                }
                #expect(opened == ["old"] || opened == ["new"], "seed \(Self.seed) trial \(trial): \(path) holds \(opened)")
            }
        }
    }
}
