import Foundation

/// One cleaning task: a built-in task, or a folder with the entries to delete in it.
///
/// The JSON equivalent of an item of `PurgeableCache.plist`:
/// `{"builtin": "cleanPurgeableValues"}`, `{"builtin": "cleanPurgeablePaths"}`,
/// `{"registered": "name"}` (a task the app registered with `CacheCleaner.register`: the
/// plist's `Class` + `Selectors` entries), or
/// `{"path": "Caches", "entries": ["*.cache", "LogFiles"]}` (entries may use `*` and `?`).
public struct CleaningTask: Codable, Sendable, Equatable {
    /// A built-in task's name.
    public var builtin: String?
    /// The name of a task the app registered on the cleaner.
    public var registered: String?
    /// A folder relative to the root.
    public var path: String?
    /// Names (with wildcards) of the files or folders to delete inside `path`; when absent,
    /// `path` itself is deleted.
    public var entries: [String]?

    /// A built-in task by name (see `Builtin`).
    public init(builtin: String) { self.builtin = builtin }
    /// A task the app registers on the cleaner under `registered`.
    public init(registered: String) { self.registered = registered }
    /// A task deleting `entries` inside `path`, or `path` itself when `entries` is nil.
    public init(path: String, entries: [String]?) {
        self.path = path
        self.entries = entries
    }

    /// The built-in tasks.
    public enum Builtin: String, CaseIterable, Sendable {
        /// Deletes every KV value marked purgeable, in every store of the root.
        case cleanPurgeableValues
        /// Purges every registered purgeable folder, and empties the `manual` ones (which only
        /// a user's cleaning empties).
        case cleanPurgeablePaths

        /// The reference's names of the built-in tasks, accepted as well:
        /// `cleanDefaultPreferences` (`APUserCacheCleaner`'s selector in `PurgeableCache.plist`)
        /// is `cleanPurgeableValues`.
        public static let aliases: [String: Builtin] = ["cleanDefaultPreferences": .cleanPurgeableValues]

        /// The built-in task called `name`, by its own name or its reference alias.
        public static func named(_ name: String) -> Builtin? { Builtin(rawValue: name) ?? aliases[name] }

        /// Every accepted name, for messages.
        static var allNames: [String] { allCases.map(\.rawValue) + aliases.keys.sorted() }
    }

    /// How the task is named in reports.
    public var displayName: String {
        if let builtin { return builtin }
        if let registered { return registered }
        return (path ?? "") + (entries.map { " [" + $0.joined(separator: ", ") + "]" } ?? "")
    }
}

/// The phases of a cleaning run (`APCacheCleanPhase`), in the order they come.
public enum CleanPhase: String, Sendable, CaseIterable {
    /// Measuring the root before cleaning (`APCacheCleanPhasePreCalculating`).
    case preCalculating
    /// Running the tasks (`APCacheCleanPhaseCleaning`).
    case cleaning
    /// Measuring the root after cleaning (`APCacheCleanPhasePostCalculating`).
    case postCalculating
    /// Finished; the progress value is the megabytes freed (`APCacheCleanPhaseDone`).
    case done
}

/// What a cleaning run freed, task by task.
public struct CleanReport: Sendable, Equatable {
    /// One task's outcome.
    public struct TaskResult: Sendable, Equatable {
        /// The task's display name.
        public let task: String
        /// Files, folders or values the task deleted.
        public let itemsDeleted: Int
        /// Bytes the task freed.
        public let bytesFreed: Int64
    }
    /// Each task's outcome, in the order run.
    public var tasks: [TaskResult] = []
    /// The root's size before and after, in bytes.
    public var sizeBefore: Int64 = 0
    /// The root's size after the run, in bytes.
    public var sizeAfter: Int64 = 0
    /// True when nothing was deleted because the run was a dry run.
    public var dryRun = false
    /// Stores skipped because they could not be opened or read (damaged, not SQLite): the
    /// other stores are cleaned all the same.
    public var damagedStores: [DamagedStore] = []

