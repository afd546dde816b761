import DatacenterKit
import Foundation
import Testing

/// `db rekey` killed with SIGKILL at different moments: the file opens with the old key or
/// the new one and passes `integrity_check`, with every row; a rerun with both keys finishes.
@Suite struct DBRekeyKillTests {
    static let rows = 120_000   // about 30 MB: a rekey takes seconds

    /// When a run is killed: at once, when its partial file appears, or when its partial
    /// files (the copy and its journal) hold `bytes`; `never` lets it finish.
    enum Kill: CustomStringConvertible {
        case atOnce, atPartialFile, atPartialSize(Int), never
        var description: String {
            switch self {
            case .atOnce: "at once"
            case .atPartialFile: "when its partial file appears"
            case .atPartialSize(let bytes): "when its partial files hold \(bytes) bytes"
            case .never: "never"
            }
        }
    }

    /// Starts `datacenter db rekey FILE --to NEW --db-key NEW --db-key OLD`, kills it with
    /// SIGKILL as `kill` says (watching its partial files in `folder`), and returns whether it
    /// was killed before it finished. The kills follow the run's progress, not a clock, so
    /// they fall in the same phase however fast or loaded the machine is.
    static func rekeyAndKill(_ file: String, in folder: String, to key: String, keys: [String], _ when: Kill) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binaryPath)
        process.arguments = ["db", "rekey", file, "--to", key] + keys.flatMap { ["--db-key", $0] }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The bytes of the partial files, nil while there are none.
        func partialBytes() -> Int? {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.contains(".dc-partial-") }
            guard !names.isEmpty else { return nil }
            return names.reduce(0) { total, name in
                total + (((try? FileManager.default.attributesOfItem(atPath: folder + "/" + name))?[.size] as? Int) ?? 0)
            }
        }
        let deadline = Date().addingTimeInterval(120) // a hung run fails the test below, it does not hang it
        func waitUntil(_ reached: () -> Bool) {
            while process.isRunning, Date() < deadline, !reached() { usleep(1_000) }
        }
        switch when {
        case .atOnce: break
        case .atPartialFile: waitUntil { partialBytes() != nil }
        case .atPartialSize(let bytes): waitUntil { (partialBytes() ?? 0) >= bytes }
        case .never: waitUntil { false }
        }
        let wasRunning = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return wasRunning && process.terminationReason == .uncaughtSignal
    }

    /// Opens `file` with either key; checks it whole. Returns which key opened it.
    static func check(_ file: String, keys: [String]) throws -> String? {
        let list = try DatabaseKeyList(keys.map { try DatabaseKey.passphrase($0) })
        let (db, key) = try list.open(path: file, mode: .readOnly)
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(Int64(rows)))
        #expect(try db.scalar("SELECT name FROM t WHERE id = \(rows)") == .text("name \(rows)"))
        guard let key, case .passphrase(let text) = key.secret else { return nil }
        return text
    }

    @Test func aKilledRekeyLeavesTheOldOrTheNewFileAndARerunFinishes() throws {
        let scratch = TemporaryFolder()
        let folder = scratch.file("data")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let plain = scratch.file("plain.db"), file = folder + "/store.db"
        try DBCommandTests.makePlain(plain, rows: Self.rows)
        try DatabaseFileConversion.encrypt(from: plain, to: file, key: try .passphrase("key A"))
        do { try Database(path: file, key: try .passphrase("key A")).enableWAL() }

        #expect(try !Self.rekeyAndKill(file, in: folder, to: "key B", keys: ["key A"], .never))
        #expect(try Self.check(file, keys: ["key B"]) == "key B")

        // Kills spread over the run by its progress: before and at the partial file, through
        // the copy, and once the copy is whole (the check, the sync and the rename follow).
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        let kills: [Kill] = [.atOnce, .atPartialFile] + [0.15, 0.4, 0.7, 0.95, 1].map { .atPartialSize(Int(Double(size) * $0)) }
        var current = "key B"
        var killedMidway = 0
        for kill in kills {
            let next = current == "key A" ? "key B" : "key A"
            if try Self.rekeyAndKill(file, in: folder, to: next, keys: [current, next], kill) { killedMidway += 1 }
            let opened = try Self.check(file, keys: ["key A", "key B"])
            #expect(opened == current || opened == next, "killed \(kill)")
            current = opened ?? current
        }
        // Every kill before the copy is whole comes mid-run; the last may come after the end.
        #expect(killedMidway >= kills.count - 1, "\(killedMidway) of \(kills.count) runs killed mid-run")

        // A rerun with both keys finishes, and removes what the killed runs left.
        let target = current == "key A" ? "key B" : "key A"
        let rerun = try CLI.run(["db", "rekey", file, "--to", target, "--db-key", "key A", "--db-key", "key B"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try Self.check(file, keys: [target]) == target)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".dc-") }
        #expect(left.isEmpty, "\(left)")
        // The file was in WAL mode: runs killed after they took it out of WAL mode did not
        // lose that, and the finishing run put it back.
        let mode = try Database(path: file, key: try .passphrase(target), mode: .readOnly).scalar("PRAGMA journal_mode", cached: false)
        #expect(mode == .text("wal"))
    }
}
