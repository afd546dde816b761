import CPageCipher
import CSQLite

/// An error reported by SQLite, with the statement that caused it.
///
/// Bound values are never part of the error: they may be secrets.
public struct DatabaseError: Error, Sendable, Equatable {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, …).
    public var code: Int32 { extendedCode & 0xFF }
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, …).
    public let extendedCode: Int32
    /// SQLite's message.
    public let message: String
    /// The SQL that failed, when there was one.
    public let sql: String?
    /// The database file, when known.
    public let path: String?
    /// In an encrypted database, the page that failed authentication (its HMAC did not
    /// verify): 1 at open means a wrong key or a file that is not encrypted.
    public let failedPage: Int?
    /// Why a database could not be opened with the keys given, when that is the error.
    public let keyProblem: KeyProblem?
    /// True when the page that failed authentication (`failedPage`) is a whole record of the
    /// hot rollback journal beside the database: the journal was written for another file or
    /// key, and the database itself is intact.
    public let isForeignJournal: Bool

    /// Why a database and the keys given to it do not go together.
    public enum KeyProblem: Sendable, Equatable {
        /// No key given opens the file: a wrong key or format, or a file that is not encrypted.
        case wrongKey
        /// The file is encrypted (or not a database), and no key was given.
        case missingKey
        /// The file is a plain SQLite database, and a key was given.
        case notEncrypted
    }

    /// An error with SQLite's extended result code and message, and the SQL and file it concerns.
    public init(extendedCode: Int32, message: String, sql: String? = nil, path: String? = nil, failedPage: Int? = nil,
                keyProblem: KeyProblem? = nil, isForeignJournal: Bool = false) {
        self.isForeignJournal = isForeignJournal
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.path = path
        self.failedPage = failedPage
        self.keyProblem = keyProblem
    }

    /// The same error about the file named `path` (as the user gave it, say), without its
    /// SQL when `dropsSQL` (an internal statement the user never wrote).
    public func with(path: String?, dropsSQL: Bool = false) -> DatabaseError {
        DatabaseError(extendedCode: extendedCode, message: message, sql: dropsSQL ? nil : sql, path: path, failedPage: failedPage,
                      keyProblem: keyProblem, isForeignJournal: isForeignJournal)
    }

    /// True when an encrypted database could not be opened with the key given: the key or
    /// its format is wrong, or the file is not encrypted.
    public var isWrongKeyOrNotEncrypted: Bool { code == SQLITE_NOTADB && failedPage == 1 }

    static let wrongKeyMessage = "wrong key or not an encrypted database"

    static func wrongKeyOrNotEncrypted(path: String, keysTried: Int = 1) -> DatabaseError {
        let tried = keysTried > 1 ? "; none of the \(keysTried) keys and formats tried opens it" : ""
        return DatabaseError(extendedCode: SQLITE_NOTADB, message: wrongKeyMessage + " (page 1 does not authenticate\(tried))",
                             path: path, failedPage: 1, keyProblem: .wrongKey)
    }

    /// The error for an encrypted file (or one that is not a database) opened without a key.
    static func missingKey(path: String) -> DatabaseError {
        DatabaseError(extendedCode: SQLITE_NOTADB,
                      message: "not a SQLite database, or an encrypted one: an encrypted database opens only with its database key",
                      path: path, keyProblem: .missingKey)
    }

    /// The error for a plain SQLite file opened with a key.
    static func notEncrypted(path: String) -> DatabaseError {
        DatabaseError(extendedCode: SQLITE_NOTADB, message: "a plain SQLite database, not encrypted: open it without a database key",
                      path: path, keyProblem: .notEncrypted)
    }

    /// The error for a page of an encrypted database that failed authentication.
    static func failedAuthentication(page: Int, extendedCode: Int32, sql: String?, path: String?) -> DatabaseError {
        if page == 1 && (extendedCode & 0xFF) == SQLITE_NOTADB {
            return DatabaseError(extendedCode: extendedCode, message: wrongKeyMessage + " (page 1 does not authenticate)",
                                 sql: sql, path: path, failedPage: 1, keyProblem: .wrongKey)
        }
        return DatabaseError(extendedCode: extendedCode,
                             message: "page \(page) of the encrypted database does not authenticate: the file is damaged or was altered",
                             sql: sql, path: path, failedPage: page)
    }

    /// The error for a hot rollback journal whose records hold together but whose pages do
    /// not authenticate: it belongs to another file or key. Rolling it back would write
    /// pages the database cannot read, so nothing is rolled back and the journal is named.
    static func foreignJournal(page: Int, extendedCode: Int32, sql: String?, path: String?) -> DatabaseError {
        DatabaseError(extendedCode: extendedCode,
                      message: "the rollback journal beside the database was not written for it (its record of page \(page) "
                        + "does not authenticate under this key): the database is intact; move the journal away to open it",
                      sql: sql, path: path, failedPage: page, isForeignJournal: true)
    }

    /// True when the file is not a database or is damaged (`SQLITE_NOTADB`, `SQLITE_CORRUPT`).
    public var isNotADatabase: Bool { code == SQLITE_NOTADB || code == SQLITE_CORRUPT }
    /// True when a write was refused because the database is read-only: by SQLite, or by
    /// the read-only connection's authorizer (a statement that would write another file).
    public var isReadOnly: Bool { code == SQLITE_READONLY || code == SQLITE_AUTH }
    /// True when a constraint failed (a UNIQUE or PRIMARY KEY taken, a NOT NULL, a CHECK).
    public var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }
    /// True when the database stayed locked past the busy timeout.
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    /// True when SQL given as one statement (`Database.cachedStatement`, `makeStatement`)
    /// held more: another statement after it, or a NUL character. Nothing was prepared.
    public var isMoreThanOneStatement: Bool {
        extendedCode == SQLITE_MISUSE && message.hasPrefix(DatabaseError.moreThanOneStatementMessage)
    }

    static let moreThanOneStatementMessage = "expected exactly one statement"

    /// True when a connection (or a statement of it) was used after `Database.close()`.
    /// Nothing ran.
    public var isClosed: Bool {
        extendedCode == SQLITE_MISUSE && message.hasPrefix(DatabaseError.closedMessage)
    }

    static let closedMessage = "the database connection is closed"

    /// The error for any use of a connection, or of a statement of it, after `close()`.
    static func closed(path: String?, sql: String? = nil) -> DatabaseError {
        DatabaseError(extendedCode: SQLITE_MISUSE, message: closedMessage + ": open it again to use it", sql: sql, path: path)
    }

    static func moreThanOneStatement(sql: String, path: String?) -> DatabaseError {
        DatabaseError(extendedCode: SQLITE_MISUSE, message: moreThanOneStatementMessage + ", found more after it", sql: sql, path: path)
    }

    static func from(_ handle: OpaquePointer?, code: Int32, sql: String? = nil, path: String? = nil) -> DatabaseError {
        let ext = handle.map { sqlite3_extended_errcode($0) } ?? code
        // An encrypted database's VFS remembers the page that failed authentication.
        if let handle, [SQLITE_NOTADB, SQLITE_IOERR, SQLITE_CORRUPT].contains(code & 0xFF) {
            let inJournal = dc_cipher_failed_in_journal(handle) != 0
            let page = Int(dc_cipher_failed_page(handle))
            if page > 0, inJournal { return foreignJournal(page: page, extendedCode: code, sql: sql, path: path) }
            if page > 0 { return failedAuthentication(page: page, extendedCode: code, sql: sql, path: path) }
        }
        // A handle's last error may be stale when the code came from elsewhere (or the
        // connection is closing and answers every question with "misuse"): then the code
        // speaks for itself.
        guard (ext & 0xFF) == (code & 0xFF), let handle, let text = sqlite3_errmsg(handle) else {
            return DatabaseError(extendedCode: code, message: String(cString: sqlite3_errstr(code)), sql: sql, path: path)
        }
        // A file SQLite could not open: the reason in plain words.
        if ext & 0xFF == SQLITE_CANTOPEN {
            let reason = cannotOpenReason(path: path, errno: sqlite3_system_errno(handle)) ?? String(cString: text)
            return DatabaseError(extendedCode: ext, message: reason, sql: sql, path: path)
        }
        return DatabaseError(extendedCode: ext, message: String(cString: text), sql: sql, path: path)
    }
}

