import Foundation
import Testing
@testable import DatacenterKit

/// The purge check an open runs in the background (`PurgeCheck`).
@Suite struct PurgeCheckTests {
    let folder = TemporaryFolder()
    var root: String { folder.file("root") }
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    /// Opens the root with a daily check as of `now` and waits for the check's outcome.
    func openAndWait(now: Date, readOnly: Bool = false) throws -> (DataCenter, PurgeCheckOutcome?) {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<PurgeCheckOutcome?>(nil)
        let check = PurgeCheck.every(86_400, clock: { now }) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        let center = try DataCenter(rootPath: root, readOnly: readOnly, purgeCheck: check)
        #expect(wait(for: done), "the purge check never finished")
        return (center, outcome.current)
    }

    func purgedCount(_ outcome: PurgeCheckOutcome?) -> Int? {
        if case .purged(let report)? = outcome { return report.filesDeleted }
        return nil
    }

    @Test func opensWithinTheIntervalPurgeOnceAndAfterItAgain() throws {
        let paths = PurgeablePaths(root: root)
        let dir = try paths.register("Caches", type: .threeDays)
        let manual = try paths.register("Manual", type: .manual)
        try makeAgedFile(dir + "/old", size: 10, daysOld: 4, now: start)
        try makeAgedFile(dir + "/young", size: 10, daysOld: 2, now: start)
        try makeAgedFile(manual + "/kept", size: 10, daysOld: 400, now: start)

        let (_, first) = try openAndWait(now: start)
        #expect(purgedCount(first) == 1)
        #expect(!exists(dir + "/old") && exists(dir + "/young"))
        #expect(exists(manual + "/kept"), "an expiry check never empties a manual folder")

        // Within the interval: no purge, even of a file that is old by now.
        try makeAgedFile(dir + "/old2", size: 10, daysOld: 4, now: start)
        let (_, second) = try openAndWait(now: start.addingTimeInterval(3_600))
        guard case .notDue(let last)? = second else { Issue.record("expected notDue, got \(String(describing: second))"); return }
        #expect(last == start)
        #expect(exists(dir + "/old2"))

        // After it: purged again.
        let (_, third) = try openAndWait(now: start.addingTimeInterval(86_400 + 1))
        #expect(purgedCount(third) == 2)   // old2, and young is now 3 days + 1 s old
        #expect(!exists(dir + "/old2") && !exists(dir + "/young"))
    }

    @Test func aReadOnlyOpenNeverPurges() throws {
        let dir = try PurgeablePaths(root: root).register("Caches", type: .threeDays)
        try makeAgedFile(dir + "/old", size: 10, daysOld: 4, now: start)
        let (_, outcome) = try openAndWait(now: start, readOnly: true)
        guard case .readOnly? = outcome else { Issue.record("expected readOnly, got \(String(describing: outcome))"); return }
        #expect(exists(dir + "/old"))
        #expect(!exists(root + "/purge-check.json"), "a read-only open writes nothing")
    }

    @Test func offByDefault() throws {
        let dir = try PurgeablePaths(root: root).register("Caches", type: .threeDays)
        try makeAgedFile(dir + "/old", size: 10, daysOld: 4)
        _ = try DataCenter(rootPath: root)
        // Nothing runs in the background when off: a purge now still finds the file.
        #expect(try PurgeablePaths(root: root).purge(dryRun: true).filesDeleted == 1)
        #expect(!exists(root + "/purge-check.json"))
    }

    @Test func aFailedCheckIsReported() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: root + "/purgeable.json", contents: Data("{broken".utf8)))
        let (_, outcome) = try openAndWait(now: start)
        guard case .failed(let error)? = outcome else { Issue.record("expected failed, got \(String(describing: outcome))"); return }
        #expect(error is StorageError)
    }
}
