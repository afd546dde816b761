import DatacenterKit
import Foundation

/// The console's history of one store file, kept between sessions in the state folder
/// (`StateFolder`): `console-history/NAME-HASH.json`, a JSON array of the lines run, oldest
/// first, where NAME is the store's file name and HASH a digest of its full path, so two
/// `common.sqlite` of different roots keep their own lines.
///
/// The file is private to the user (mode 0600: the lines may quote values) and replaced
/// whole on each save, never left half-written. A file that cannot be read as such a list
/// is not used, and `load` says why; the next save replaces it.
struct ConsoleHistoryFile {
    /// Where the lines are kept.
    let url: URL

    /// The history file of the store at `storePath`, in `stateFolder`.
    init(storePath: String, stateFolder: URL) {
        url = stateFolder.appendingPathComponent("console-history").appendingPathComponent(StateFolder.fileName(forStore: storePath) + ".json")
    }

    /// Why a history file could not be used.
    struct LoadError: Error, CustomStringConvertible {
        /// The file.
        let path: String
        /// What is wrong with it.
        let reason: String
        var description: String { "console history \(path) not used: \(reason)" }
    }

    /// The lines kept, oldest first: none when there is no file yet.
    /// - throws: `LoadError` when the file is there but is not a JSON list of strings.
    func load() throws -> [String] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch CocoaError.fileReadNoSuchFile {
            return []
        } catch {
            throw LoadError(path: url.path, reason: "\(error.localizedDescription)")
        }
        guard let lines = try? JSONDecoder().decode([String].self, from: data) else {
            throw LoadError(path: url.path, reason: "it is not a JSON list of lines")
        }
        return lines
    }

    /// Replaces the file with `lines`, oldest first: written to a temporary file beside it,
    /// then renamed over it, so a reader sees the old list or the new one.
    /// - throws: the file system's error (no space, no permission).
    func save(_ lines: [String]) throws {
        let folder = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let data = try JSONEncoder().encode(lines)
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        guard rename(temporary.path, url.path) == 0 else {
            let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }
}
