import DatacenterKit
import Foundation
import Testing

extension CrashTests {
    @Test func killedWritesToAnEncryptedWALStoreKeepEveryAcknowledgedWrite() throws {
        var dice = SplitMix64(seed: Self.seed &+ 5)
        let scratch = TemporaryFolder()
        let key = try DatabaseKey.passphrase("crash test")
        for trial in 0..<Self.trials {
            let path = scratch.file("cipher-\(trial).sqlite")
            let out = try Self.runAndKill(Self.writerPath, ["cipher", path], acks: Int.random(in: 1...80, using: &dice), dice: &dice)
            let last = Self.lastAck(out)
            #expect(last >= 0, "seed \(Self.seed) trial \(trial): the writer acknowledged nothing: \(out.suffix(300))")
            // Opened read-write, as the app would: SQLite recovers the WAL the kill left.
            let db = try Database(path: path, key: key, mode: .readWriteExisting)
            let counts = try db.query("SELECT write, count(*) FROM rows GROUP BY write ORDER BY write")
            var seen: [Int64: Int64] = [:]
            for row in counts { seen[row[0].int64Value!] = row[1].int64Value! }
            for n in 0...max(0, last) where last >= 0 {
                let expected: Int64 = n % 10 == 9 ? 100 : 1
                #expect(seen[Int64(n)] == expected, "seed \(Self.seed) trial \(trial): acknowledged write \(n) has \(seen[Int64(n)] ?? 0) rows")
                if seen[Int64(n)] != expected { break }
            }
            // A write the kill interrupted is whole or absent.
            for (write, count) in seen { #expect(count == (write % 10 == 9 ? 100 : 1)) }
            #expect(try db.scalar("PRAGMA integrity_check", cached: false) == .text("ok"))
        }
    }
}

extension CrashTests {
    @Test func aKilledDatabaseRekeyOfARootLeavesEachFileWholeAndARerunFinishes() throws {
        var dice = SplitMix64(seed: Self.seed &+ 6)
        let scratch = TemporaryFolder()
        let value = try EncryptionKey(parsing: TestKeys.first)
        for trial in 0..<max(1, Self.trials / 2) {
            let root = scratch.file("dbrekey-\(trial)")
            do {
                let center = try DataCenter(rootPath: root, crypt: KeyRing([value]))
                try center.setCurrentUserId("ann")
                for kv in [try center.commonPreferences, try center.userPreferences!] {
                    try kv.batch {
                        for i in 0..<3_000 { try kv.setString("secret \(i)", forKey: "k\(i)", business: "b", encryption: .default) }
                    }
                }
            }
            let files = [root + "/common.sqlite", root + "/users/ann/user.sqlite"]
            _ = try Self.runAndKill(CLI.binaryPath, ["rekey", "--root", root, "--to-db-key", "new db pass"],
                                    acks: nil, delay: Double(Int.random(in: 0...400, using: &dice)) / 1000, dice: &dice)
            let key = try DatabaseKey.passphrase("new db pass")
            for file in files {
                // Whole: plain as it was, or encrypted with the new key; either way intact.
                let db: Database
                switch try DatabaseFileKind.of(path: file) {
                case .plain: db = try Database(path: file, mode: .readWriteExisting)
                default: db = try Database(path: file, key: key, mode: .readWriteExisting)
                }
                #expect(try db.scalar("PRAGMA integrity_check", cached: false) == .text("ok"), "seed \(Self.seed) trial \(trial): \(file)")
                #expect(try db.scalar("SELECT count(*) FROM datacenter_kv") == .integer(3_000))
            }
            let rerun = try CLI.run(["rekey", "--root", root, "--to-db-key", "new db pass", "--db-key", "new db pass"])
            #expect(rerun.status == 0, "seed \(Self.seed) trial \(trial): \(rerun.stderr)")
            let center = try DataCenter(rootPath: root, crypt: KeyRing([value]), readOnly: true, databaseKeys: DatabaseKeyList([key]))
            #expect(try center.preferences(forUser: "ann").string(forKey: "k2999", business: "b") == "secret 2999")
            #expect(try center.commonPreferences.string(forKey: "k0", business: "b") == "secret 0")
            // No partial file is left behind by the rerun.
            let left = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.contains("partial") }
            #expect(left.isEmpty, "\(left)")
        }
    }
}
