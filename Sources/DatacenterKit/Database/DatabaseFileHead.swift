import CPageCipher
import Foundation

/// The first bytes of a database file, read as SQLite reads its own files (through its
/// default VFS). A database this process has open holds POSIX locks on its file, and
/// closing *any* descriptor of that file drops them all: a writer in another process could
/// then take the file as unused, checkpoint and delete its WAL, and the connections here
/// would go on reading a snapshot that no longer changes (SQLite's "How To Corrupt" §2.2).
/// SQLite's VFS keeps such a descriptor open until the locks go; a `FileHandle` does not.
package enum DatabaseFileHead {
    /// Up to `count` bytes from the start of the file at `path` (fewer when it is shorter);
    /// nil when it cannot be read.
    package static func read(_ path: String, count: Int) -> Data? {
        var buffer = [UInt8](repeating: 0, count: count)
        let read = dc_read_file_head(path, &buffer, Int32(count))
        guard read >= 0 else { return nil }
        return Data(buffer.prefix(Int(read)))
    }
}
