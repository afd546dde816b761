import DatacenterKit
import Foundation
import Testing

/// `datacenter snapshot` killed with SIGKILL at random moments leaves either a complete
/// snapshot (its diff with the root finds nothing) or none; what a killed run leaves
/// behind is a private partial folder, which the next snapshot into that folder removes.
@Suite struct SnapshotKillTests {
    @Test func aKilledSnapshotIsWholeOrAbsent() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        // Stores big enough that copying them takes a while.
        for user in ["", "ann", "bob"] {
            let path = user.isEmpty ? root + "/common.sqlite" : root + "/users/\(user)/user.sqlite"
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let db = try Database(path: path)
            try db.execute("CREATE TABLE filler(id INTEGER PRIMARY KEY, body BLOB)")
            try db.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000) "
                           + "INSERT INTO filler SELECT i, randomblob(1000) FROM n")
        }
        var random = SplitMix64(seed: testSeed("SNAPSHOT_KILL_SEED", default: 0x5AAB))
        var whole = 0, none = 0
        for trial in 0..<testCount("CRASH_TRIALS", default: 8) {
            let target = folder.file("snap-\(trial)")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CLI.binaryPath)
            process.arguments = ["snapshot", root, "-o", target]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32(random.below(120_000)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if FileManager.default.fileExists(atPath: target) {
                let diff = try CLI.run(["diff", "--since", target, root])
                #expect(diff.status == 0, "trial \(trial): a snapshot that is there is whole: \(diff.stdout)\(diff.stderr)")
                whole += 1
            } else {
                none += 1
            }
        }
        // The next snapshot into the folder removes what the killed runs left.
        #expect(try CLI.run(["snapshot", root, "-o", folder.file("last")]).status == 0)
        let partials = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".dc-partial-") }
        #expect(partials.isEmpty, "left: \(partials)")
        #expect(whole + none == testCount("CRASH_TRIALS", default: 8))
    }
}
