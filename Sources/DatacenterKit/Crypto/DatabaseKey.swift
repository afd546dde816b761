/// The key of a whole encrypted database file (SQLCipher's `PRAGMA key`), with its format.
///
/// Distinct from `EncryptionKey`, which encrypts values inside a database: a database key
/// encrypts every page of the file, so that the file reveals nothing without it. Its
/// `description` never shows the secret.
public struct DatabaseKey: Sendable, Equatable, CustomStringConvertible {
    /// What the pages' keys come from.
    public enum Secret: Sendable, Equatable {
        /// A passphrase, stretched with PBKDF2 and the file's salt (the slow, safe path).
        case passphrase(String)
        /// The 32-byte AES key itself: no key derivation (SQLCipher's `x'…'` keys).
        case raw([UInt8])
    }

    /// What the pages' keys come from.
    public let secret: Secret
    /// The SQLCipher format of the file.
    public let format: DatabaseCipherFormat

    /// A passphrase key. An empty passphrase is refused: SQLCipher reads it as "no key".
    public static func passphrase(_ passphrase: String, format: DatabaseCipherFormat = .sqlcipher4) throws -> DatabaseKey {
        guard !passphrase.isEmpty else { throw CryptError.invalidKey("a database passphrase cannot be empty") }
        return DatabaseKey(secret: .passphrase(passphrase), format: format)
    }

    /// A raw 32-byte key.
    public static func raw(_ bytes: [UInt8], format: DatabaseCipherFormat = .sqlcipher4) throws -> DatabaseKey {
        guard bytes.count == 32 else {
            throw CryptError.invalidKey("a raw database key is 32 bytes, got \(bytes.count)")
        }
        return DatabaseKey(secret: .raw(bytes), format: format)
    }

    /// Reads a key as SQLCipher's `PRAGMA key` does: `x'<64 hex digits>'` is a raw key,
    /// anything else a passphrase.
    public init(sqlcipherKey text: String, format: DatabaseCipherFormat = .sqlcipher4) throws {
        let lower = text.lowercased()
        if lower.hasPrefix("x'") && lower.hasSuffix("'") && text.count >= 3 {
            let hex = String(text.dropFirst(2).dropLast())
            guard hex.count == 64, let bytes = EncryptionKey.hexBytes(hex) else {
                throw CryptError.invalidKey("a raw database key is x'…' around 64 hex digits")
            }
            self = try DatabaseKey.raw(bytes, format: format)
        } else {
            self = try DatabaseKey.passphrase(text, format: format)
        }
    }

    private init(secret: Secret, format: DatabaseCipherFormat) {
        self.secret = secret
        self.format = format
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
        case .passphrase: return "DatabaseKey(passphrase, \(format))"
        case .raw: return "DatabaseKey(raw key, \(format))"
        }
    }
}
