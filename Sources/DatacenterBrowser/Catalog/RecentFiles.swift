import DatacenterKit
import Foundation

/// The roots and files browsed lately, newest first, that the `o` prompt offers (↑ ↓): kept
/// in `recent-files.json` of the state folder (`StateFolder`) as a JSON array of absolute
/// paths, at most `limit`, written atomically and privately (`PrivateFile`). A file that
/// cannot be read as such a list is ignored, with a warning for the status line, and is
/// replaced at the next write: losing the list never stops the browser.
package struct RecentFiles: Equatable, Sendable {
    /// The file's name in the state folder.
    package static let fileName = "recent-files.json"
    /// The most paths kept; recording one more drops the oldest.
    package static let limit = 20
    /// The largest file read (a list of 20 paths is far smaller): larger is taken as damage.
    static let largestFile = 1 << 20

    /// The paths, newest first, each once.
    package private(set) var paths: [String]

    /// A list of `paths` (newest first), repeats and blanks left out, at most `limit`.
    package init(paths: [String] = []) {
        self.paths = []
        for path in paths.reversed() { record(path) }
    }

    /// Puts `path` first (moving it there when it was listed), dropping the oldest past `limit`.
    package mutating func record(_ path: String) {
        guard !path.isEmpty else { return }
        paths.removeAll { $0 == path }
        paths.insert(path, at: 0)
        if paths.count > RecentFiles.limit { paths.removeLast(paths.count - RecentFiles.limit) }
    }

    /// The list's file in `folder`.
    package static func file(in folder: URL) -> URL { folder.appendingPathComponent(fileName) }

    /// The list kept in `folder` (empty when there is none yet), or an empty list and why the
    /// file there was ignored (not a regular file, unreadable, too large, not a JSON array of
    /// paths), naming the file.
    package static func load(from folder: URL) -> (list: RecentFiles, warning: String?) {
        let path = file(in: folder).path
        func ignored(_ reason: String) -> (RecentFiles, String?) {
            (RecentFiles(), "recent files ignored: \(path) \(reason) (it is rewritten at the next open)")
        }
        // `stat`, not `FileManager.attributesOfItem`, which also looks up the file's owner
        // and group by name (the passwd and group files read at every start).
        var status = stat()
        guard stat(path, &status) == 0 else { return errno == ENOENT ? (RecentFiles(), nil) : ignored("cannot be read") }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return ignored("is a folder")
        default: return ignored("is not a regular file")
        }
        guard status.st_size <= largestFile else { return ignored("is over 1 MB") }
        // Read as a regular file only (checked again on the open file, and within the size).
        guard let data = try? RegularFile.contents(atPath: path, limit: largestFile) else { return ignored("cannot be read") }
        guard let list = try? JSONDecoder().decode([String].self, from: data) else { return ignored("is not a JSON array of paths") }
        return (RecentFiles(paths: list.filter { $0.hasPrefix("/") }), nil)
    }

    /// Writes the list into `folder` (created, 0700, when missing), whole or not at all.
    /// - throws: `FileAccessError` naming the folder or the file.
    package func save(to folder: URL) throws {
        try PrivateFile.createFolder(atPath: folder.path)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
        try PrivateFile.write(try encoder.encode(paths), toPath: RecentFiles.file(in: folder).path)
    }
}
