import Foundation

/// What a database file is, for `datacenter db info`: missing, empty, plain (with its page
/// size, page count and journal mode), or encrypted — in which SQLCipher format and with
/// which key, when one of the keys given fits.
///
/// Without a key an encrypted file and a file that is not a database look alike (see
/// `DatabaseFileKind`); with keys, "encrypted" means one of them authenticated the file.
public struct DatabaseFileInfo: Sendable, Equatable {
    /// What the file holds, as far as the keys given tell.
    public enum State: Sendable, Equatable {
        /// No file at the path.
        case missing
        /// An empty file (a database not written yet).
        case empty
        /// A plain SQLite database.
        case plain
        /// An encrypted database that `key` opens: the secret of the `keyIndex`th (from 0) key
        /// of the list, with the settings that authenticate the file (found by detection when
        /// they are not the ones the list gave).
        case encrypted(key: DatabaseKey, keyIndex: Int)
        /// Not plain SQLite, and no key was given: an encrypted database, or not a database.
        case encryptedOrNotADatabase
        /// Not plain SQLite, and none of the keys given opens it: a wrong key, or not an
        /// encrypted database.
        case wrongKey
        /// A database (plain, or opened by a key) that cannot be read whole: cut short, or a
        /// page damaged or altered. `reason` says what was found.
        case damaged(reason: String)
        /// A rollback journal beside the file was not written for it (its records do not
        /// authenticate under the key that opens the file): the file is intact, and opens
        /// once the journal is moved away. `reason` says so, naming the journal.
        case foreignJournal(reason: String)
    }

    /// The file.
    public let path: String
    /// What it holds.
    public let state: State
    /// The file's size in bytes (0 when missing).
    public let fileSize: Int64
    /// The page size, when the file could be opened.
    public let pageSize: Int?
    /// The number of pages, WAL frames not yet checkpointed included, when it could be opened.
    public let pageCount: Int?
    /// The journal mode (`wal` or `delete`: only WAL mode is recorded in the file), when it
    /// could be opened.
    public let journalMode: String?
    /// Why no key given opens the file (`.wrongKey`): what was tried and what to give.
    public var problem: String? = nil

    /// Looks at the file at `path`, trying `keys` (newest first) when it is not plain. The
    /// file is opened read-only and never changed.
    /// - throws: `FileAccessError` when the path is not a regular file or cannot be read;
    ///   `DatabaseError` when a plain-looking file is damaged.
    public static func of(path: String, keys: DatabaseKeyList = .empty) throws -> DatabaseFileInfo {
        let kind = try DatabaseFileKind.of(path: path)
        var status = stat()
        let size = stat(path, &status) == 0 ? Int64(status.st_size) : 0
        func info(_ state: State, _ db: Database?) throws -> DatabaseFileInfo {
            let pageSize = try db?.scalar("PRAGMA page_size", cached: false)?.int64Value
            let pageCount = try db?.scalar("PRAGMA page_count", cached: false)?.int64Value
            let journal = try db?.scalar("PRAGMA journal_mode", cached: false)?.stringValue?.lowercased()
            return DatabaseFileInfo(path: path, state: state, fileSize: size, pageSize: pageSize.map(Int.init),
                                    pageCount: pageCount.map(Int.init), journalMode: journal)
        }
        switch kind {
        case .missing: return try info(.missing, nil)
        case .empty: return try info(.empty, nil)
        case .plain where !DatabaseFileKind.looksEncryptedWithPlaintextHeader(path: path):
            do {
                return cutShort(try info(.plain, try Database(path: path, mode: .readOnly)))
            } catch let error as DatabaseError {
                return try info(.damaged(reason: damage(error, size: size)), nil)
            }
        case .plain, .encryptedOrNotADatabase:
            guard !keys.isEmpty else { return try info(.encryptedOrNotADatabase, nil) }
            do {
                let (db, key) = try keys.open(path: path, mode: .readOnly)
                // Detection may have found settings of its own: the key is known by its secret.
                guard let key, let index = keys.keys.firstIndex(of: key) ?? keys.keys.firstIndex(where: { $0.secret == key.secret }) else {
                    return cutShort(try info(.plain, db))
                }
                return cutShort(try info(.encrypted(key: key, keyIndex: index), db))
            } catch let error as DatabaseError where error.keyProblem == .wrongKey {
                var wrong = try info(.wrongKey, nil)
                wrong.problem = error.message
                if size % 512 != 0 {
                    wrong.problem = error.message + "; the file's size (\(size) bytes) is not a whole number of pages: it may have been cut short"
                }
                return wrong
            } catch let error as DatabaseError where error.isForeignJournal {
                return try info(.foreignJournal(reason: error.description), nil)
            } catch let error as DatabaseError where error.keyProblem == nil {
                return try info(.damaged(reason: damage(error, size: size)), nil)
            }
        }
    }

    /// `info` as damaged when its file holds part of a page at its end (cut short).
    private static func cutShort(_ info: DatabaseFileInfo) -> DatabaseFileInfo {
        guard let pageSize = info.pageSize, pageSize > 0, info.fileSize % Int64(pageSize) != 0 else { return info }
        return DatabaseFileInfo(path: info.path, state: .damaged(reason: "the file's size (\(info.fileSize) bytes) is not a whole number of "
                                    + "\(pageSize)-byte pages: it was cut short"),
                                fileSize: info.fileSize, pageSize: info.pageSize, pageCount: info.pageCount, journalMode: info.journalMode)
    }

    /// What a database error reading the file says of it, in words.
    private static func damage(_ error: DatabaseError, size: Int64) -> String {
        var reason = error.failedPage.map { "page \($0) does not authenticate: the file is damaged or was altered" }
            ?? "SQLite cannot read it: \(TextExcerpt.message(error.message))"
        if size % 512 != 0 { reason += "; its size (\(size) bytes) is not a whole number of pages: it was cut short" }
        return reason
    }
}
