import Foundation
import Testing
@testable import DatacenterKit

/// `CacheCleaner` and its task files.
@Suite struct CacheCleanerTests {
    let folder = TemporaryFolder()
    var root: String { folder.file("root") }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    /// Writes a task file and loads it.
    func load(_ json: String, name: String = "tasks.json") throws -> [CleaningTask] {
        let path = folder.file(name)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(json.utf8)))
        return try CacheCleaner.loadTasks(fromFile: path)
    }

    /// The error loading `json` gives.
    func loadError(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> CleaningTaskFileError? {
        do {
            _ = try load(json, name: "bad.json")
            Issue.record("the task file was accepted", sourceLocation: sourceLocation)
            return nil
        } catch let error as CleaningTaskFileError {
            #expect(error.file == folder.file("bad.json"), sourceLocation: sourceLocation)
            return error
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    // MARK: Task files

    @Test func validTaskFilesParse() throws {
        let wrapped = try load("""
            {"tasks": [
              {"builtin": "cleanPurgeableValues"},
              {"path": "Caches", "entries": ["*.cache", "LogFiles"]},
              {"path": "tmp/old"}
            ]}
            """)
        #expect(wrapped == [CleaningTask(builtin: "cleanPurgeableValues"),
                            CleaningTask(path: "Caches", entries: ["*.cache", "LogFiles"]),
                            CleaningTask(path: "tmp/old", entries: nil)])
        #expect(wrapped[1].displayName == "Caches [*.cache, LogFiles]")
        #expect(wrapped[2].displayName == "tmp/old")
        let bare = try load(#"[{"builtin": "cleanPurgeablePaths"}]"#, name: "bare.json")
        #expect(bare == [CleaningTask(builtin: "cleanPurgeablePaths")])
        #expect(try load("[]", name: "empty.json").isEmpty)
    }

    @Test func badJSONNamesTheFileAndLine() throws {
        let error = try #require(loadError("""
            {"tasks": [
              {"builtin": "cleanPurgeableValues"},
              {"path": "Caches", "entries": ["*.cache",]}
              {"path": "x"}
            ]}
            """))
        #expect(error.line == 3 || error.line == 4, "line \(String(describing: error.line))")
        #expect(error.description.hasPrefix(folder.file("bad.json") + ":\(error.line ?? 0): "))
        #expect(error.message.contains("JSON"))

        let first = try #require(loadError("\n\n\n  nonsense"))
        #expect(first.line == 4)

        let missing = folder.file("absent.json")
        #expect(throws: CleaningTaskFileError(file: missing, line: nil, message: "cannot open it: no such file or folder")) {
            try CacheCleaner.loadTasks(fromFile: missing)
        }
    }

    @Test func badFieldsNameTheTask() throws {
        let cases: [(String, String)] = [
            (#"[{"builtin": "cleanPurgeableValues"}, {"path": "a", "entrys": ["x"]}]"#, "task 2: unknown field \"entrys\""),
            (#"[{"builtin": "cleanEverything"}]"#, "task 1: unknown built-in task cleanEverything"),
            (#"[{"builtin": 3}]"#, "task 1: unknown built-in task"),
            (#"[{"builtin": "cleanPurgeablePaths", "path": "a"}]"#, "task 1: a task is either built-in or a path"),
            (#"[{"entries": ["a"]}]"#, "task 1: needs \"builtin\" or a \"path\""),
            (#"[{"path": ""}]"#, "task 1: needs"),
            (#"[{"path": 7}]"#, "task 1: needs"),
            (#"[{"path": "ok"}, {"path": "ok"}, "just a string"]"#, "task 3: expected an object"),
            (#"[{"path": "a", "entries": ["sub/x"]}]"#, "task 1: \"entries\" must be a list of names"),
            (#"[{"path": "a", "entries": [""]}]"#, "task 1: \"entries\""),
            (#"[{"path": "a", "entries": "x"}]"#, "task 1: \"entries\""),
            (#"{"jobs": []}"#, "expected {\"tasks\": [...]}"),
            (#"{"tasks": "all"}"#, "expected"),
        ]
        for (json, message) in cases {
            guard let error = loadError(json) else { continue }
            #expect(error.message.hasPrefix(message), "\(json) gave \(error.message)")
            #expect(error.line == nil)
        }
    }

    @Test func pathsMustStayInsideTheRoot() throws {
        for path in ["/etc", "/", "..", "../x", "a/../../x", "a/..", "Caches/../../.."] {
            let json = #"[{"path": "\#(path)"}]"#
            guard let error = loadError(json) else { continue }
            #expect(error.message == "task 1: path \"\(path)\" must be relative to the root and stay inside it", "\(path)")
        }
        // Tasks built in code are checked when run.
        let center = try DataCenter(rootPath: root)
        try makeAgedFile(folder.file("victim"), size: 3, daysOld: 0)
        for path in ["..", "../victim", ".", "a/../.."] {
            let cleaner = CacheCleaner(dataCenter: center, tasks: [CleaningTask(path: path, entries: nil)])
            #expect(throws: CleaningTaskFileError.self, "\(path)") { try cleaner.run() }
        }
        #expect(exists(folder.file("victim")))
        #expect(exists(root))
    }

    // MARK: Running

    /// A root with a `Caches` folder of assorted entries.
    func makeCaches() throws -> DataCenter {
        let center = try DataCenter(rootPath: root)
        try makeAgedFile(root + "/Caches/a.cache", size: 100, daysOld: 0)
        try makeAgedFile(root + "/Caches/b.cache", size: 200, daysOld: 0)
        try makeAgedFile(root + "/Caches/keep.txt", size: 50, daysOld: 0)
        try makeAgedFile(root + "/Caches/x.cache.bak", size: 1, daysOld: 0)
        try makeAgedFile(root + "/Caches/LogFiles/1.log", size: 300, daysOld: 0)
        try makeAgedFile(root + "/Caches/LogFiles/deep/2.log", size: 400, daysOld: 0)
        try makeAgedFile(root + "/Caches/log1", size: 7, daysOld: 0)
        try makeAgedFile(root + "/Caches/log22", size: 9, daysOld: 0)
        try makeAgedFile(root + "/tmp/old/x", size: 1000, daysOld: 0)
        return center
    }

    @Test func wildcardEntriesDeleteOnlyWhatMatches() throws {
        let center = try makeCaches()
        let cleaner = CacheCleaner(dataCenter: center, tasks: [
            CleaningTask(path: "Caches", entries: ["*.cache", "LogFiles", "log?"]),
            CleaningTask(path: "tmp/old", entries: nil),
            CleaningTask(path: "missing", entries: ["*"]),
        ])
        let report = try cleaner.run()
        // Typed apart from the comparison: inferred inside `#expect`, it took a second to compile.
        let expected: [CleanReport.TaskResult] = [
            .init(task: "Caches [*.cache, LogFiles, log?]", itemsDeleted: 4, bytesFreed: 100 + 200 + 700 + 7),
            .init(task: "tmp/old", itemsDeleted: 1, bytesFreed: 1000),
            .init(task: "missing [*]", itemsDeleted: 0, bytesFreed: 0),
        ]
        #expect(report.tasks == expected)
        #expect(!report.dryRun)
        for gone in ["Caches/a.cache", "Caches/b.cache", "Caches/LogFiles", "Caches/log1", "tmp/old"] {
            #expect(!exists(root + "/" + gone), "\(gone)")
        }
        for kept in ["Caches/keep.txt", "Caches/x.cache.bak", "Caches/log22", "tmp"] {
            #expect(exists(root + "/" + kept), "\(kept)")
        }
        #expect(report.sizeBefore - report.sizeAfter == 2007)
        #expect(abs(report.megabytesFreed - 2007.0 / 1_048_576) < 1e-12)
    }

    @Test func aDryRunDeletesNothingAndReportsTheSame() throws {
        let center = try makeCaches()
        let purge = PurgeablePaths(root: root)
        let images = try purge.register("Caches/images", type: .threeDays)
        try makeAgedFile(images + "/old.jpg", size: 4096, daysOld: 10)
        try center.commonPreferences.setString("big", forKey: "p", business: "b", options: .purgeable)
        let tasks = CacheCleaner.defaultTasks + [CleaningTask(path: "Caches", entries: ["*.cache"])]
        let before = FileManager.default.subpaths(atPath: root)?.sorted()

        let dry = try CacheCleaner(dataCenter: center, tasks: tasks).run(dryRun: true)
        #expect(dry.dryRun)
        #expect(FileManager.default.subpaths(atPath: root)?.sorted() == before)
        #expect(try center.commonPreferences.string(forKey: "p", business: "b") == "big")
        #expect(dry.tasks.map(\.itemsDeleted) == [1, 1, 2])

        let real = try CacheCleaner(dataCenter: center, tasks: tasks).run()
        #expect(real.tasks == dry.tasks)
        #expect(!exists(images + "/old.jpg"))
        #expect(try center.commonPreferences.string(forKey: "p", business: "b") == nil)
    }

    @Test func builtInTasksCleanPurgeableValuesAndPaths() throws {
        let center = try DataCenter(rootPath: root)
        let common = try center.commonPreferences
        try common.setString("purge me", forKey: "a", business: "feed", options: .purgeable)
        try common.setString("purge me too", forKey: "b", business: "feed", options: .purgeable)
        try common.setString("keep me", forKey: "c", business: "feed")
        let ann = try center.preferences(forUser: "ann")
        try ann.setString("user purgeable", forKey: "d", business: "chat", options: .purgeable)
        try ann.setString("user kept", forKey: "e", business: "chat")
        let paths = PurgeablePaths(root: root)
        let dir = try paths.register("Caches/images", type: .oneWeek)
        try makeAgedFile(dir + "/old", size: 2048, daysOld: 8)
        try makeAgedFile(dir + "/new", size: 2048, daysOld: 6)

        let report = try CacheCleaner(dataCenter: center).run()
        #expect(report.tasks.map(\.task) == ["cleanPurgeableValues", "cleanPurgeablePaths"])
        #expect(report.tasks[0].itemsDeleted == 3)
        #expect(report.tasks[0].bytesFreed > 0)
        #expect(report.tasks[1] == .init(task: "cleanPurgeablePaths", itemsDeleted: 1, bytesFreed: 2048))
        #expect(try common.string(forKey: "a", business: "feed") == nil)
        #expect(try common.string(forKey: "b", business: "feed") == nil)
        #expect(try common.string(forKey: "c", business: "feed") == "keep me")
        #expect(try ann.string(forKey: "d", business: "chat") == nil)
        #expect(try ann.string(forKey: "e", business: "chat") == "user kept")
        #expect(!exists(dir + "/old") && exists(dir + "/new"))

        // Nothing left to clean.
        let again = try CacheCleaner(dataCenter: center).run()
        #expect(again.tasks.map(\.itemsDeleted) == [0, 0])
    }

    @Test func phasesArriveInOrderAndDoneCarriesTheMegabytesFreed() throws {
        let center = try DataCenter(rootPath: root)
        try makeAgedFile(root + "/Caches/big.cache", size: 2 * 1_048_576, daysOld: 0)
        try makeAgedFile(root + "/Caches/half.cache", size: 524_288, daysOld: 0)
        let tasks = [CleaningTask(path: "Caches", entries: ["big.cache"]), CleaningTask(path: "Caches", entries: ["half.*"]),
                     CleaningTask(path: "none", entries: nil)]
        var events: [(CleanPhase, Double)] = []
        let report = try CacheCleaner(dataCenter: center, tasks: tasks).run { events.append(($0, $1)) }

        let order: [CleanPhase] = [.preCalculating, .cleaning, .postCalculating, .done]
        let phases = events.map(\.0)
        #expect(phases.first == .preCalculating)
        #expect(phases.last == .done)
        #expect(phases.filter { $0 == .done }.count == 1)
        // Phases never go backwards, and each of the first three is seen.
        let ranks = phases.map { order.firstIndex(of: $0)! }
        #expect(ranks == ranks.sorted())
        #expect(Set(phases) == Set(order))
        // Within a phase the fraction rises from 0 to 1.
        for phase in order.dropLast() {
            let fractions = events.filter { $0.0 == phase }.map(\.1)
            #expect(fractions.first == 0 && fractions.last == 1, "\(phase): \(fractions)")
            #expect(fractions == fractions.sorted(), "\(phase): \(fractions)")
            #expect(fractions.allSatisfy { (0...1).contains($0) })
        }
        #expect(events.filter { $0.0 == .cleaning }.count == tasks.count + 1)
        #expect(events.last?.1 == 2.5)
        #expect(report.megabytesFreed == 2.5)
    }

    @Test func aLinkedFolderInsideTheRootIsNotAWayOut() throws {
        let center = try DataCenter(rootPath: root)
        let outside = folder.file("outside")
        try makeAgedFile(outside + "/precious.cache", size: 10, daysOld: 0)
        try FileManager.default.createDirectory(atPath: root + "/Caches", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/Caches/link", withDestinationPath: outside)
        let cleaner = CacheCleaner(dataCenter: center, tasks: [CleaningTask(path: "Caches/link", entries: ["*.cache"])])
        _ = try? cleaner.run()
        #expect(exists(outside + "/precious.cache"), "a task followed a link out of the root")
    }
}