    /// Megabytes (MiB) freed by the tasks.
    public var megabytesFreed: Double { Double(tasks.reduce(0) { $0 + $1.bytesFreed }) / 1_048_576 }
}

/// Why a cleaning-task file was refused.
public struct CleaningTaskFileError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The task file.
    public let file: String
    /// The line at fault, when the error has one.
    public let line: Int?
    /// What is wrong.
    public let message: String
    public var description: String { file + (line.map { ":\($0)" } ?? "") + ": " + message }
    public var errorDescription: String? { description }
}

/// Runs cleaning tasks over a data-center root (`APUserCacheCleaner`), in phases with
/// progress. Paths in tasks are relative to the root and may not leave it.
public final class CacheCleaner: Sendable {
    /// The tasks run when no task file is given.
    public static let defaultTasks = [CleaningTask(builtin: "cleanPurgeableValues"), CleaningTask(builtin: "cleanPurgeablePaths")]

    /// What a registered task does: it cleans and returns the bytes it freed.
    public typealias TaskHandler = @Sendable () throws -> Int64

    private let center: DataCenter
    /// The tasks `clean` runs, in order.
    public let tasks: [CleaningTask]
    /// The task file the tasks came from, or nil for tasks given in code; errors name it.
    public let tasksFile: String?
    /// The app's own tasks, by name (the plist's `Class` + `Selectors`).
    private let handlers = LockedState([String: TaskHandler]())

    /// A cleaner running `tasks` over `dataCenter`'s root.
    public init(dataCenter: DataCenter, tasks: [CleaningTask] = CacheCleaner.defaultTasks) {
        self.center = dataCenter
        self.tasks = tasks
        self.tasksFile = nil
    }

    /// A cleaner running the tasks of the file at `tasksFile` (see `loadTasks`).
    /// - throws: `CleaningTaskFileError` when the file cannot be read or is not a task file.
    public init(dataCenter: DataCenter, tasksFile: String) throws {
        self.center = dataCenter
        self.tasks = try CacheCleaner.loadTasks(fromFile: tasksFile)
        self.tasksFile = tasksFile
    }

    /// Registers the app's own cleaning task `name`, which a `{"registered": name}` task
    /// runs: the reference's `Class` + `Selectors` entries, as a closure instead of a class
    /// method. `handler` cleans and returns the bytes it freed; it is not run by a dry run.
    /// Registering a name again replaces its handler.
    public func register(task name: String, _ handler: @escaping TaskHandler) {
        handlers.withLock { $0[name] = handler }
    }

    /// The names of the registered tasks.
    public var registeredTasks: [String] { handlers.withLock { $0.keys.sorted() } }

    /// Throws, before anything is cleaned, when a task names a registered task there is none of.
    private func checkRegisteredTasks() throws {
        let known = handlers.withLock { Set($0.keys) }
        for (index, task) in tasks.enumerated() {
            guard let name = task.registered, !known.contains(name) else { continue }
            let list = known.isEmpty ? "none is registered" : "registered: " + known.sorted().joined(separator: ", ")
            throw CleaningTaskFileError(file: tasksFile ?? "tasks given in code", line: nil,
                                        message: "task \(index + 1): no task is registered as \"\(name)\" (\(list))")
        }
    }

