import CSQLite
import Foundation

/// A store that could not be opened or read (not a SQLite database, damaged, not a regular
/// file, unreadable): what tools that walk a whole root report in its place while they carry
/// on with the other stores.
public struct DamagedStore: Sendable, Equatable {
    /// The store's file.
    public let path: String
    /// Why it cannot be used, in plain words, without the path.
    public let reason: String

    /// A damaged store at `path`, unusable for `reason`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// True when `error` says the store itself is unusable (not a database, damaged, not a
    /// regular file, cannot be opened), as opposed to a passing failure (a lock held too
    /// long, a refused write) that should stop the caller.
    public static func isDamage(_ error: Error) -> Bool {
        switch error {
        case let error as DatabaseError:
            return error.isNotADatabase || error.code == SQLITE_CANTOPEN || error.code == SQLITE_IOERR
                || error.code == SQLITE_NOTADB || error.code == SQLITE_CORRUPT
        case is FileAccessError: return true
        case let error as StorageError:
            if case .missingStore = error { return true }
            return false
        default:
            let domain = (error as NSError).domain
            return domain == NSCocoaErrorDomain || domain == NSPOSIXErrorDomain
        }
    }

    /// `isDamage`, for a store of a root that records database encryption when
    /// `inEncryptedRoot`: there a store no key given opens is a key missing or wrong, never
    /// damage (without its key an encrypted file cannot be told from a damaged one), so the
    /// caller stops and says which key is missing or wrong.
    public static func isDamage(_ error: Error, inEncryptedRoot: Bool) -> Bool {
        if inEncryptedRoot, let error = error as? DatabaseError, error.keyProblem == .wrongKey || error.keyProblem == .missingKey {
            return false
        }
        return isDamage(error)
    }

    /// The damage `error` (thrown while opening or reading the store at `path`) stands for.
    public init(path: String, error: Error) {
        self.path = path
        switch error {
        case let error as DatabaseError where error.isNotADatabase:
            reason = "not a SQLite database, or damaged (\(TextExcerpt.message(error.message)))"
        case let error as DatabaseError:
            reason = TextExcerpt.message(error.message)
        case let error as FileAccessError:
            reason = error.reason
        case let error as StorageError:
            reason = error.description
        default:
            reason = FileAccessError.wrapping(error, path: path, doing: "open it").reason
        }
    }
}
