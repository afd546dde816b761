#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Reading a database on a read-only file system (a backup image mounted read-only, a
/// write-protected card). SQLite cannot make a WAL database's `-shm` file there, so such a
/// file would not open at all; as nothing can change a file on read-only media, it is
/// opened `immutable` instead, which needs no `-shm` and takes no locks.
///
/// Not when a journal or WAL file with content lies beside it: `immutable` would ignore it,
/// showing the database without transactions it holds (a WAL's commits) or with one half
/// written (a hot journal). Such a file is opened as it is, and SQLite says what it can.
package enum ReadOnlyMedia {
    /// The path or URI to open `path` read-only with: an `immutable` URI when `path` is a
    /// file on a read-only file system with no journal or WAL content beside it, else `path`.
    /// `readOnlyMedia` stands for the file system check (tests give it).
    static func openingPath(for path: String, readOnlyMedia: (String) -> Bool = isReadOnlyFileSystem) -> String {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:"), readOnlyMedia(path) else { return path }
        for suffix in ["-wal", "-journal"] {
            var status = stat()
            if stat(path + suffix, &status) == 0, status.st_size > 0 { return path }
        }
        return immutableURI(path)
    }

    /// True when the folder holding `path` is on a file system mounted read-only.
    package static func isReadOnlyFileSystem(_ path: String) -> Bool {
        var status = statvfs()
        return statvfs(PrivateFile.folder(of: path), &status) == 0 && status.f_flag & UInt(ST_RDONLY) != 0
    }

    /// `file:PATH?immutable=1`, the path percent-encoded as a URI's must be.
    static func immutableURI(_ path: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(0x7F)))
        allowed.insert(charactersIn: "-._~/")
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
    }
}