extension DatabaseError {
    /// Why SQLite could not open `path` or a file beside it (its journal, `-wal` or `-shm`):
    /// a read-only file system first (SQLite then reports the journal it could not create as
    /// missing), else the system's error in words; nil when neither says anything.
    static func cannotOpenReason(path: String?, errno code: Int32) -> String? {
        if let path, ReadOnlyMedia.isReadOnlyFileSystem(path) { return "the file system is read-only" }
        return code != 0 ? FileAccessError.describe(errno: code) : nil
    }
}

extension DatabaseError: CustomStringConvertible {
    public var description: String {
        // SQLite quotes the source it stumbled on: keep that to a short, escaped excerpt.
        let message = TextExcerpt.message(self.message)
        var text: String
        if keyProblem != nil, let path {
            // Our own words (what was tried, what to give), never source text: whole.
            text = "\(path): \(self.message)"
        } else if isForeignJournal, let path {
            // Named in full, unlike SQLite's text: the user is to move that very file.
            text = "the rollback journal beside \(path) was not written for it (its record of page \(failedPage ?? 0) "
                + "does not authenticate under this key): the database is intact; move \(path)-journal away to open it"
        } else if isNotADatabase, let path {
            text = "\(path) is not a SQLite database or is damaged (\(message))"
        } else if code == SQLITE_AUTH, let path {
            text = "\(path) is open read-only: the statement would write or open another file (VACUUM INTO, ATTACH), "
                + "change this one (a pragma given a value) or load code (load_extension); refused"
        } else if isReadOnly, let path {
            text = "\(path) is open read-only: \(message)"
        } else if code == SQLITE_CANTOPEN, let path {
            text = "cannot open \(path) (or the journal beside it): \(message)"
        } else {
            text = "SQLite error \(extendedCode): \(message)"
            if let path { text += " in \(path)" }
        }
        // An excerpt only: the SQL may be a whole script, or hold binary text.
        if let sql { text += " — while executing `\(TextExcerpt.of(sql))`" }
        return text
    }
}

import Foundation
extension DatabaseError: LocalizedError {
    public var errorDescription: String? { description }
}
