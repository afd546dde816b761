import Foundation

/// What a file holds, as far as can be told without a key: nothing yet, a plain SQLite
/// database, or bytes that are neither (an encrypted database, or not a database at all).
///
/// An encrypted database reveals nothing without its key — not even its format — so "encrypted"
/// and "not a database" look alike here; only opening with a key tells them apart.
public enum DatabaseFileKind: Sendable, Equatable {
    /// No file at the path.
    case missing
    /// An empty file: a database not written yet, which a key would create encrypted.
    case empty
    /// A plain SQLite database (its first 16 bytes are SQLite's header string).
    case plain
    /// Anything else: an encrypted database, or not a database.
    case encryptedOrNotADatabase

    /// The 16 bytes every plain SQLite database file starts with.
    static let sqliteHeader = Array("SQLite format 3\0".utf8)

    /// Looks at the first bytes of the file at `path`.
    public static func of(path: String) throws -> DatabaseFileKind {
        guard FileManager.default.fileExists(atPath: path) else { return .missing }
        try RegularFile.refuseIfNotRegular(path)
        // Read as SQLite reads it: a descriptor closed here would drop the locks of this
        // process's connections to the file (`DatabaseFileHead`).
        guard let head = DatabaseFileHead.read(path, count: 16) else {
            throw FileAccessError(path: path, reason: "cannot be read")
        }
        if head.isEmpty { return .empty }
        return Array(head) == sqliteHeader ? .plain : .encryptedOrNotADatabase
    }

    /// True when the file at `path` starts with SQLite's header yet is SQLCipher-encrypted
    /// with a plaintext header (`cipher_plaintext_header_size`, as iOS apps set it for a
    /// database in a shared container): its header reserves room for an IV (16 bytes or
    /// more per page), and page 1's b-tree page header, which a plain file keeps in the clear
    /// right after the 100-byte file header, is not one (it is ciphertext): a page type, a
    /// first free block and a cell-content start inside the page, at most 60 fragmented bytes.
    /// Random bytes pass all of these about once in 5,000 files.
    public static func looksEncryptedWithPlaintextHeader(path: String) -> Bool {
        guard let head = DatabaseFileHead.read(path, count: 108), head.count == 108 else { return false }
        let bytes = Array(head)
        guard Array(bytes[0..<16]) == sqliteHeader, bytes[20] >= 16 else { return false }
        func word(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
        let pageSize = word(16) == 1 ? 65536 : word(16)
        let firstFreeBlock = word(101)
        let contentStart = word(105) == 0 ? 65536 : word(105)
        let isBTreePage = [2, 5, 10, 13].contains(bytes[100])
            && (firstFreeBlock == 0 || (firstFreeBlock >= 108 && firstFreeBlock < pageSize))
            && contentStart >= 108 && contentStart <= pageSize
            && bytes[107] <= 60
        return !isBTreePage
    }
}
