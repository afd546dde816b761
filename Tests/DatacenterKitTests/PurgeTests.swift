import Foundation
import Testing
@testable import DatacenterKit

/// Creates `path` with `size` bytes, last modified `daysOld` days before `now`.
func makeAgedFile(_ path: String, size: Int, daysOld: Double, now: Date = Date()) throws {
    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x61, count: size)))
    try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-daysOld * 86_400)], ofItemAtPath: path)
}

/// `PurgeablePaths`.
@Suite struct PurgeTests {
    let folder = TemporaryFolder()
    /// A fixed "now" for purges, so ages do not depend on when the test runs.
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    var root: String { folder.file("root") }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
    func names(_ paths: [String]) -> [String] { paths.map { ($0 as NSString).lastPathComponent } }

    @Test func filesOlderThanTheTypesDaysGo() throws {
        let paths = PurgeablePaths(root: root)
        let images = try paths.register("Caches/images", type: .oneWeek)
        #expect(images == root + "/Caches/images")
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: images, isDirectory: &isDirectory) && isDirectory.boolValue)
        for (name, days) in [("fresh", 1.0), ("recent", 5), ("edgeYoung", 6.99), ("edgeOld", 7.01), ("old", 10), ("ancient", 40)] {
            try makeAgedFile(images + "/" + name, size: 1000, daysOld: days, now: now)
        }
        try makeAgedFile(images + "/sub/deep/old-nested", size: 10, daysOld: 9, now: now)
        try makeAgedFile(images + "/sub/young-nested", size: 10, daysOld: 2, now: now)

        let report = try paths.purge(now: now)
        #expect(Set(names(report.deletedPaths)) == ["edgeOld", "old", "ancient", "old-nested"])
        #expect(report.filesDeleted == 4)
        #expect(report.bytesFreed == 3010)
        for name in ["fresh", "recent", "edgeYoung", "sub/young-nested"] { #expect(exists(images + "/" + name), "\(name)") }
        for name in ["edgeOld", "old", "ancient", "sub/deep/old-nested"] { #expect(!exists(images + "/" + name), "\(name)") }
        #expect(report.deletedPaths.allSatisfy { $0.hasPrefix(images + "/") })
        // A second run finds nothing more.
        #expect(try paths.purge(now: now) == PurgeReport())
    }

    @Test(arguments: [PurgeType.threeDays, .oneWeek, .twoWeeks, .oneMonth])
    func eachTypeUsesItsOwnDays(type: PurgeType) throws {
        let paths = PurgeablePaths(root: root)
        let dir = try paths.register("f", type: type)
        let days = Double(type.rawValue)
        try makeAgedFile(dir + "/younger", size: 1, daysOld: days - 0.5, now: now)
        try makeAgedFile(dir + "/older", size: 1, daysOld: days + 0.5, now: now)
        let report = try paths.purge(now: now)
        #expect(names(report.deletedPaths) == ["older"])
        #expect(exists(dir + "/younger"))
        #expect(type.maximumAgeDays == type.rawValue)
    }

    @Test func manualFoldersAreNeverPurgedByAge() throws {
        let paths = PurgeablePaths(root: root)
        let dir = try paths.register("manual", type: .manual)
        try makeAgedFile(dir + "/prehistoric", size: 100, daysOld: 10_000, now: now)
        #expect(PurgeType.manual.maximumAgeDays == nil)
        #expect(try paths.purge(now: now).filesDeleted == 0)
        #expect(exists(dir + "/prehistoric"))
        // Only a reset empties it.
        let reset = try paths.resetAll()
        #expect(reset.filesDeleted == 1 && reset.bytesFreed == 100)
        #expect(!exists(dir + "/prehistoric"))
        #expect(exists(dir))
    }

    @Test func overTheCapTheOldestGoUntilHalfTheCapIsLeft() throws {
        let paths = PurgeablePaths(root: root)
        let dir = try paths.register("capped", type: .oneMonth, maximumMegabytes: 1)
        // Five files of 300,000 bytes (1.5 MB > 1 MiB), 1 to 5 days old, all young enough.
        for day in 1...5 { try makeAgedFile(dir + "/d\(day)", size: 300_000, daysOld: Double(day), now: now) }
        let report = try paths.purge(now: now)
        // Oldest first until at most 524,288 bytes remain: d5, d4, d3, d2 go (300,000 left).
        #expect(names(report.deletedPaths) == ["d5", "d4", "d3", "d2"])
        #expect(report.bytesFreed == 1_200_000)
        #expect(exists(dir + "/d1"))
        #expect(try paths.purge(now: now).filesDeleted == 0, "under the cap nothing more goes")
    }

    @Test func theCapAppliesAfterTheAgePurge() throws {
        let paths = PurgeablePaths(root: root)
        let dir = try paths.register("both", type: .oneWeek, maximumMegabytes: 1)
        try makeAgedFile(dir + "/expired", size: 600_000, daysOld: 8, now: now)
        try makeAgedFile(dir + "/a", size: 400_000, daysOld: 3, now: now)
        try makeAgedFile(dir + "/b", size: 400_000, daysOld: 2, now: now)
        try makeAgedFile(dir + "/c", size: 100_000, daysOld: 1, now: now)
        // After the age purge, 900,000 bytes remain: under 1 MiB, so nothing else goes.
        let report = try paths.purge(now: now)
        #expect(names(report.deletedPaths) == ["expired"])
        try makeAgedFile(dir + "/d", size: 300_000, daysOld: 0, now: now)
        // Now 1,200,000: a (oldest) and b go, leaving 400,000 <= 524,288.
        let second = try paths.purge(now: now)
        #expect(names(second.deletedPaths) == ["a", "b"])
        #expect(exists(dir + "/c") && exists(dir + "/d"))
    }

    @Test func aDryRunReportsButDeletesNothing() throws {
        let paths = PurgeablePaths(root: root)
        let dir = try paths.register("dry", type: .threeDays, maximumMegabytes: 1)
        try makeAgedFile(dir + "/old", size: 10, daysOld: 4, now: now)
        for i in 0..<3 { try makeAgedFile(dir + "/big\(i)", size: 400_000, daysOld: Double(i), now: now) }
        let dry = try paths.purge(now: now, dryRun: true)
        #expect(dry.filesDeleted == 3)
        #expect(FileManager.default.subpaths(atPath: dir)?.count == 4)
        let dryReset = try paths.resetAll(dryRun: true)
        #expect(dryReset.filesDeleted == 4)
        #expect(FileManager.default.subpaths(atPath: dir)?.count == 4)
        let real = try paths.purge(now: now)
        #expect(real == dry)
        #expect(FileManager.default.subpaths(atPath: dir)?.sorted() == ["big0"])
    }

    @Test func resetAllEmptiesOnlyRegisteredFolders() throws {
        let paths = PurgeablePaths(root: root)
        let a = try paths.register("a", type: .oneWeek)
        let b = try paths.register(root + "/elsewhere", type: .manual)
        try makeAgedFile(a + "/1", size: 5, daysOld: 0)
        try makeAgedFile(a + "/sub/2", size: 5, daysOld: 0)
        try makeAgedFile(b + "/3", size: 5, daysOld: 0)
        try makeAgedFile(root + "/unregistered/4", size: 5, daysOld: 100)
        let report = try paths.resetAll()
        #expect(report.filesDeleted == 3 && report.bytesFreed == 15)
        #expect(!exists(a + "/1") && !exists(a + "/sub/2") && !exists(b + "/3"))
        #expect(exists(a) && exists(b))
        #expect(exists(root + "/unregistered/4"))
    }

    @Test func theRegistryIsPersistedAndRegisteringAgainReplaces() throws {
        let paths = PurgeablePaths(root: root)
        try paths.register("Caches/images", type: .oneWeek, maximumMegabytes: 5)
        try paths.register(root + "/abs", type: .threeDays)   // an absolute path inside the root
        try paths.register("Caches/../Caches/images", type: .twoWeeks, maximumMegabytes: -3)
        #expect(exists(root + "/purgeable.json"))

        let reloaded = PurgeablePaths(root: root)
        let folders = try reloaded.folders()
        #expect(folders.count == 2)
        #expect(folders.map { reloaded.resolve($0.path) }.sorted() == [root + "/abs", root + "/Caches/images"].sorted())
        let images = try #require(folders.first { reloaded.resolve($0.path) == root + "/Caches/images" })
        #expect(images.type == .twoWeeks)
        #expect(images.maximumMegabytes == 0, "a negative cap is stored as none")

        #expect(try reloaded.unregister("Caches/images/"))
        #expect(try !reloaded.unregister("Caches/images"))
        #expect(try PurgeablePaths(root: root).folders().map(\.path) == [root + "/abs"])
        #expect(exists(root + "/Caches/images"), "unregistering keeps the folder")

        // A damaged registry is reported, not silently replaced.
        #expect(FileManager.default.createFile(atPath: root + "/purgeable.json", contents: Data("{not json".utf8)))
        #expect(throws: StorageError.self) { try reloaded.folders() }
        #expect(throws: StorageError.self) { try reloaded.register("x", type: .oneWeek) }
        // A root with no registry has no folders and purges nothing.
        let empty = PurgeablePaths(root: folder.file("none"))
        #expect(try empty.folders().isEmpty)
        #expect(try empty.purge() == PurgeReport())
    }

    /// A purgeable folder must resolve strictly inside the root, outside its stores: checked
    /// when registered and again before any purge deletes a file.
    @Test func aFolderOutsideTheRootIsRefusedAtRegisterAndAtEveryRun() throws {
        let paths = PurgeablePaths(root: root)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let outside = folder.file("victim")
        try makeAgedFile(outside + "/precious.txt", size: 10, daysOld: 100, now: now)
        try FileManager.default.createSymbolicLink(atPath: root + "/escape", withDestinationPath: outside)
        for path in ["../victim", "/", "/etc", outside, ".", root, "users", "users/ann", "version", "escape", "Caches/../../victim"] {
            #expect(throws: StorageError.self, "\(path)") { try paths.register(path, type: .oneWeek) }
        }
        #expect(try paths.folders().isEmpty)
        #expect(!exists(root + "/users") && !exists(root + "/version"), "a refused registration creates nothing")

        // A tampered registry: nothing is deleted, by a purge, a reset or the cleaner's dry run.
        let registry = #"[{"path": "../victim", "type": 3, "maximumMegabytes": 0}, {"path": "Caches/own", "type": 3, "maximumMegabytes": 0}]"#
        try Data(registry.utf8).write(to: URL(fileURLWithPath: root + "/purgeable.json"))
        try makeAgedFile(root + "/Caches/own/old.txt", size: 10, daysOld: 100, now: now)
        let error = #expect(throws: StorageError.self) { try paths.purge(now: now) }
        #expect("\(error!)".contains("purgeable folder ../victim refused"))
        #expect(throws: StorageError.self) { try paths.purge(now: now, dryRun: true) }
        #expect(throws: StorageError.self) { try paths.resetAll() }
        #expect(exists(outside + "/precious.txt"))
        #expect(exists(root + "/Caches/own/old.txt"), "nothing is purged while the registry holds an unsafe folder")
    }

    @Test func aPurgeDoesNotFollowLinksOutOfTheFolder() throws {
        let paths = PurgeablePaths(root: root)
        let dir = try paths.register("linked", type: .threeDays)
        let outside = folder.file("outside")
        try makeAgedFile(outside + "/precious", size: 10, daysOld: 100, now: now)
        try FileManager.default.createSymbolicLink(atPath: dir + "/toOutside", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: dir + "/fileLink", withDestinationPath: outside + "/precious")
        try makeAgedFile(dir + "/own", size: 10, daysOld: 100, now: now)
        let report = try paths.purge(now: now)
        #expect(names(report.deletedPaths) == ["own"])
        #expect(exists(outside + "/precious"))
        _ = try paths.resetAll()
        #expect(exists(outside + "/precious"))
    }
}
