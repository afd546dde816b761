#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Files and folders the engine creates, private to their owner whatever the umask: files
/// `0600`, folders `0700` (see `docs/FORMAT.md`). Stores, `datacenter.json`, decrypted
/// files and every partial file hold the user's data, so none is ever created readable by
/// others, not even for a moment.
package enum PrivateFile {
    /// The mode of every file the engine creates.
    package static let fileMode: mode_t = 0o600
    /// The mode of every folder the engine creates.
    package static let folderMode: mode_t = 0o700

    /// Creates the folder at `path` and any missing parent, each `0700`; folders already
    /// there are left as they are.
    /// - throws: `FileAccessError` naming the path, e.g. when a file stands where a folder
    ///   should be (`not a folder (a regular file)`).
    package static func createFolder(atPath path: String) throws {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else {
                throw FileAccessError(path: path, reason: "not a folder (\(kindOfFile(status.st_mode)))")
            }
            return
        }
        let parent = folder(of: path)
        if parent != ".", parent != path, parent != "/" { try createFolder(atPath: parent) }
        if mkdir(path, folderMode) != 0, errno != EEXIST {
            throw FileAccessError.system(path: path, doing: "create the folder", errno: errno)
        }
    }

    /// Writes `data` to `path` atomically (`writeAtomically`).
    package static func write(_ data: Data, toPath path: String) throws {
        try writeAtomically(to: path) { handle in
            try handle.write(contentsOf: data)
        }
    }

    /// Writes a file atomically and privately: `body` writes into a partial file created
    /// `0600` with `O_EXCL` beside `path` (see `PartialFiles` for its name and its removal
    /// on signals and after a kill), which is synced and renamed over `path` only when
    /// `body` returns. When `body` throws, the partial file is removed and `path` is
    /// untouched. Stale partial files of dead processes in the folder are removed first.
    /// - throws: `FileAccessError` when `path` is a folder, FIFO or device (nothing is
    ///   replaced), or the folder cannot be written; else what `body` throws.
    package static func writeAtomically(to path: String, _ body: (FileHandle) throws -> Void) throws {
        try RegularFile.refuseIfNotRegular(path)
        let folder = folder(of: path)
        PartialFiles.removeStale(inFolder: folder)
        var partial = PartialFiles.partialPath(for: path)
        var fd: Int32 = -1
        for _ in 0..<8 {
            fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, fileMode)
            if fd >= 0 || errno != EEXIST { break }
            partial = PartialFiles.partialPath(for: path)
        }
        guard fd >= 0 else { throw FileAccessError.system(path: path, doing: "create a file beside it", errno: errno) }
        let slot = PartialFiles.register(partial)
        defer { PartialFiles.unregister(slot) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do {
            try body(handle)
            do { try handle.synchronize() } catch { throw FileAccessError.wrapping(error, path: path, doing: "write it") }
            try? handle.close()
            guard rename(partial, path) == 0 else { throw FileAccessError.system(path: path, doing: "replace it", errno: errno) }
        } catch {
            try? handle.close()
            unlink(partial)
            throw error
        }
        syncFolder(folder)
    }

    /// Creates an empty file at `path` with mode `0600` when nothing is there (so that a
    /// library creating it next, such as SQLite, keeps that mode); an existing file is
    /// left as it is. Returns true when this call created it.
    @discardableResult
    package static func createIfMissing(atPath path: String) throws -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, fileMode)
        if fd >= 0 {
            close(fd)
            return true
        }
        if errno == EEXIST { return false }
        throw FileAccessError.system(path: path, doing: "create it", errno: errno)
    }

    /// The folder part of `path` (`.` for a bare name, `/` for a file at the top), without
    /// Foundation's path methods, which trap on some short relative paths.
    package static func folder(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        if slash == trimmed.startIndex { return "/" }
        return String(trimmed[..<slash])
    }

    /// The last component of `path` (its file or folder name).
    package static func name(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// Syncs a folder's entry list, so a rename into it survives a power cut.
    package static func syncFolder(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    private static func kindOfFile(_ mode: mode_t) -> String {
        mode & S_IFMT == S_IFREG ? "a regular file" : FileAccessError.kind(ofMode: mode)
    }
}
