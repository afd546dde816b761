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
