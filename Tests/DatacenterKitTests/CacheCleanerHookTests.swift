import Foundation
import Testing
@testable import DatacenterKit

/// The cache cleaner's hooks: registered tasks, the reference's task names, manual folders,
/// and `execute` off the caller's thread.
@Suite struct CacheCleanerHookTests {
    let folder = TemporaryFolder()
    var root: String { folder.file("root") }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    func writeTasks(_ json: String) -> String {
        let path = folder.file("tasks.json")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(json.utf8)))
        return path
    }

    @Test func aRegisteredTaskRunsWhereTheFileNamesIt() throws {
        let center = try DataCenter(rootPath: root)
        try makeAgedFile(root + "/Caches/a.cache", size: 10, daysOld: 0)
        let file = writeTasks(#"[{"registered": "images"}, {"path": "Caches", "entries": ["*.cache"]}, {"registered": "logs"}]"#)
        let cleaner = try CacheCleaner(dataCenter: center, tasksFile: file)
        let ran = Locked<[String]>([])
        cleaner.register(task: "images") { ran.withLock { $0.append("images") }; return 300 }
        cleaner.register(task: "logs") { ran.withLock { $0.append("logs") }; return 20 }
        #expect(cleaner.registeredTasks == ["images", "logs"])

        let dry = try cleaner.run(dryRun: true)
        #expect(ran.current.isEmpty, "a dry run runs no registered task")
        #expect(dry.tasks.map(\.bytesFreed) == [0, 10, 0])

        let report = try cleaner.run()
        #expect(ran.current == ["images", "logs"])
        #expect(report.tasks == [.init(task: "images", itemsDeleted: 0, bytesFreed: 300),
                                 .init(task: "Caches [*.cache]", itemsDeleted: 1, bytesFreed: 10),
                                 .init(task: "logs", itemsDeleted: 0, bytesFreed: 20)])
    }

    @Test func anUnknownRegisteredTaskNamesTheFileAndEntryAndCleansNothing() throws {
        let center = try DataCenter(rootPath: root)
        try makeAgedFile(root + "/Caches/a.cache", size: 10, daysOld: 0)
        let file = writeTasks(#"[{"path": "Caches", "entries": ["*.cache"]}, {"registered": "ghost"}]"#)
        let cleaner = try CacheCleaner(dataCenter: center, tasksFile: file)
        cleaner.register(task: "images") { 0 }
        #expect(throws: CleaningTaskFileError(file: file, line: nil, message: "task 2: no task is registered as \"ghost\" (registered: images)")) {
            try cleaner.run()
        }
        #expect(exists(root + "/Caches/a.cache"), "nothing is cleaned when a task cannot run")
        let inCode = CacheCleaner(dataCenter: center, tasks: [CleaningTask(registered: "ghost")])
        #expect(throws: CleaningTaskFileError(file: "tasks given in code", line: nil, message: "task 1: no task is registered as \"ghost\" (none is registered)")) {
            try inCode.run()
        }
        // Malformed entries are refused when the file is read.
        for bad in [#"[{"registered": ""}]"#, #"[{"registered": 3}]"#, #"[{"registered": "a", "path": "b"}]"#] {
            #expect(throws: CleaningTaskFileError.self, "\(bad)") { try CacheCleaner.loadTasks(fromFile: writeTasks(bad)) }
        }
    }

    @Test func cleanDefaultPreferencesIsTheReferenceNameOfCleanPurgeableValues() throws {
        let center = try DataCenter(rootPath: root)
        try center.commonPreferences.setString("x", forKey: "p", business: "b", options: .purgeable)
        try center.commonPreferences.setString("y", forKey: "k", business: "b")
        let tasks = try CacheCleaner.loadTasks(fromFile: writeTasks(#"[{"builtin": "cleanDefaultPreferences"}]"#))
        #expect(tasks == [CleaningTask(builtin: "cleanDefaultPreferences")])
        let report = try CacheCleaner(dataCenter: center, tasks: tasks).run()
        #expect(report.tasks.map(\.task) == ["cleanDefaultPreferences"])
        #expect(report.tasks.map(\.itemsDeleted) == [1])
        #expect(try center.commonPreferences.string(forKey: "p", business: "b") == nil)
        #expect(try center.commonPreferences.string(forKey: "k", business: "b") == "y")
    }

    @Test func cleanPurgeablePathsEmptiesManualFoldersButNotYoungFilesOfTimedOnes() throws {
        let center = try DataCenter(rootPath: root)
        let paths = PurgeablePaths(root: root)
        let manual = try paths.register("Manual", type: .manual)
        let weekly = try paths.register("Weekly", type: .oneWeek)
        try makeAgedFile(manual + "/new", size: 5, daysOld: 0)
        try makeAgedFile(manual + "/sub/old", size: 7, daysOld: 400)
        try makeAgedFile(weekly + "/new", size: 11, daysOld: 1)
        try makeAgedFile(weekly + "/old", size: 13, daysOld: 8)
        // An expiry purge leaves a manual folder alone.
        #expect(try paths.purge().filesDeleted == 1)
        #expect(exists(manual + "/new") && exists(manual + "/sub/old"))
        try makeAgedFile(weekly + "/old", size: 13, daysOld: 8)

        let report = try CacheCleaner(dataCenter: center, tasks: [CleaningTask(builtin: "cleanPurgeablePaths")]).run()
        let expected: [CleanReport.TaskResult] = [.init(task: "cleanPurgeablePaths", itemsDeleted: 3, bytesFreed: 5 + 7 + 13)]
        #expect(report.tasks == expected)
        #expect(!exists(manual + "/new") && !exists(manual + "/sub/old"))
        #expect(exists(manual), "the folder itself stays")
        #expect(exists(weekly + "/new") && !exists(weekly + "/old"))
    }

    @Test func executeReturnsAtOnceAndDeliversThePhasesInOrderOnTheNamedQueue() throws {
        let center = try DataCenter(rootPath: root)
        try makeAgedFile(root + "/Caches/big.cache", size: 1_048_576, daysOld: 0)
        try makeAgedFile(root + "/Caches/half.cache", size: 524_288, daysOld: 0)
        let cleaner = CacheCleaner(dataCenter: center, tasks: [CleaningTask(registered: "gate"), CleaningTask(path: "Caches", entries: ["*.cache"])])
        let gate = DispatchSemaphore(value: 0)
        let started = Locked(false)
        cleaner.register(task: "gate") {
            started.withLock { $0 = true }
            // Waits until the test has seen execute return.
            return gate.wait(timeout: .now() + 30) == .success ? 0 : -1
        }
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "caller's delivery queue", attributes: .concurrent)
        queue.setSpecific(key: key, value: "named")
        let events = Locked<[(CleanPhase, Double, String?)]>([])
        let finished = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<CleanReport, Error>?>(nil)
        cleaner.execute(on: queue, progress: { phase, value in
            events.withLock { $0.append((phase, value, DispatchQueue.getSpecific(key: key))) }
        }, completion: { result in
            outcome.withLock { $0 = result }
            #expect(DispatchQueue.getSpecific(key: key) == "named")
            finished.signal()
        })
        // execute returned while the gate task is still waiting: nothing was deleted yet.
        #expect(exists(root + "/Caches/big.cache"))
        #expect(outcome.current == nil)
        gate.signal()
        #expect(wait(for: finished), "execute never completed")
        #expect(started.current)
        let report = try #require(try outcome.current?.get())
        let seen = events.current
        #expect(seen.allSatisfy { $0.2 == "named" }, "a callback ran off the named queue")
        let phases = seen.map(\.0)
        let ranks = phases.map { CleanPhase.allCases.firstIndex(of: $0)! }
        #expect(ranks == ranks.sorted())
        #expect(Set(phases) == Set(CleanPhase.allCases))
        #expect(phases.last == .done && phases.filter { $0 == .done }.count == 1)
        #expect(seen.last?.1 == 1.5, "done carries the megabytes freed")
        #expect(report.megabytesFreed == 1.5)
        #expect(!exists(root + "/Caches/big.cache"))
    }

    @Test func executeReportsAnError() throws {
        let center = try DataCenter(rootPath: root)
        let cleaner = CacheCleaner(dataCenter: center, tasks: [CleaningTask(registered: "ghost")])
        let finished = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<CleanReport, Error>?>(nil)
        cleaner.execute(on: .global()) { result in outcome.withLock { $0 = result }; finished.signal() }
        #expect(wait(for: finished))
        #expect(throws: CleaningTaskFileError.self) { try outcome.current?.get() }
    }
}
