#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Why a file or folder could not be opened, read, created or written: the path and the
/// reason in plain words (never a raw system error), so a tool can print it as it is.
public struct FileAccessError: Error, Sendable, Equatable {
    /// The file or folder at fault.
    public let path: String
    /// What is wrong, in plain words: `not a regular file (a FIFO)`, `permission denied`…
    public let reason: String

    /// An error for `path` with its reason in plain words.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// An error for a failed system call, its `errno` put in words.
    public static func system(path: String, doing action: String, errno code: Int32) -> FileAccessError {
        FileAccessError(path: path, reason: "cannot \(action): \(describe(errno: code))")
    }

    /// `errno` in plain words, lower-case: `no such file or folder`, `permission denied`…
    public static func describe(errno code: Int32) -> String {
        switch code {
        case ENOENT: return "no such file or folder"
        case EACCES, EPERM: return "permission denied"
        case EISDIR: return "it is a folder"
        case ENOTDIR: return "a part of the path is not a folder"
        case EEXIST: return "it already exists"
        case ENOSPC: return "no space left on the device"
        case EROFS: return "the file system is read-only"
        case ELOOP: return "too many symbolic links"
        case ENAMETOOLONG: return "the name is too long"
        default:
            let text = String(cString: strerror(code))
            return text.prefix(1).lowercased() + text.dropFirst()
        }
    }

    /// What kind of file a `stat` mode describes, in words: `a folder`, `a FIFO`…
    static func kind(ofMode mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFLNK: return "a symbolic link"
        default: return "not a plain file"
        }
    }

    /// The error for a path that exists but is not a regular file.
    static func notRegular(path: String, mode: mode_t) -> FileAccessError {
        FileAccessError(path: path, reason: "not a regular file (\(kind(ofMode: mode)))")
    }

    /// A Foundation (or any) error about `path` in plain words: a `CocoaError`'s file-system
    /// cases and POSIX codes are named, never shown as `NSCocoaErrorDomain Code=…`.
    public static func wrapping(_ error: Error, path: String, doing action: String) -> FileAccessError {
        if let error = error as? FileAccessError { return error }
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return .system(path: path, doing: action, errno: Int32(ns.code)) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return .system(path: path, doing: action, errno: Int32(underlying.code))
        }
        if ns.domain == NSCocoaErrorDomain {
            let why: String
            switch CocoaError.Code(rawValue: ns.code) {
            case .fileNoSuchFile, .fileReadNoSuchFile: why = "no such file or folder"
            case .fileReadNoPermission, .fileWriteNoPermission: why = "permission denied"
            case .fileWriteFileExists: why = "a file is in the way (a folder was expected, or it already exists)"
            case .fileWriteOutOfSpace: why = "no space left on the device"
            case .fileWriteVolumeReadOnly: why = "the file system is read-only"
            case .fileReadCorruptFile: why = "the file is damaged"
            case .propertyListReadCorrupt: why = "not a valid property list"
            default: why = "failed (Foundation error \(ns.code))"
            }
            return FileAccessError(path: path, reason: "cannot \(action): \(why)")
        }
        return FileAccessError(path: path, reason: "cannot \(action): \(error)")
    }
}

extension FileAccessError: CustomStringConvertible, LocalizedError {
    public var description: String { "\(path): \(reason)" }
    public var errorDescription: String? { description }
}
