import CPageCipher
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

    /// SQLCipher-style key texts, newest first, each read and written with `settings` (an
    /// app's own SQLCipher settings, `--db-cipher`); detection tries the rest.
    public init(sqlcipherKeys texts: [String], settings: DatabaseCipherSettings) throws {
        self.init(try texts.map { try DatabaseKey(sqlcipherKey: $0, settings: settings) })
    }

    /// The 1-based number of `key`'s secret among the list's distinct secrets (the order they
    /// were given in), or nil when it holds no such secret.
    public func secretNumber(of key: DatabaseKey) -> Int? {
        var secrets: [DatabaseKey.Secret] = []
        for k in keys where !secrets.contains(k.secret) { secrets.append(k.secret) }
        return secrets.firstIndex(of: key.secret).map { $0 + 1 }
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
            } catch let error as DatabaseError where error.isNotADatabase && (kind == .encryptedOrNotADatabase
                || (kind == .plain && DatabaseFileKind.looksEncryptedWithPlaintextHeader(path: path))) {
                throw DatabaseError.missingKey(path: path)
            }
        }
        // Looked at only with keys: a plain-looking file may be encrypted behind a plaintext
        // header (plain files opened without keys, the common case, read nothing more).
        let plaintextHeader = kind == .plain && DatabaseFileKind.looksEncryptedWithPlaintextHeader(path: path)
        switch kind {
        case .missing, .empty:
            return (try Database(path: path, key: newest, mode: mode, busyTimeout: busyTimeout), newest)
        case .plain where !plaintextHeader:
            throw DatabaseError.notEncrypted(path: path)
        case .plain, .encryptedOrNotADatabase:
            // Every key with the settings it was given first (the common case pays nothing more).
            for key in keys {
                do {
                    return (try Database(path: path, key: key, mode: mode, busyTimeout: busyTimeout), key)
                } catch let error as DatabaseError where error.keyProblem == .wrongKey {
                    continue
                }
            }
            // Then detection: what real files use, for each distinct secret.
            let head = DatabaseFileHead.read(path, count: 24).map { [UInt8]($0) } ?? []
            let clearFields = !plaintextHeader && DatabaseKeyList.keepsHeaderFieldsInTheClear(Data(head))
            for candidates in DatabaseKeyList.detectionPasses(head: head, clearFields: clearFields, plaintextHeader: plaintextHeader) {
                if let found = try detect(path: path, candidates: candidates) {
                    return (try Database(path: path, key: found, mode: mode, busyTimeout: busyTimeout), found)
                }
            }
            if plaintextHeader, !keys.contains(where: { $0.settings.salt != nil }) {
                throw DatabaseError(extendedCode: SQLITE_NOTADB,
                                    message: "encrypted with a plaintext header (cipher_plaintext_header_size): its salt is not in the file; "
                                        + "give it with --db-cipher cipher_salt=x'<32 hex digits>', or a raw key with its salt (x'<96 hex digits>')",
                                    path: path, failedPage: 1, keyProblem: .wrongKey)
            }
            let keysTried = Set(keys.map(\.secret)).count
            let message = clearFields
                ? DatabaseKeyList.sqlite3MultipleCiphersFailure(keysTried: keysTried, reserve: Int(head[20]))
                : DatabaseKeyList.detectionFailure(keysTried: keysTried)
            throw DatabaseError(extendedCode: SQLITE_NOTADB, message: message, path: path, failedPage: 1, keyProblem: .wrongKey)
        }
    }

    /// The lists of settings detection tries, in order, each made from the settings named for
    /// a secret (if any), for a file whose first 24 bytes are `head`. Page 1's bytes 16–23 in
    /// the clear (`clearFields`) are SQLite3 Multiple Ciphers' non-legacy schemes (SQLCipher
    /// encrypts them): those, chosen by the page size and reserve kept there, are tried alone.
    /// A plaintext header: SQLCipher's settings with it, then SQLite3MC's chacha20 behind one.
    /// Otherwise SQLite3MC's legacy schemes, whose derivations cost a few milliseconds at most,
    /// then SQLCipher's settings, tenths of a second each.
    static func detectionPasses(head: [UInt8], clearFields: Bool, plaintextHeader: Bool)
        -> [(DatabaseCipherSettings?) -> [DatabaseCipherSettings]] {
        if clearFields { return [{ DatabaseCipherSettings.sqlite3mcCandidates(clearFields: Array(head[16..<24]), base: $0) }] }
        if plaintextHeader {
            return [{ DatabaseCipherSettings.detectionCandidates(base: $0, plaintextHeader: true) },
                    { DatabaseCipherSettings.sqlite3mcPlaintextHeaderCandidates(header: head, base: $0) }]
        }
        return [{ _ in DatabaseCipherSettings.sqlite3mcLegacyCandidates() }, { DatabaseCipherSettings.detectionCandidates(base: $0) }]
    }

    /// Tries, for each distinct secret in order, the settings `candidates` makes (from the
    /// settings named for that secret with `--db-cipher`, if any) against page 1, each
    /// distinct key derivation once; returns the key with the settings that open it, or nil.
    func detect(path: String, candidates make: (DatabaseCipherSettings?) -> [DatabaseCipherSettings]) throws -> DatabaseKey? {
        var seen = Set<DatabaseKey.Secret>()
        for key in keys where seen.insert(key.secret).inserted {
            // Settings given by name (not a version's defaults) shape every candidate.
            let base = keys.first { $0.secret == key.secret && $0.settings.compatibilityVersion == nil }?.settings
            let tried = Set(keys.filter { $0.secret == key.secret }.map(\.settings))
            let candidates = make(base).filter { !tried.contains($0) }
            let c = candidates.map(\.cValue)
            let (secret, isRaw) = key.material
            let index = c.withUnsafeBufferPointer { buffer in
                dc_cipher_detect(path, secret, Int32(secret.count), isRaw ? 1 : 0, buffer.baseAddress, Int32(buffer.count))
            }
            if index >= 0 { return try key.with(settings: candidates[Int(index)]) }
        }
        return nil
    }

    /// What a key list that opens nothing says: what was tried, and what to give.
    static func detectionFailure(keysTried: Int) -> String {
        let keys = keysTried > 1 ? "none of the \(keysTried) keys" : "the key"
        return DatabaseError.wrongKeyMessage + ": with \(keys), tried SQLCipher 4, 3, 2 and 1 settings and page sizes 512–65536, "
            + "and SQLite3 Multiple Ciphers' legacy chacha20 (sqleet), aes256cbc, aes128cbc and rc4: none opens page 1; "
            + "if the app sets kdf_iter or a salt, give it with --db-cipher NAME=VALUE"
    }

    /// What a key list says of a file that SQLite3 Multiple Ciphers wrote, by the look of it:
    /// that no key opened it as SQLCipher, and that this version does not read that library's
    /// other schemes, so a right key is never taken for a wrong one without a word.
    static func sqlite3MultipleCiphersFailure(keysTried: Int, reserve: Int) -> String {
        let keys = keysTried > 1 ? "none of the \(keysTried) keys" : "the key"
        let tried: String
        switch reserve {
        case 32: tried = "chacha20 (its default)"
        case 0: tried = "aes256cbc and aes128cbc"
        default: tried = "sqlcipher in its non-legacy mode"
        }
        return DatabaseError.wrongKeyMessage + ": page 1 keeps bytes 16–23 of SQLite's header in the clear, as SQLite3 Multiple "
            + "Ciphers writes it, with \(reserve) reserved bytes a page; with \(keys), tried its \(tried) at the page size kept "
            + "there: none opens page 1. Ascon-128 and AEGIS files are not read by this version: if the file is one, the key "
            + "may be right; if the app sets kdf_iter, give it with --db-cipher cipher=NAME --db-cipher kdf_iter=N"
    }

    /// True when `head` (a file's first 24 bytes) is not SQLite's plain header but holds
    /// bytes 16–23 of one in the clear, as SQLite3 Multiple Ciphers keeps them on page 1 in
    /// its schemes (SQLCipher encrypts them, unless its whole 32-byte header is plain): a
    /// page size that is a power of two from 512 to 65536, file format versions 1 or 2, and
    /// the payload fractions 64, 32, 32 SQLite requires.
    static func keepsHeaderFieldsInTheClear(_ head: Data?) -> Bool {
        guard let head, head.count >= 24 else { return false }
        let bytes = [UInt8](head)
        if bytes[0..<16].elementsEqual(Array("SQLite format 3\0".utf8)) { return false }
        let raw = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = raw == 1 ? 65_536 : raw
        return pageSize >= 512 && pageSize <= 65_536 && pageSize & (pageSize - 1) == 0
            && (1...2).contains(bytes[18]) && (1...2).contains(bytes[19])
            && bytes[21] == 64 && bytes[22] == 32 && bytes[23] == 32
    }

    /// Names how many keys the list holds and their kinds, never a secret.
    public var description: String {
        "DatabaseKeyList(\(keys.map(\.description).joined(separator: ", ")))"
    }
}