    /// Reads a task file: `{"tasks": [ … ]}` or a bare array of tasks.
    /// - throws: `CleaningTaskFileError` naming the file, the line of a syntax error, and the
    ///   task at fault.
    public static func loadTasks(fromFile path: String) throws -> [CleaningTask] {
        let data: Data
        do { data = try RegularFile.contents(atPath: path, limit: 16 << 20) } catch let error as FileAccessError {
            throw CleaningTaskFileError(file: path, line: nil, message: error.reason)
        }
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch {
            let info = (error as NSError).userInfo
            var index = info["NSJSONSerializationErrorIndex"] as? Int
            // swift-corelibs-foundation gives the offset only in the description ("… around character 40.").
            if index == nil, let text = info[NSDebugDescriptionErrorKey] as? String, let found = text.range(of: "around character ") {
                index = Int(text[found.upperBound...].prefix { $0.isNumber })
            }
            let line = index.map { i in data.prefix(i).filter { $0 == 0x0A }.count + 1 }
            throw CleaningTaskFileError(file: path, line: line, message: "not valid JSON")
        }
        let list: [Any]
        if let array = object as? [Any] { list = array }
        else if let dict = object as? [String: Any], let array = dict["tasks"] as? [Any] { list = array }
        else { throw CleaningTaskFileError(file: path, line: nil, message: "expected {\"tasks\": [...]} or an array of tasks") }
        return try list.enumerated().map { index, item in
            func fail(_ why: String) -> CleaningTaskFileError {
                CleaningTaskFileError(file: path, line: nil, message: "task \(index + 1): \(why)")
            }
            guard let dict = item as? [String: Any] else { throw fail("expected an object") }
            let unknown = Set(dict.keys).subtracting(["builtin", "registered", "path", "entries"])
            if let key = unknown.sorted().first { throw fail("unknown field \"\(key)\" (fields: builtin, registered, path, entries)") }
            if let registered = dict["registered"] {
                guard let name = registered as? String, !name.isEmpty else { throw fail("\"registered\" must be a task name") }
                guard dict.count == 1 else { throw fail("a registered task has no other field") }
                return CleaningTask(registered: name)
            }
            if let builtin = dict["builtin"] {
                guard let name = builtin as? String, CleaningTask.Builtin.named(name) != nil else {
                    throw fail("unknown built-in task \(builtin) (known: \(CleaningTask.Builtin.allNames.joined(separator: ", ")))")
                }
                guard dict["path"] == nil else { throw fail("a task is either built-in or a path, not both") }
                return CleaningTask(builtin: name)
            }
            guard let taskPath = dict["path"] as? String, !taskPath.isEmpty else { throw fail("needs \"builtin\" or a \"path\"") }
            guard !taskPath.hasPrefix("/"), !taskPath.split(separator: "/").contains("..") else {
                throw fail("path \"\(taskPath)\" must be relative to the root and stay inside it")
            }
            var entries: [String]?
            if let raw = dict["entries"] {
                guard let list = raw as? [String], list.allSatisfy({ !$0.isEmpty && !$0.contains("/") }) else {
                    throw fail("\"entries\" must be a list of names (wildcards allowed, no \"/\")")
                }
                entries = list
            }
            return CleaningTask(path: taskPath, entries: entries)
        }
    }

    /// Runs the tasks. `progress` receives the phase and, during the first three phases, a
    /// fraction from 0 to 1; with `.done`, the megabytes freed.
    /// - throws: `CleaningTaskFileError`, before anything is deleted, when a task names a
    ///   registered task that was not registered.
    public func run(dryRun: Bool = false, progress: (CleanPhase, Double) -> Void = { _, _ in }) throws -> CleanReport {
        try checkRegisteredTasks()
        var report = CleanReport()
        report.dryRun = dryRun
        progress(.preCalculating, 0)
        report.sizeBefore = CacheCleaner.size(of: center.rootPath)
        progress(.preCalculating, 1)
        for (index, task) in tasks.enumerated() {
            progress(.cleaning, Double(index) / Double(max(1, tasks.count)))
            report.tasks.append(try run(task, dryRun: dryRun, damaged: &report.damagedStores))
        }
        progress(.cleaning, 1)
        progress(.postCalculating, 0)
        report.sizeAfter = CacheCleaner.size(of: center.rootPath)
        progress(.postCalculating, 1)
        progress(.done, report.megabytesFreed)
        return report
    }

