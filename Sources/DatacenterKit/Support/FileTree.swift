#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Removing a file, or a folder with everything in it, while something else may be changing
/// it: the one way the engine and its tools delete a tree.
///
/// The folders removed are alive: an app writes its caches while `datacenter clean` runs,
/// and a store's connection closing on a background queue deletes its `-wal` and `-shm`
/// files while `reset` empties the folder around them. `FileManager.removeItem` stops at the
/// first entry that vanishes between listing the folder and deleting the entry ("The file
/// doesn't exist") and leaves the rest behind. Here, as with `rm -rf`, an entry already gone
/// is not an error, and a folder that gains an entry while it is emptied is emptied again.
///
/// Entries are removed relative to their open folder (`openat`, `unlinkat`), by the bytes of
/// their names: a name that is not UTF-8 is removed like any other, and a folder swapped for
/// a symbolic link meanwhile is not followed.
package enum FileTree {
    /// How many times a folder that keeps gaining entries is emptied before giving up.
    static let passes = 8

    /// Removes `path`: a file or a symbolic link (not what it points to), or a folder and
    /// everything under it. Nothing at `path` is not an error.
    /// - throws: `FileAccessError` naming the entry that could not be removed and why
    ///   (permission denied, a read-only file system, a folder that keeps filling).
    package static func remove(atPath path: String) throws {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT { return }
            throw FileAccessError.system(path: path, doing: "remove it", errno: errno)
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            if unlink(path) != 0, errno != ENOENT { throw FileAccessError.system(path: path, doing: "remove it", errno: errno) }
            return
        }
        try removeFolder(at: AT_FDCWD, name: path, path: path)
    }

    /// Empties the folder `name` of the folder open as `parent` (`AT_FDCWD`: a path), then
    /// removes it; `path` names it in errors.
    private static func removeFolder(at parent: Int32, name: UnsafePointer<CChar>, path: String) throws {
        for _ in 0..<passes {
            let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if fd < 0 {
                if errno == ENOENT { return }
                if errno == ENOTDIR || errno == ELOOP { // replaced by a file or a link meanwhile
                    if unlinkat(parent, name, 0) != 0, errno != ENOENT {
                        throw FileAccessError.system(path: path, doing: "remove it", errno: errno)
                    }
                    return
                }
                throw FileAccessError.system(path: path, doing: "list the folder", errno: errno)
            }
            try removeEntries(ofFolder: fd, path: path) // closes `fd`
            if unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT { return }
            guard errno == ENOTEMPTY || errno == EEXIST else {
                throw FileAccessError.system(path: path, doing: "remove the folder", errno: errno)
            }
        }
        throw FileAccessError(path: path, reason: "cannot remove the folder: entries keep appearing in it")
    }

    /// Removes every entry of the folder open as `fd` (which this closes); `path` names the
    /// folder in errors.
    private static func removeEntries(ofFolder fd: Int32, path: String) throws {
        guard let folder = fdopendir(fd) else {
            let code = errno
            close(fd)
            throw FileAccessError.system(path: path, doing: "list the folder", errno: code)
        }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            try withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                let name = bytes.baseAddress!.assumingMemoryBound(to: CChar.self)
                if strcmp(name, ".") == 0 || strcmp(name, "..") == 0 { return }
                let entryPath = path + "/" + String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
                var status = stat()
                guard fstatat(fd, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
                    if errno == ENOENT { return }
                    throw FileAccessError.system(path: entryPath, doing: "remove it", errno: errno)
                }
                if status.st_mode & S_IFMT == S_IFDIR {
                    try removeFolder(at: fd, name: name, path: entryPath)
                } else if unlinkat(fd, name, 0) != 0, errno != ENOENT {
                    throw FileAccessError.system(path: entryPath, doing: "remove it", errno: errno)
                }
            }
        }
    }
}
