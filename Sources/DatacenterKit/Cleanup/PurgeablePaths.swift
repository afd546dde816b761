import Foundation

/// How long files in a purgeable folder live (`APPurgeableType`).
public enum PurgeType: Int, Codable, Sendable, CaseIterable {
    /// Only emptied by a manual clean (`resetAll`), never by age.
    case manual = 0
    case threeDays = 3
    case oneWeek = 7
    case twoWeeks = 14
    case oneMonth = 30

    /// The age in days past which a file is deleted, or nil for `manual`.
    public var maximumAgeDays: Int? { self == .manual ? nil : rawValue }
}

/// A folder registered for automatic purging.
public struct PurgeableFolder: Codable, Sendable, Equatable {
    /// The folder: relative paths are relative to the root.
    public let path: String
    /// How long its files live.
    public let type: PurgeType
    /// The size cap in MiB; 0 means no cap.
    public let maximumMegabytes: Int
}

/// What a purge deleted (or, in a dry run, would delete).
public struct PurgeReport: Sendable, Equatable {
    /// How many files were deleted.
    public var filesDeleted = 0
    /// The total size of the deleted files, in bytes.
    public var bytesFreed: Int64 = 0
    /// The files, as absolute paths.
    public var deletedPaths: [String] = []

    mutating func add(_ other: PurgeReport) {
        filesDeleted += other.filesDeleted
        bytesFreed += other.bytesFreed
        deletedPaths += other.deletedPaths
    }
}

/// The purgeable folders of a root (`APPurgeablePath…`, `ResetAllPurgeablePaths`): a registry
/// kept in `<root>/purgeable.json`, and the purge that keeps each folder within its rules.
///
/// A purge deletes files older than the folder's type allows; then, when the folder is over
/// its size cap, it deletes the oldest files until it is down to half the cap.
public final class PurgeablePaths: Sendable {
    /// The root the registry belongs to.
    public let root: String
    /// Serializes reading and rewriting the registry file within this process. A plain lock:
    /// what it guards is a file, not variables.
    private let lock = NSLock()
    private var registryPath: String { root + "/purgeable.json" }

    /// The purgeable folders of the root at `root`; the registry file is read when asked for,
    /// not here.
    public init(root: String) { self.root = root }

    /// The registered folders.
    public func folders() throws -> [PurgeableFolder] {
        try lock.withLock { try load() }
    }

    /// Registers `path` (creating the folder) and returns its absolute path. Registering a
    /// path again replaces its rules.
    @discardableResult
    public func register(_ path: String, type: PurgeType, maximumMegabytes: Int = 0) throws -> String {
        let absolute = resolve(path)
        try checkContained(path)
        try PrivateFile.createFolder(atPath: absolute)
        try checkContained(path)   // again, links resolved now that the folder exists
        try lock.withLock {
            var folders = try load().filter { resolve($0.path) != absolute }
            folders.append(PurgeableFolder(path: path, type: type, maximumMegabytes: max(0, maximumMegabytes)))
            try save(folders)
        }
        return absolute
    }

    /// Forgets `path` (its files stay). Returns true when it was registered.
    @discardableResult
    public func unregister(_ path: String) throws -> Bool {
        try lock.withLock {
            let folders = try load()
            let kept = folders.filter { resolve($0.path) != resolve(path) }
            try save(kept)
            return kept.count != folders.count
        }
    }

    /// Purges every registered folder as of `now`.
    /// - throws: `StorageError.unsafePurgeablePath`, before deleting anything, when a
    ///   registered folder does not resolve inside the root (a tampered registry).
    public func purge(now: Date = Date(), dryRun: Bool = false) throws -> PurgeReport {
        try forEachFolder { folder, report in report.add(try purge(folder, now: now, dryRun: dryRun)) }
    }

    /// Purges one folder as of `now`.
    public func purge(_ folder: PurgeableFolder, now: Date = Date(), dryRun: Bool = false) throws -> PurgeReport {
        try checkContained(folder.path)
        var files = PurgeablePaths.files(in: resolve(folder.path))
        var report = PurgeReport()
        if let days = folder.type.maximumAgeDays {
            let cutoff = now.addingTimeInterval(-Double(days) * 86_400)
            for file in files where file.modified < cutoff { try delete(file, dryRun: dryRun, into: &report) }
            files.removeAll { $0.modified < cutoff }
        }
        if folder.maximumMegabytes > 0 {
            let cap = Int64(folder.maximumMegabytes) * 1_048_576
            var total = files.reduce(0) { $0 + $1.size }
            if total > cap {
                for file in files.sorted(by: { ($0.modified, $0.path) < ($1.modified, $1.path) }) where total > cap / 2 {
                    try delete(file, dryRun: dryRun, into: &report)
                    total -= file.size
                }
            }
        }
        return report
    }

