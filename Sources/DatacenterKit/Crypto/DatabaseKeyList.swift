import CSQLite
import Foundation

/// The database keys one holds, newest first: CTPersistance's secret-key list. An existing
/// encrypted file opens with whichever key fits, in whichever format fits; a new file is
/// created with the newest key.
///
/// Keeping old keys in the list is how a key change reaches files written before it: they
/// still open, and a rekey moves them to the newest. The list never shows its secrets.
public struct DatabaseKeyList: Sendable, Equatable, CustomStringConvertible {
    /// The keys to try, in order; the first is the newest, the one new files get.
    public let keys: [DatabaseKey]

    /// A list of these keys, newest first.
    public init(_ keys: [DatabaseKey] = []) {
        self.keys = keys
    }

    /// A list of SQLCipher-style key texts (a passphrase, or `x'…'` around 64 hex digits for a
    /// raw key), newest first, each tried in each of `formats` in turn: a file's format is not
    /// written in it, so a file of unknown format is opened by trying them. New files get the
    /// first format.
    public init(sqlcipherKeys texts: [String], formats: [DatabaseCipherFormat] = [.sqlcipher4, .sqlcipher3]) throws {
        var keys: [DatabaseKey] = []
        for text in texts {
            for format in formats { keys.append(try DatabaseKey(sqlcipherKey: text, format: format)) }
        }
        self.init(keys)
    }

    /// No key: files are plain.
    public static let empty = DatabaseKeyList()

    /// True when no key is held, and files are read and written plain.
    public var isEmpty: Bool { keys.isEmpty }

    /// The key new files are created with.
    public var newest: DatabaseKey? { keys.first }

    /// Opens the database at `path` with the key that fits it.
    ///
    /// With no key, the file must be plain (or new); an encrypted file fails with a
    /// `.missingKey` error. With keys, a new or empty file is created encrypted with the
    /// newest key; an encrypted file opens with the first key (and format) that
    /// authenticates its first page, and fails with `.wrongKey` when none does; a plain
    /// file fails with `.notEncrypted`, so that a file meant to be encrypted is never
    /// silently written in plaintext.
    /// - returns: the open database, and the key that opened it (nil for a plain file).
    public func open(path: String, mode: Database.OpenMode = .readWrite,
                     busyTimeout: TimeInterval = 5) throws -> (database: Database, key: DatabaseKey?) {
        let kind: DatabaseFileKind
        do { kind = try DatabaseFileKind.of(path: path) } catch let error as FileAccessError {
            throw DatabaseError(extendedCode: SQLITE_CANTOPEN, message: error.reason, path: path)
        }
        guard let newest else {
            do {
                return (try Database(path: path, mode: mode, busyTimeout: busyTimeout), nil)
            } catch let error as DatabaseError where kind == .encryptedOrNotADatabase && error.isNotADatabase {
                throw DatabaseError.missingKey(path: path)
            }
        }
        switch kind {
        case .missing, .empty:
            return (try Database(path: path, key: newest, mode: mode, busyTimeout: busyTimeout), newest)
        case .plain:
            throw DatabaseError.notEncrypted(path: path)
        case .encryptedOrNotADatabase:
            for key in keys {
                do {
                    return (try Database(path: path, key: key, mode: mode, busyTimeout: busyTimeout), key)
                } catch let error as DatabaseError where error.keyProblem == .wrongKey {
                    continue
                }
            }
            throw DatabaseError.wrongKeyOrNotEncrypted(path: path, keysTried: keys.count)
        }
    }

    /// Names how many keys the list holds and their kinds, never a secret.
    public var description: String {
        "DatabaseKeyList(\(keys.map(\.description).joined(separator: ", ")))"
    }
}
