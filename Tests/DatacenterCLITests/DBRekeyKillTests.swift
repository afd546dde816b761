import DatacenterKit
import Foundation
import Testing

/// `db rekey` killed with SIGKILL at different moments: the file opens with the old key or
/// the new one and passes `integrity_check`, with every row; a rerun with both keys finishes.
@Suite(.serialized) struct DBRekeyKillTests {
    static let rows = 120_000   // about 30 MB: a rekey takes seconds

    /// Starts `datacenter db rekey FILE --to NEW --db-key NEW --db-key OLD`, kills it with
    /// SIGKILL `delay` seconds after its partial file appears in `folder` (or at once, when
    /// `delay` is negative), and returns whether it was killed before it finished, and how
    /// long it ran after its partial file appeared (its keys derived, the file's work begun).
    static func rekeyAndKill(_ file: String, in folder: String, to key: String, keys: [String],
                             delay: Double) throws -> (killed: Bool, worked: TimeInterval) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binaryPath)
        process.arguments = ["db", "rekey", file, "--to", key] + keys.flatMap { ["--db-key", $0] }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var appeared = Date()
        if delay >= 0 {
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning, Date() < deadline {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                if names.contains(where: { $0.contains(".dc-partial-") }) { break }
                usleep(1_000)
            }
            appeared = Date()
            let end = appeared.addingTimeInterval(delay)
            while process.isRunning, Date() < end { usleep(2_000) }
        }
        let wasRunning = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return (wasRunning && process.terminationReason == .uncaughtSignal, Date().timeIntervalSince(appeared))
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

        // One whole run, timed from its partial file's appearance, spreads the kills over the
        // copy, the check, the sync and the rename, however fast this machine is. Not from
        // its start: opening the file with its key comes first (slower under a sanitizer), and
        // a kill's delay counts from the partial file too.
        let whole = try Self.rekeyAndKill(file, in: folder, to: "key B", keys: ["key A"], delay: 600)
        #expect(!whole.killed)
        let duration = whole.worked
        #expect(try Self.check(file, keys: ["key B"]) == "key B")

        var current = "key B"
        var killedMidway = 0
        for delay in [-1, 0] + [0.15, 0.4, 0.7, 0.85, 0.95].map({ $0 * duration }) {
            let next = current == "key A" ? "key B" : "key A"
            let (killed, _) = try Self.rekeyAndKill(file, in: folder, to: next, keys: [current, next], delay: delay)
            if killed { killedMidway += 1 }
            let opened = try Self.check(file, keys: ["key A", "key B"])
            #expect(opened == current || opened == next, "delay \(delay)")
            current = opened ?? current
        }
        #expect(killedMidway >= 4, "the rekey ended before most kills (a whole run took \(duration) s after its partial file appeared)")

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
