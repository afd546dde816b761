#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The one way the engine and its tools open a path to read: only a regular file is read.
///
/// A FIFO, a device or a socket at a path that should hold a file would make a read wait
/// for ever (a FIFO with no writer) or never end (`/dev/zero`); a folder reads as an error
/// in Foundation's words. The path is opened with `O_NONBLOCK`, so opening a FIFO returns at
/// once, then checked with `fstat` on the open descriptor (no window for the path to be
/// swapped between the check and the read), and refused unless it is a regular file.
package enum RegularFile {
    /// Opens the regular file at `path` for reading.
    /// - parameter allowingNullDevice: also accept `/dev/null` (or any path to the null
    ///   device), which reads as an empty file: for inputs where "nothing" is meaningful.
    /// - throws: `FileAccessError`: missing, not readable, or not a regular file.
    package static func openForReading(_ path: String, allowingNullDevice: Bool = false) throws -> FileHandle {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw FileAccessError.system(path: path, doing: "open it", errno: errno) }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let code = errno
            close(fd)
            throw FileAccessError.system(path: path, doing: "read it", errno: code)
        }
        let isRegular = status.st_mode & S_IFMT == S_IFREG
        guard isRegular || (allowingNullDevice && isNullDevice(status)) else {
            close(fd)
            throw FileAccessError.notRegular(path: path, mode: status.st_mode)
        }
        // Reads of a regular file block as usual from here on.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// The whole contents of the regular file at `path`, or nil when nothing is there.
    /// - parameter limit: the most bytes accepted; a longer file is refused, so a small
    ///   settings file that grew huge cannot take the memory.
    /// - throws: `FileAccessError` when something other than a readable regular file is at
    ///   `path`, or it is longer than `limit`.
    package static func contentsIfPresent(atPath path: String, limit: Int = 64 << 20) throws -> Data? {
        var status = stat()
        if lstat(path, &status) != 0, errno == ENOENT { return nil }
        return try contents(atPath: path, limit: limit)
    }

    /// The whole contents of the regular file at `path`.
    /// - throws: `FileAccessError`, as `contentsIfPresent`, and for a missing file.
    package static func contents(atPath path: String, limit: Int = 64 << 20) throws -> Data {
        let handle = try openForReading(path)
        defer { try? handle.close() }
        var data = Data()
        do {
            while let block = try handle.read(upToCount: 1 << 16), !block.isEmpty {
                data.append(block)
                if data.count > limit {
                    throw FileAccessError(path: path, reason: "too large (more than \(limit) bytes)")
                }
            }
        } catch let error as FileAccessError {
            throw error
        } catch {
            throw FileAccessError.wrapping(error, path: path, doing: "read it")
        }
        return data
    }

    /// Refuses a path that exists and is not a regular file (a folder, FIFO, device,
    /// socket; a symbolic link is judged by what it points to): for outputs about to be
    /// replaced and for files about to be handed to a library that would open them itself.
    /// A missing path passes.
    package static func refuseIfNotRegular(_ path: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else { return }
        guard status.st_mode & S_IFMT == S_IFREG else { throw FileAccessError.notRegular(path: path, mode: status.st_mode) }
    }

    /// True for the character device `/dev/null` is.
    private static func isNullDevice(_ status: stat) -> Bool {
        var null = stat()
        guard status.st_mode & S_IFMT == S_IFCHR, stat("/dev/null", &null) == 0 else { return false }
        return null.st_mode & S_IFMT == S_IFCHR && null.st_rdev == status.st_rdev
    }
}
