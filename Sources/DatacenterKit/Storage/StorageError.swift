import Foundation

/// Why the data center or a storage could not do what was asked.
public enum StorageError: Error, Sendable, Equatable {
    /// A store file that should exist does not.
    case missingStore(String)
    /// A root folder that does not exist (when opening without creating).
    case missingRoot(String)
    /// A root path where something other than a folder stands (a file, a FIFO…).
    case rootNotAFolder(String)
    /// A user id that cannot be used (empty, or too long once encoded as a folder name).
    case invalidUserId(String)
    /// The root's `datacenter.json` could not be read.
    case badRootState(path: String, reason: String)
    /// The operation needs a current user and there is none.
    case noCurrentUser
    /// A root or store written in a newer format than this engine's: it may be read, but a
    /// write could break what the newer format relies on.
    case newerFormat(path: String, version: Int, supported: Int)
    /// A purgeable folder that does not resolve inside its root (or is the root, or holds the
    /// root's stores): a purge there could delete what is not the app's cache.
    case unsafePurgeablePath(path: String, root: String, reason: String)
    /// A sandbox-relative DAO database path that names no file under the root (it climbs
    /// out with `..`, or names nothing).
    case badDAODatabasePath(path: String, root: String, reason: String)
    /// A root whose `datacenter.json` says its files are encrypted, opened without a database key.
    case encryptedRootNeedsKey(root: String, format: DatabaseCipherFormat)
    /// An encrypted root opened with database keys none of which is in the root's format.
    case encryptedRootFormatMismatch(root: String, format: DatabaseCipherFormat)
    /// A plain root that already has SQLite files, opened with database keys: its files are
    /// not encrypted, and encrypting only the new ones would mix plain and encrypted files.
    case plainRootGivenKeys(root: String, files: [String])
    /// A root whose SQLite files are part encrypted, part plain, where a `rekey --to-db-key`
    /// that encrypts the plain root began (`datacenter.json` records it) and stopped midway.
    /// Nothing is lost; a rerun with the same key finishes it.
    case halfConverted(root: String, encrypted: [String], plain: [String])
}

extension StorageError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .missingStore(let p): return "no store at \(p)"
        case .missingRoot(let p): return "no data-center root at \(p)"
        case .rootNotAFolder(let p): return "\(p) is not a folder, so it cannot be a data-center root"
        case .invalidUserId(let why): return "invalid user id: \(why)"
        case let .badRootState(p, why): return "\(p): \(why)"
        case .noCurrentUser: return "no current user: set one with `datacenter users switch ID`"
        case let .unsafePurgeablePath(p, root, why):
            return "purgeable folder \(p) refused: \(why) (a purgeable folder must be a folder inside \(root), "
                + "outside its stores)"
        case let .badDAODatabasePath(p, root, why):
            return "DAO database path \(p) refused: \(why) (a relative path names a file under the root \(root))"
        case let .encryptedRootNeedsKey(root, format):
            return "root \(root) is encrypted (\(format.displayName)): it needs its database key"
        case let .encryptedRootFormatMismatch(root, format):
            let name = format.displayName
            return "root \(root) is encrypted (\(name)): none of the database keys given is a \(name) key"
        case let .halfConverted(root, encrypted, plain):
            func names(_ files: [String]) -> String {
                let relative = files.map { $0.hasPrefix(root + "/") ? String($0.dropFirst(root.count + 1)) : $0 }
                return relative.prefix(4).joined(separator: ", ") + (relative.count > 4 ? " and \(relative.count - 4) more" : "")
            }
            let state = "encrypted already: \(names(encrypted)); still plain: \(names(plain))"
            return "root \(root) is half converted to database encryption (a rekey --to-db-key stopped before it finished): "
                + "\(state). Nothing is lost; finish it with: datacenter rekey --root \(root) --to-db-key NEW, "
                + "NEW being the same database key (only what is left is converted)"
        case let .plainRootGivenKeys(root, files):
            let shown = files.prefix(3).joined(separator: ", ") + (files.count > 3 ? " and \(files.count - 3) more" : "")
            return "root \(root) is not encrypted: its databases (\(shown)) are plain SQLite; open it without a database "
                + "key, or encrypt its databases first"
        case let .newerFormat(p, version, supported):
            return "\(p) is in format version \(version), newer than this datacenter's (\(supported)): it can be read, "
                + "not written; write it with a datacenter that knows format \(version)"
        }
    }
    public var errorDescription: String? { description }
}
