import CPageCipher

extension DatabaseCipherSettings.Digest {
    /// SQLite3 Multiple Ciphers' number for the digest (`kdf_algorithm`, `hmac_algorithm`):
    /// 0 SHA1, 1 SHA256, 2 SHA512.
    public var sqlite3mcNumber: Int { Int(rawValue) - 1 }

    /// The digest SQLite3MC numbers `number`, or nil.
    init?(sqlite3mcNumber number: Int) {
        self.init(rawValue: Int32(clamping: number + 1))
    }
}

extension DatabaseCipherSettings {
    /// How a file's pages are encrypted: SQLCipher's format, or one of SQLite3 Multiple
    /// Ciphers' own schemes (the default of better-sqlite3-multiple-ciphers,
    /// sqlite-jdbc-crypt, SQLitePCLRaw's `e_sqlite3mc`, the Qt cipher plugin, SQLiteStudio;
    /// Navicat's AES-128; System.Data.SQLite's RC4). Named as SQLite3MC names them in
    /// `PRAGMA cipher` and its URI parameters. FORMAT.md gives each one's layout.
    public enum Scheme: Int32, Sendable, CaseIterable {
        /// SQLCipher's format (SQLite3MC's `cipher=sqlcipher` with `legacy=1…4` writes it).
        case sqlcipher = 0
        /// SQLite3MC's `sqlcipher` in its default, non-legacy mode: SQLCipher's pages, but
        /// page 1's bytes 16–23 in the clear. SQLCipher itself does not read it.
        case sqlite3mcSQLCipher = 1
        /// `chacha20`: sqleet's ChaCha20 and Poly1305, SQLite3MC's default.
        case chacha20 = 2
        /// `aes128cbc`: wxSQLite3's AES-128 (Navicat's).
        case aes128cbc = 3
        /// `aes256cbc`: wxSQLite3's AES-256.
        case aes256cbc = 4
        /// `rc4`: System.Data.SQLite's RC4.
        case rc4 = 5

        /// SQLite3MC's name for it (`PRAGMA cipher`): `sqlcipher` for both SQLCipher kinds.
        public var cipherName: String {
            switch self {
            case .sqlcipher, .sqlite3mcSQLCipher: return "sqlcipher"
            case .chacha20: return "chacha20"
            case .aes128cbc: return "aes128cbc"
            case .aes256cbc: return "aes256cbc"
            case .rc4: return "rc4"
            }
        }

        /// True for the schemes SQLite3 Multiple Ciphers alone writes.
        public var isSQLite3MultipleCiphers: Bool { self != .sqlcipher }

        /// SQLite3MC's scheme named `name` with its defaults (`cipher=sqlcipher`: its
        /// non-legacy mode), or nil.
        static func named(_ name: String) -> Scheme? {
            switch name.lowercased() {
            case "sqlcipher": return .sqlite3mcSQLCipher
            case "chacha20": return .chacha20
            case "aes128cbc": return .aes128cbc
            case "aes256cbc": return .aes256cbc
            case "rc4": return .rc4
            default: return nil
            }
        }
    }

    /// SQLite3MC's default key-derivation rounds for chacha20 (PBKDF2-HMAC-SHA256), and
    /// those of sqleet, which its legacy mode reads.
    static let chacha20Iterations = 64_007
    static let sqleetIterations = 12_345

    /// What SQLite3MC writes for `PRAGMA cipher = scheme` with its defaults: 4096-byte pages,
    /// non-legacy, chacha20's 64,007 rounds; `sqlcipher` with SQLCipher 4's settings.
    public static func sqlite3MultipleCiphers(_ scheme: Scheme) -> DatabaseCipherSettings {
        var settings = compatibility(4)
        settings.kdfIterations = 256_000
        settings.scheme = scheme
        switch scheme {
        case .sqlcipher, .sqlite3mcSQLCipher: break
        case .chacha20: settings.kdfIterations = chacha20Iterations
        case .aes128cbc, .aes256cbc: settings.kdfIterations = 1
        case .rc4:
            settings.kdfIterations = 1
            settings.legacy = true
        }
        return settings
    }