    private func run(_ task: CleaningTask, dryRun: Bool, damaged: inout [DamagedStore]) throws -> CleanReport.TaskResult {
        if let builtin = task.builtin.flatMap(CleaningTask.Builtin.named) {
            switch builtin {
            case .cleanPurgeableValues:
                let result = try cleanPurgeableValues(dryRun: dryRun, damaged: &damaged)
                return .init(task: task.displayName, itemsDeleted: result.itemsDeleted, bytesFreed: result.bytesFreed)
            case .cleanPurgeablePaths:
                let report = try PurgeablePaths(root: center.rootPath).userClean(dryRun: dryRun)
                return .init(task: task.displayName, itemsDeleted: report.filesDeleted, bytesFreed: report.bytesFreed)
            }
        }
        if let name = task.registered {
            guard !dryRun, let handler = handlers.withLock({ $0[name] }) else { return .init(task: name, itemsDeleted: 0, bytesFreed: 0) }
            return .init(task: name, itemsDeleted: 0, bytesFreed: max(0, try handler()))
        }
        guard let path = task.path else { return .init(task: task.displayName, itemsDeleted: 0, bytesFreed: 0) }
        let folder = URL(fileURLWithPath: center.rootPath + "/" + path).standardizedFileURL.path
        let rootPath = URL(fileURLWithPath: center.rootPath).standardizedFileURL.path
        // Checked with links resolved too: a link inside the root may point out of it.
        let resolvedRoot = URL(fileURLWithPath: rootPath).resolvingSymlinksInPath().path
        guard folder.hasPrefix(rootPath + "/"),
              URL(fileURLWithPath: folder).resolvingSymlinksInPath().path.hasPrefix(resolvedRoot + "/") else {
            throw CleaningTaskFileError(file: task.displayName, line: nil, message: "path leaves the root")
        }
        let fm = FileManager.default
        var targets: [String] = []
        if let entries = task.entries {
            let names = (try? fm.contentsOfDirectory(atPath: folder)) ?? []
            targets = names.filter { name in entries.contains { fnmatch($0, name, 0) == 0 } }.sorted().map { folder + "/" + $0 }
        } else if fm.fileExists(atPath: folder) {
            targets = [folder]
        }
        var items = 0
        var bytes: Int64 = 0
        for target in targets {
            bytes += CacheCleaner.size(of: target)
            items += 1
            if !dryRun { try FileTree.remove(atPath: target) }
        }
        return .init(task: task.displayName, itemsDeleted: items, bytesFreed: bytes)
    }

    private func cleanPurgeableValues(dryRun: Bool, damaged: inout [DamagedStore]) throws -> CleanReport.TaskResult {
        var paths = [center.commonStorePath]
        for user in center.users() { paths.append(try center.storePath(forUser: user)) }
        var items = 0
        var bytes: Int64 = 0
        for path in paths {
            // A damaged store is reported and skipped: the others are still cleaned.
            do {
                let store = try path == center.commonStorePath ? center.commonPreferences : center.store(atPath: path).kv
                // Counted in SQL: no value is loaded, let alone decrypted.
                let summaries = try store.businessSummaries(countingLocked: false)
                let count = summaries.reduce(0) { $0 + $1.purgeableCount }
                if !dryRun, count > 0 {
                    try store.removePurgeableValues()
                    try store.sync()   // shrink the log, so the space is really freed
                }
                items += count
                bytes += summaries.reduce(0) { $0 + $1.purgeableByteCount }
            } catch where DamagedStore.isDamage(error, inEncryptedRoot: center.isDatabaseEncrypted) {
                if !damaged.contains(where: { $0.path == path }) { damaged.append(DamagedStore(path: path, error: error)) }
            }
        }
        return .init(task: CleaningTask.Builtin.cleanPurgeableValues.rawValue, itemsDeleted: items, bytesFreed: bytes)
    }

    /// Bytes of every regular file at or below `path`, leaving out SQLite's `-shm` files
    /// (a shared-memory index that exists only while a store is open).
    static func size(of path: String) -> Int64 {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return 0 }
        if !isDirectory.boolValue {
            return ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
        }
        return PurgeablePaths.files(in: path).filter { !$0.path.hasSuffix("-shm") }.reduce(0) { $0 + $1.size }
    }
}
