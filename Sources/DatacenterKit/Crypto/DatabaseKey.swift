/// The key of a whole encrypted database file (SQLCipher's `PRAGMA key`), with its format.
///
/// Distinct from `EncryptionKey`, which encrypts values inside a database: a database key
/// encrypts every page of the file, so that the file reveals nothing without it. Its
/// `description` never shows the secret.
public struct DatabaseKey: Sendable, Equatable, CustomStringConvertible {
    /// What the pages' keys come from.
    public enum Secret: Sendable, Hashable {
        /// A passphrase, stretched with PBKDF2 and the file's salt (the slow, safe path).
        case passphrase(String)
        /// The 32-byte AES key itself: no key derivation (SQLCipher's `x'…'` keys).
        case raw([UInt8])
    }

    /// What the pages' keys come from.
    public let secret: Secret
    /// Every SQLCipher setting the file is read and written with.
    public let settings: DatabaseCipherSettings

    /// The named SQLCipher format closest to `settings`: SQLCipher 3 for its defaults, else
    /// SQLCipher 4 (what an encrypted root records; custom settings show in `settings`).
    public var format: DatabaseCipherFormat { settings.compatibilityVersion == 3 ? .sqlcipher3 : .sqlcipher4 }

    /// A passphrase key. An empty passphrase is refused: SQLCipher reads it as "no key".
    public static func passphrase(_ passphrase: String, format: DatabaseCipherFormat = .sqlcipher4) throws -> DatabaseKey {
        try .passphrase(passphrase, settings: DatabaseCipherSettings(format: format))
    }

    /// A passphrase key read and written with `settings`.
    public static func passphrase(_ passphrase: String, settings: DatabaseCipherSettings) throws -> DatabaseKey {
        guard !passphrase.isEmpty else { throw CryptError.invalidKey("a database passphrase cannot be empty") }
        return try DatabaseKey(secret: .passphrase(passphrase), settings: settings)
    }

    /// A raw 32-byte key.
    public static func raw(_ bytes: [UInt8], format: DatabaseCipherFormat = .sqlcipher4) throws -> DatabaseKey {
        try .raw(bytes, settings: DatabaseCipherSettings(format: format))
    }

    /// A raw 32-byte key read and written with `settings` (which may carry the salt).
    public static func raw(_ bytes: [UInt8], settings: DatabaseCipherSettings) throws -> DatabaseKey {
        guard bytes.count == 32 else {
            throw CryptError.invalidKey("a raw database key is 32 bytes, got \(bytes.count)")
        }
        switch settings.scheme {
        case .sqlcipher, .sqlite3mcSQLCipher, .chacha20: break
        case .aes128cbc, .aes256cbc, .rc4:
            throw CryptError.invalidKey("cipher=\(settings.scheme.cipherName) derives its key from the text it is given: "
                + "a raw key (x'…') is taken by SQLCipher's format, sqlcipher and chacha20 only")
        }
        return try DatabaseKey(secret: .raw(bytes), settings: settings)
    }

    /// Reads a key as SQLCipher's `PRAGMA key` does: `x'<64 hex digits>'` is a raw key,
    /// `x'<96 hex digits>'` a raw key and its salt, anything else a passphrase.
    public init(sqlcipherKey text: String, format: DatabaseCipherFormat = .sqlcipher4) throws {
        try self.init(sqlcipherKey: text, settings: DatabaseCipherSettings(format: format))
    }

    /// Reads a key as SQLCipher's `PRAGMA key` does, with `settings`.
    public init(sqlcipherKey text: String, settings: DatabaseCipherSettings) throws {
        let lower = text.lowercased()
        if lower.hasPrefix("x'") && lower.hasSuffix("'") && text.count >= 3 {
            let hex = String(text.dropFirst(2).dropLast())
            guard hex.count == 64 || hex.count == 96, let bytes = EncryptionKey.hexBytes(hex) else {
                throw CryptError.invalidKey("a raw database key is x'…' around 64 hex digits (or 96: the key, then its salt)")
            }
            var settings = settings
            if bytes.count == 48 { settings.salt = Array(bytes[32...]) }
            self = try DatabaseKey.raw(Array(bytes[..<32]), settings: settings)
        } else {
            self = try DatabaseKey.passphrase(text, settings: settings)
        }
    }

    private init(secret: Secret, settings: DatabaseCipherSettings) throws {
        if let problem = settings.problem { throw CryptError.invalidKey(problem) }
        self.secret = secret
        self.settings = settings
    }

    /// The same secret with other settings.
    public func with(settings: DatabaseCipherSettings) throws -> DatabaseKey {
        try DatabaseKey(secret: secret, settings: settings)
    }

    /// The secret's bytes as the page cipher takes them, and whether they are a raw key.
    var material: (bytes: [UInt8], isRaw: Bool) {
        switch secret {
        case .passphrase(let text): return (Array(text.utf8), false)
        case .raw(let bytes): return (bytes, true)
        }
    }

    /// Names the kind of key and format, never the secret.
    public var description: String {
        switch secret {
        case .passphrase: return "DatabaseKey(passphrase, \(settings))"
        case .raw: return "DatabaseKey(raw key, \(settings))"
        }
    }
}
