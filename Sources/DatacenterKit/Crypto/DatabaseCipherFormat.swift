/// The SQLCipher file format an encrypted database is read and written in.
///
/// The format is not recorded in the file (only its salt is), so it must be known when the
/// file is opened: a file opened with the wrong format fails as a wrong key does.
public enum DatabaseCipherFormat: Int32, Sendable, CaseIterable {
    /// SQLCipher 4's defaults: 4096-byte pages, AES-256-CBC, HMAC-SHA512 per page,
    /// PBKDF2-HMAC-SHA512 with 256,000 iterations. What new files should use.
    case sqlcipher4 = 4
    /// SQLCipher 3's defaults: 1024-byte pages, AES-256-CBC, HMAC-SHA1 per page,
    /// PBKDF2-HMAC-SHA1 with 64,000 iterations. For files made by older apps.
    case sqlcipher3 = 3

    /// The page size the format's files use.
    public var pageSize: Int { self == .sqlcipher4 ? 4096 : 1024 }

    /// The format as people read it, in messages and listings: "SQLCipher 4".
    public var displayName: String { "SQLCipher \(rawValue)" }
}
