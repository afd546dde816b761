import Foundation

/// What a root remembers between runs, in `datacenter.json`.
struct RootState: Codable, Equatable {
    /// The format of the root's files (see `docs/FORMAT.md`).
    var formatVersion: Int = Store.formatVersion
    /// The user signed in last, or nil.
    var currentUserId: String?
    /// The app version the version storage belongs to.
    var appVersion: String?
    /// Set when every SQLite file of the root is encrypted, with their format; nil (or
    /// absent, in files written before encryption existed) for a plain root.
    var databaseEncryption: RootDatabaseEncryption?
    /// Set by a conversion that encrypts a plain root (`rekeyDatabases`) before it touches
    /// the first file, cleared when it finishes: only a root with it is "half converted"
    /// when its files are part encrypted, part plain. Without it, a file that reads as
    /// encrypted in a plain root is a damaged one (its first page is not SQLite's).
    var databaseEncryptionBegun: RootDatabaseEncryption?
    /// The DAO databases kept in files of their own under the root
    /// (`DataCenter.daoDatabaseFile`), by path relative to it; nil (absent) when none.
    var daoDatabases: [String]?

    static func load(from path: String) throws -> RootState {
        let read: Data?
        do { read = try RegularFile.contentsIfPresent(atPath: path, limit: 1 << 20) } catch let error as FileAccessError {
            throw StorageError.badRootState(path: path, reason: error.reason)
        }
        guard let data = read else { return RootState() }
        do { return try JSONDecoder().decode(RootState.self, from: data) } catch {
            throw StorageError.badRootState(path: path, reason: "not a valid datacenter.json (\(RootState.plainReason(error)))")
        }
    }

    func save(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        // Private (0600) and atomic: a partial file, synced and renamed into place; one left
        // by a killed process is removed when the root is next opened for writing.
        do { try PrivateFile.write(try encoder.encode(self), toPath: path) } catch let error as FileAccessError {
            throw StorageError.badRootState(path: path, reason: error.reason)
        }
    }

    /// A decoding error in plain words (never Foundation's `NSCocoaErrorDomain` text).
    static func plainReason(_ error: Error) -> String {
        switch error {
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
             DecodingError.keyNotFound(_, let context), DecodingError.dataCorrupted(let context):
            let at = context.codingPath.map(\.stringValue).joined(separator: ".")
            if case DecodingError.keyNotFound(let key, _) = error { return "missing \"\(key.stringValue)\"" }
            if case DecodingError.dataCorrupted = error, at.isEmpty { return "not JSON" }
            return at.isEmpty ? "unexpected content" : "unexpected value at \"\(at)\""
        default: return "unreadable"
        }
    }
}