    /// The purge a user's cache cleaning runs (`cleanPurgeablePaths`): every folder is purged
    /// as `purge` does, and the `manual` folders — which no purge empties, only a user's
    /// cleaning — are emptied too. Timed folders keep their files that are young enough.
    /// - throws: `StorageError.unsafePurgeablePath`, before deleting anything, as `purge`.
    public func userClean(now: Date = Date(), dryRun: Bool = false) throws -> PurgeReport {
        try forEachFolder { folder, report in
            if folder.type == .manual {
                try empty(folder, dryRun: dryRun, into: &report)
            } else {
                report.add(try purge(folder, now: now, dryRun: dryRun))
            }
        }
    }

    /// Empties every registered folder (the folders themselves stay).
    public func resetAll(dryRun: Bool = false) throws -> PurgeReport {
        try forEachFolder { folder, report in try empty(folder, dryRun: dryRun, into: &report) }
    }

    /// Runs `body` on every registered folder, after checking them all: a registry with one
    /// folder outside the root deletes nothing anywhere.
    private func forEachFolder(_ body: (PurgeableFolder, inout PurgeReport) throws -> Void) throws -> PurgeReport {
        var report = PurgeReport()
        let all = try folders()
        for folder in all { try checkContained(folder.path) }
        for folder in all { try body(folder, &report) }
        return report
    }

    /// Deletes every file of `folder`.
    private func empty(_ folder: PurgeableFolder, dryRun: Bool, into report: inout PurgeReport) throws {
        for file in PurgeablePaths.files(in: resolve(folder.path)) { try delete(file, dryRun: dryRun, into: &report) }
    }

    /// Throws unless `path` resolves — `..` and links followed — to a folder strictly inside
    /// the root and outside the root's own stores (`users/`, `version/`). Checked when a folder
    /// is registered and again before every purge, so a tampered registry cannot reach out.
    func checkContained(_ path: String) throws {
        let rootReal = URL(fileURLWithPath: root).standardizedFileURL.resolvingSymlinksInPath().path
        let target = URL(fileURLWithPath: resolve(path)).resolvingSymlinksInPath().path
        func refuse(_ why: String) -> StorageError { .unsafePurgeablePath(path: path, root: root, reason: why) }
        guard target.hasPrefix(rootReal + "/") else {
            throw refuse(target == rootReal ? "it is the root itself" : "it resolves to \(target), outside the root")
        }
        let inside = String(target.dropFirst(rootReal.count + 1))
        let first = inside.split(separator: "/").first.map(String.init) ?? ""
        if ["users", "version"].contains(first) { throw refuse("it is among the root's stores (\(first)/)") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw refuse("it is not a folder")
        }
    }

    /// `path` made absolute against the root.
    public func resolve(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : root + "/" + path
        return URL(fileURLWithPath: absolute).standardizedFileURL.path
    }

    private func delete(_ file: FileFacts, dryRun: Bool, into report: inout PurgeReport) throws {
        if !dryRun { try FileTree.remove(atPath: file.path) }
        report.filesDeleted += 1
        report.bytesFreed += file.size
        report.deletedPaths.append(file.path)
    }

    private func load() throws -> [PurgeableFolder] {
        let read: Data?
        do { read = try RegularFile.contentsIfPresent(atPath: registryPath, limit: 16 << 20) } catch let error as FileAccessError {
            throw StorageError.badRootState(path: registryPath, reason: error.reason)
        }
        guard let data = read else { return [] }
        do { return try JSONDecoder().decode([PurgeableFolder].self, from: data) } catch {
            throw StorageError.badRootState(path: registryPath, reason: "not a valid purgeable-folder registry (\(RootState.plainReason(error)))")
        }
    }

    private func save(_ folders: [PurgeableFolder]) throws {
        try PrivateFile.createFolder(atPath: root)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try PrivateFile.write(try encoder.encode(folders), toPath: registryPath)
    }

    /// A regular file with what a purge needs to know.
    struct FileFacts {
        let path: String
        let size: Int64
        let modified: Date
    }

    /// Every regular file below `folder` (links are not followed).
    static func files(in folder: String) -> [FileFacts] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var files: [FileFacts] = []
        while let relative = enumerator.nextObject() as? String {
            let path = folder + "/" + relative
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            files.append(FileFacts(path: path, size: (attributes[.size] as? NSNumber)?.int64Value ?? 0,
                                   modified: attributes[.modificationDate] as? Date ?? .distantPast))
        }
        return files
    }
}