    /// The schemes that read a file whose page 1 keeps bytes 16–23 of SQLite's header in the
    /// clear (`fields`: those 8 bytes), as SQLite3MC's non-legacy modes write it: its page
    /// size, and its reserve (32: chacha20; 0: the AES schemes; SQLCipher's IV and HMAC:
    /// sqlcipher) choose them. `base`, settings named with `--db-cipher`, gives chacha20's
    /// rounds when it names that scheme.
    static func sqlite3mcCandidates(clearFields fields: [UInt8], base: DatabaseCipherSettings?) -> [DatabaseCipherSettings] {
        guard fields.count >= 8 else { return [] }
        let raw = Int(fields[0]) << 8 | Int(fields[1])
        let pageSize = raw == 1 ? 65_536 : raw
        let reserve = Int(fields[4])
        var out: [DatabaseCipherSettings] = []
        func add(_ scheme: Scheme, configure: (inout DatabaseCipherSettings) -> Void = { _ in }) {
            var s = sqlite3MultipleCiphers(scheme)
            s.pageSize = pageSize
            configure(&s)
            if s.problem == nil, !out.contains(s) { out.append(s) }
        }
        switch reserve {
        case 32:
            if let base, base.scheme == .chacha20 { add(.chacha20) { $0.kdfIterations = base.kdfIterations } }
            add(.chacha20)
        case 0:
            add(.aes256cbc)
            add(.aes128cbc)
        default:
            // Each HMAC digest, and none (hmac_use=0: a 16-byte reserve, the IV alone).
            for hmac in [Digest.sha512, .sha1, .sha256, nil] {
                for kdf in [Digest.sha512, .sha1, .sha256] {
                    for iterations in Set([base?.kdfIterations ?? 256_000, 256_000, 64_000, 4_000]).sorted(by: >) {
                        add(.sqlite3mcSQLCipher) {
                            $0.hmacAlgorithm = hmac ?? .sha512
                            $0.usesHMAC = hmac != nil
                            $0.kdfAlgorithm = kdf
                            $0.kdfIterations = iterations
                        }
                    }
                }
            }
            out = out.filter { $0.reserve == reserve }
        }
        return out
    }

    /// SQLite3MC's chacha20 behind a plaintext header (`plaintext_header_size`, which the
    /// library reopens only with a raw key, or the salt given): the header's page size, when
    /// its reserve is chacha20's 32 bytes, with the header sizes apps use (or the one given).
    static func sqlite3mcPlaintextHeaderCandidates(header: [UInt8], base: DatabaseCipherSettings?) -> [DatabaseCipherSettings] {
        guard header.count >= 24, header[20] == 32 else { return [] }
        let raw = Int(header[16]) << 8 | Int(header[17])
        let given = base.flatMap { $0.scheme == .chacha20 && $0.plaintextHeaderSize != 0 ? $0.plaintextHeaderSize : nil }
        return (given.map { [$0] } ?? [32, 24, 48, 64, 80, 96, 100, 16]).compactMap { size in
            var s = sqlite3MultipleCiphers(.chacha20)
            s.pageSize = raw == 1 ? 65_536 : raw
            s.plaintextHeaderSize = size
            if let base, base.scheme == .chacha20 { s.kdfIterations = base.kdfIterations }
            s.salt = base?.salt
            return s.problem == nil ? s : nil
        }
    }

    /// SQLite3MC's legacy schemes, which encrypt page 1 whole (so nothing in the file names
    /// them): sqleet's chacha20, wxSQLite3's AES-256 and AES-128, and rc4, each in every
    /// page size (4096, their default, first).
    static func sqlite3mcLegacyCandidates() -> [DatabaseCipherSettings] {
        var out: [DatabaseCipherSettings] = []
        for scheme in [Scheme.chacha20, .aes256cbc, .aes128cbc, .rc4] {
            for pageSize in pageSizes {
                var s = sqlite3MultipleCiphers(scheme)
                s.legacy = true
                s.pageSize = pageSize
                if scheme == .chacha20 { s.kdfIterations = sqleetIterations }   // SQLite3MC's legacy mode takes no other
                if s.problem == nil { out.append(s) }
            }
        }
        return out
    }
}
