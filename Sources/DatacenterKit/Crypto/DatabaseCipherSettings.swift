import CPageCipher

/// Every setting SQLCipher lets an app choose for an encrypted database file, named as its
/// pragmas name them, so what was found in a file can be pasted into the app and what the
/// app sets can be given here (`--db-cipher NAME=VALUE`).
///
/// The four SQLCipher versions' defaults are `compatibility(1…4)`; an app may change any
/// setting on top of them. None of them is written in the file (only the salt is, unless the
/// header is kept in plaintext), so a file opens only with the settings it was written with:
/// `DatabaseKeyList` finds them by trying what real files use (`detectionCandidates`).
public struct DatabaseCipherSettings: Sendable, Hashable, CustomStringConvertible {
    /// A digest for the KDF or the HMAC (`PBKDF2_HMAC_SHA512`, `HMAC_SHA512`, …).
    public enum Digest: Int32, Sendable, CaseIterable {
        case sha1 = 1, sha256 = 2, sha512 = 3

        /// The digest's part of SQLCipher's algorithm names: `SHA1`, `SHA256`, `SHA512`.
        public var name: String {
            switch self {
            case .sha1: return "SHA1"
            case .sha256: return "SHA256"
            case .sha512: return "SHA512"
            }
        }
    }

    /// The byte order of the page number each page's HMAC covers (`cipher_hmac_pgno`).
    public enum PageNumberOrder: Int32, Sendable, CaseIterable {
        case littleEndian = 0, bigEndian = 1, native = 2

        /// SQLCipher's name: `le`, `be` or `native`.
        public var name: String { ["le", "be", "native"][Int(rawValue)] }
    }

    /// `cipher_page_size`: 512 to 65536, a power of 2.
    public var pageSize: Int
    /// `kdf_iter`: PBKDF2 iterations for a passphrase.
    public var kdfIterations: Int
    /// `cipher_kdf_algorithm`.
    public var kdfAlgorithm: Digest
    /// `cipher_hmac_algorithm`.
    public var hmacAlgorithm: Digest
    /// `cipher_use_hmac`: off in SQLCipher 1, where nothing authenticates a page.
    public var usesHMAC: Bool
    /// `cipher_hmac_pgno`.
    public var hmacPageNumber: PageNumberOrder
    /// `cipher_hmac_salt_mask`: XORed into the salt to derive the HMAC key (0x3a).
    public var hmacSaltMask: UInt8
    /// `cipher_plaintext_header_size`: page 1's first bytes kept as SQLite's own, in the
    /// clear (0 or a multiple of 16; SQLCipher recommends 32). The salt is then not in the
    /// file, and must be given (`salt`).
    public var plaintextHeaderSize: Int
    /// `cipher_salt`: the 16-byte KDF salt, when given rather than read from the file.
    public var salt: [UInt8]?
    /// The page-encryption scheme: SQLCipher's format unless `cipher=` names one of SQLite3
    /// Multiple Ciphers' (`DatabaseCipherScheme.swift`). For those, only `pageSize`,
    /// `kdfIterations` (chacha20's) and `legacy` apply, and for its `sqlcipher` every
    /// setting above but the plaintext header's.
    public var scheme: Scheme
    /// SQLite3MC's `legacy=1` for chacha20 (sqleet's format: 12,345 rounds), aes128cbc and
    /// aes256cbc: page 1 is encrypted whole; otherwise its bytes 16–23 stay in the clear.
    /// Always true for rc4, which has no other mode.
    public var legacy: Bool

    /// The defaults of SQLCipher `version` (1 to 4), as `PRAGMA cipher_compatibility` sets them.
    public static func compatibility(_ version: Int) -> DatabaseCipherSettings {
        var c = dc_cipher_settings()
        dc_cipher_settings_for_version(Int32(version), &c)
        var settings = DatabaseCipherSettings(c)
        settings.kdfIterations = TestingKeyDerivation.iterations(standingFor: settings.kdfIterations)
        return settings
    }

    /// SQLCipher 4's defaults: what new files get.
    public static let sqlcipher4 = compatibility(4)

    /// The settings of a named format (`.sqlcipher4`, `.sqlcipher3`).
    public init(format: DatabaseCipherFormat) {
        self = .compatibility(Int(format.rawValue))
    }

    init(_ c: dc_cipher_settings) {
        pageSize = Int(c.page_size)
        kdfIterations = Int(c.kdf_iter)
        kdfAlgorithm = Digest(rawValue: c.kdf_algorithm) ?? .sha512
        hmacAlgorithm = Digest(rawValue: c.hmac_algorithm) ?? .sha512
        usesHMAC = c.use_hmac != 0
        hmacPageNumber = PageNumberOrder(rawValue: c.hmac_pgno) ?? .littleEndian
        hmacSaltMask = UInt8(truncatingIfNeeded: c.hmac_salt_mask)
        plaintextHeaderSize = Int(c.plaintext_header_size)
        salt = c.has_salt != 0 ? withUnsafeBytes(of: c.salt) { Array($0) } : nil
        scheme = Scheme(rawValue: c.scheme) ?? .sqlcipher
        legacy = c.legacy != 0
    }

    /// The settings as the page cipher takes them.
    var cValue: dc_cipher_settings {
        var c = dc_cipher_settings()
        c.page_size = Int32(clamping: pageSize)
        c.kdf_iter = Int32(clamping: kdfIterations)
        c.kdf_algorithm = kdfAlgorithm.rawValue
        c.hmac_algorithm = hmacAlgorithm.rawValue
        c.use_hmac = usesHMAC ? 1 : 0
        c.hmac_pgno = hmacPageNumber.rawValue
        c.hmac_salt_mask = Int32(hmacSaltMask)
        c.plaintext_header_size = Int32(clamping: plaintextHeaderSize)
        if let salt, salt.count == 16 {
            c.has_salt = 1
            withUnsafeMutableBytes(of: &c.salt) { $0.copyBytes(from: salt) }
        }
        c.scheme = scheme.rawValue
        c.legacy = legacy ? 1 : 0
        return c
    }

    /// The SQLCipher version whose defaults these are exactly (with no salt and no plaintext
    /// header), or nil for custom settings.
    public var compatibilityVersion: Int? {
        guard scheme == .sqlcipher, salt == nil, plaintextHeaderSize == 0 else { return nil }
        return [4, 3, 2, 1].first { Self.compatibility($0) == self }
    }

    /// The reserve each page keeps for the IV and HMAC (rounded up to the AES block).
    public var reserve: Int {
        switch scheme {
        case .sqlcipher, .sqlite3mcSQLCipher: return (16 + (usesHMAC ? hmacLength : 0) + 15) / 16 * 16
        case .chacha20: return 32   // the nonce and the Poly1305 tag
        case .aes128cbc, .aes256cbc, .rc4: return 0
        }
    }

    /// The HMAC's length in bytes.
    var hmacLength: Int {
        switch hmacAlgorithm {
        case .sha1: return 20
        case .sha256: return 32
        case .sha512: return 64
        }
    }

    /// The problem with these settings, or nil when SQLCipher would accept them.
    public var problem: String? {
        if pageSize < 512 || pageSize > 65536 || pageSize & (pageSize - 1) != 0 {
            return "cipher_page_size must be a power of 2 from 512 to 65536, not \(pageSize)"
        }
        if pageSize - reserve < 480 {
            return "cipher_page_size \(pageSize) leaves \(pageSize - reserve) bytes a page beside the cipher's \(reserve); "
                + "SQLite needs 480 (512-byte pages work only with cipher_use_hmac=OFF)"
        }
        if kdfIterations < 1 || kdfIterations > Int(Int32.max) {
            return "kdf_iter must be a whole number from 1 to \(Int32.max), not \(kdfIterations)"
        }
        if scheme != .sqlcipher, scheme != .sqlite3mcSQLCipher {
            if scheme == .chacha20 {
                guard (0...100).contains(plaintextHeaderSize) else {
                    return "plaintext_header_size must be from 0 to 100 for cipher=chacha20, not \(plaintextHeaderSize)"
                }
            } else if plaintextHeaderSize != 0 || salt != nil {
                return "cipher=\(scheme.cipherName): a plaintext header and a given salt are read with SQLCipher's format and chacha20 only"
            }
            if let salt, salt.count != 16 { return "cipher_salt must be 16 bytes (x'…' around 32 hex digits)" }
            return nil
        }
        if plaintextHeaderSize < 0 || plaintextHeaderSize % 16 != 0 || plaintextHeaderSize > pageSize - reserve {
            return "cipher_plaintext_header_size must be a multiple of 16 from 0 to \(pageSize - reserve), not \(plaintextHeaderSize)"
        }
        if let salt, salt.count != 16 { return "cipher_salt must be 16 bytes (x'…' around 32 hex digits)" }
        return nil
    }

    // MARK: Pragmas

    /// The settings as SQLCipher pragmas, in the order an app would run them after
    /// `PRAGMA key`: `cipher_compatibility` when they are a version's defaults, else every
    /// setting that differs from SQLCipher 4's, each value as SQL takes it (blobs in double
    /// quotes: `"x'…'"`). The salt is shown, never a key.
    public var pragmas: [(name: String, value: String)] {
        if let version = compatibilityVersion { return [("cipher_compatibility", "\(version)")] }
        if scheme != .sqlcipher { return sqlite3mcPragmas }
        let base = Self.sqlcipher4
        var out: [(String, String)] = []
        if pageSize != base.pageSize { out.append(("cipher_page_size", "\(pageSize)")) }
        if kdfIterations != base.kdfIterations { out.append(("kdf_iter", "\(kdfIterations)")) }
        if hmacAlgorithm != base.hmacAlgorithm { out.append(("cipher_hmac_algorithm", "HMAC_\(hmacAlgorithm.name)")) }
        if kdfAlgorithm != base.kdfAlgorithm { out.append(("cipher_kdf_algorithm", "PBKDF2_HMAC_\(kdfAlgorithm.name)")) }
        if usesHMAC != base.usesHMAC { out.append(("cipher_use_hmac", usesHMAC ? "ON" : "OFF")) }
        if hmacPageNumber != base.hmacPageNumber { out.append(("cipher_hmac_pgno", hmacPageNumber.name)) }
        if hmacSaltMask != base.hmacSaltMask { out.append(("cipher_hmac_salt_mask", "\"x'\(String(format2: hmacSaltMask))'\"")) }
        if plaintextHeaderSize != 0 { out.append(("cipher_plaintext_header_size", "\(plaintextHeaderSize)")) }
        if let saltLiteral { out.append(("cipher_salt", "\"\(saltLiteral)\"")) }
        return out
    }

    /// The pragmas as one line: `cipher_page_size = 1024; kdf_iter = 64000`.
    public var description: String {
        pragmas.map { "\($0.name) = \($0.value)" }.joined(separator: "; ")
    }

    /// The pragmas as an app runs them after `PRAGMA key`: `PRAGMA kdf_iter = 64000;` each.
    public var pragmaStatements: String {
        pragmas.map { "PRAGMA \($0.name) = \($0.value);" }.joined(separator: " ")
    }

    /// SQLite3MC's settings as its pragmas (and URI parameters) name them, run before
    /// `PRAGMA key`: `cipher`, then what differs from that scheme's defaults.
    private var sqlite3mcPragmas: [(name: String, value: String)] {
        var out: [(String, String)] = [("cipher", "'\(scheme.cipherName)'")]
        if legacy, scheme != .rc4 { out.append(("legacy", "1")) }
        if pageSize != 4096 { out.append((legacy ? "legacy_page_size" : "page_size", "\(pageSize)")) }
        switch scheme {
        case .chacha20:
            if kdfIterations != (legacy ? Self.sqleetIterations : Self.chacha20Iterations) { out.append(("kdf_iter", "\(kdfIterations)")) }
            if plaintextHeaderSize != 0 { out.append(("plaintext_header_size", "\(plaintextHeaderSize)")) }
        case .sqlite3mcSQLCipher:
            let base = Self.sqlite3MultipleCiphers(.sqlite3mcSQLCipher)
            if kdfIterations != base.kdfIterations { out.append(("kdf_iter", "\(kdfIterations)")) }
            if kdfAlgorithm != base.kdfAlgorithm { out.append(("kdf_algorithm", "\(kdfAlgorithm.sqlite3mcNumber)")) }
            if hmacAlgorithm != base.hmacAlgorithm { out.append(("hmac_algorithm", "\(hmacAlgorithm.sqlite3mcNumber)")) }
            if usesHMAC != base.usesHMAC { out.append(("hmac_use", usesHMAC ? "1" : "0")) }
            if hmacPageNumber != base.hmacPageNumber { out.append(("hmac_pgno", "\(hmacPageNumber.rawValue)")) }
            if hmacSaltMask != base.hmacSaltMask { out.append(("hmac_salt_mask", "\(hmacSaltMask)")) }
        default: break
        }
        return out
    }

    /// `SQLCipher 4` for a version's defaults, `custom SQLCipher settings` for others, and
    /// `SQLite3 Multiple Ciphers chacha20` (and so on) for that library's schemes.
    public var name: String {
        switch scheme {
        case .sqlcipher: return compatibilityVersion.map { "SQLCipher \($0)" } ?? "custom SQLCipher settings"
        case .sqlite3mcSQLCipher: return "SQLite3 Multiple Ciphers sqlcipher (non-legacy)"
        default: return "SQLite3 Multiple Ciphers \(scheme.cipherName)" + (legacy && scheme != .rc4 ? " (legacy)" : "")
        }
    }

    /// The format's name in JSON: `sqlcipher4` (…1) for SQLCipher's defaults, `custom` for
    /// other SQLCipher settings, `sqlite3mc-chacha20` (`-aes128cbc`, `-aes256cbc`, `-rc4`,
    /// `-sqlcipher`) for SQLite3MC's schemes.
    public var formatName: String {
        if scheme != .sqlcipher { return "sqlite3mc-" + scheme.cipherName }
        return compatibilityVersion.map { "sqlcipher\($0)" } ?? "custom"
    }

    /// What a header shows: `SQLCipher 4` for a version's defaults, else the pragmas.
    public var summary: String { compatibilityVersion == nil && scheme == .sqlcipher ? description : name }

    /// The salt as SQL writes a blob, `x'…'`, when one is given.
    public var saltLiteral: String? { salt.map { "x'" + $0.map { String(format2: $0) }.joined() + "'" } }

    /// Applies one `NAME=VALUE` pair, in SQLCipher's pragma names (with or without the
    /// `cipher_` prefix SQLCipher's older names lack). `cipher_compatibility` (or
    /// `cipher_default_compatibility`) resets every setting to that version's defaults.
    /// Whether the settings fit together is checked by `problem` (and by `init(pairs:)`).
    /// - throws: `CryptError.invalidKey` naming the pair at fault.
    public mutating func apply(_ pair: String) throws {
        guard let equals = pair.firstIndex(of: "=") else {
            throw CryptError.invalidKey("a database cipher setting is NAME=VALUE (e.g. kdf_iter=64000), not '\(pair)'")
        }
        let name = pair[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
        var value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        if value.count >= 2, value.first == "'" || value.first == "\"", value.last == value.first, !value.lowercased().hasPrefix("x'") {
            value = String(value.dropFirst().dropLast())
        }
        func bad(_ expected: String) -> CryptError { CryptError.invalidKey("\(name): expected \(expected), got '\(value)'") }
        func integer() throws -> Int {
            guard let n = Int(value) else { throw bad("a whole number") }
            return n
        }
        func digest(prefix: String) throws -> Digest {
            if let n = Int(value), let found = Digest(sqlite3mcNumber: n) { return found }
            let upper = value.uppercased().replacingOccurrences(of: "-", with: "_")
            let bare = upper.hasPrefix(prefix) ? String(upper.dropFirst(prefix.count)) : upper
            guard let found = Digest.allCases.first(where: { $0.name == bare }) else { throw bad("\(prefix)SHA1, \(prefix)SHA256 or \(prefix)SHA512") }
            return found
        }
        switch name.hasPrefix("cipher_") ? String(name.dropFirst(7)) : name {
        case "compatibility", "default_compatibility":
            let version = try integer()
            guard (1...4).contains(version) else { throw bad("1, 2, 3 or 4") }
            self = .compatibility(version)
        case "cipher":
            guard let named = Scheme.named(value) else {
                throw CryptError.invalidKey("cipher: expected chacha20, aes128cbc, aes256cbc, sqlcipher or rc4, got '\(value)' "
                    + "(ascon128 and aegis files are not read by this version)")
            }
            self = .sqlite3MultipleCiphers(named)
        case "legacy":
            let level = try integer()
            switch scheme {
            case .sqlcipher, .sqlite3mcSQLCipher:
                // SQLite3MC's sqlcipher: legacy=N is SQLCipher N's format, 0 its own mode.
                guard (0...4).contains(level) else { throw bad("0 to 4 for cipher=sqlcipher") }
                self = level == 0 ? .sqlite3MultipleCiphers(.sqlite3mcSQLCipher) : .compatibility(level)
            case .rc4:
                guard level == 1 else { throw bad("1: rc4 has no other mode") }
            case .chacha20, .aes128cbc, .aes256cbc:
                guard (0...1).contains(level) else { throw bad("0 or 1") }
                legacy = level == 1
                if scheme == .chacha20 { kdfIterations = legacy ? Self.sqleetIterations : Self.chacha20Iterations }
            }
        case "legacy_page_size": pageSize = try integer()
        case "hmac_use":
            switch value.lowercased() {
            case "1", "on", "true": usesHMAC = true
            case "0", "off", "false": usesHMAC = false
            default: throw bad("0 or 1")
            }
        case "page_size", "default_page_size": pageSize = try integer()
        case "kdf_iter", "default_kdf_iter": kdfIterations = try integer()
        case "hmac_algorithm", "default_hmac_algorithm": hmacAlgorithm = try digest(prefix: "HMAC_")
        case "kdf_algorithm", "default_kdf_algorithm": kdfAlgorithm = try digest(prefix: "PBKDF2_HMAC_")
        case "use_hmac", "default_use_hmac":
            switch value.lowercased() {
            case "on", "1", "true", "yes": usesHMAC = true
            case "off", "0", "false", "no": usesHMAC = false
            default: throw bad("ON or OFF")
            }
        case "hmac_pgno":
            let byNumber = Int(value).flatMap { PageNumberOrder(rawValue: Int32($0)) }
            guard let order = byNumber ?? PageNumberOrder.allCases.first(where: { $0.name == value.lowercased() }) else {
                throw bad("le, be or native")
            }
            hmacPageNumber = order
        case "hmac_salt_mask":
            if let n = Int(value), let byte = UInt8(exactly: n) {
                hmacSaltMask = byte   // SQLite3MC's form: a number
            } else {
                guard let bytes = Self.blob(value), bytes.count == 1 else { throw bad("one byte as x'3a'") }
                hmacSaltMask = bytes[0]
            }
        case "plaintext_header_size", "default_plaintext_header_size": plaintextHeaderSize = try integer()
        case "salt":
            guard let bytes = Self.blob(value), bytes.count == 16 else { throw bad("16 bytes as x'<32 hex digits>'") }
            salt = bytes
        default:
            throw CryptError.invalidKey("unknown database cipher setting '\(name)': expected one of cipher_compatibility, "
                + "cipher_page_size, kdf_iter, cipher_hmac_algorithm, cipher_kdf_algorithm, cipher_use_hmac, "
                + "cipher_hmac_pgno, cipher_hmac_salt_mask, cipher_plaintext_header_size, cipher_salt; "
                + "or SQLite3 Multiple Ciphers' cipher, legacy, legacy_page_size, hmac_use")
        }
    }

    /// SQLCipher 4's defaults with `pairs` applied in order.
    /// - throws: `CryptError.invalidKey` for a pair that does not parse, or settings that
    ///   SQLCipher would refuse together (`problem`).
    public init(pairs: [String]) throws {
        self = try Self.sqlcipher4.applying(pairs)
    }

    /// These settings with `pairs` applied in order.
    /// - throws: `CryptError.invalidKey` for a pair that does not parse, or settings that
    ///   SQLCipher would refuse together (`problem`).
    public func applying(_ pairs: some Sequence<String>) throws -> DatabaseCipherSettings {
        var settings = self
        for pair in pairs { try settings.apply(pair) }
        if let problem = settings.problem { throw CryptError.invalidKey(problem) }
        return settings
    }

    /// The bytes of `x'…'` (or bare hex), or nil.
    static func blob(_ text: String) -> [UInt8]? {
        var hex = Substring(text)
        if hex.lowercased().hasPrefix("x'"), hex.hasSuffix("'"), hex.count >= 3 { hex = hex.dropFirst(2).dropLast() }
        return EncryptionKey.hexBytes(String(hex))
    }

    // MARK: Detection

    /// The (KDF digest, iterations) pairs real files use, the most common first: SQLCipher
    /// 4's, 3's and 2's (and 1's) defaults, then the other digests at those counts.
    static let standardDerivations: [(Digest, Int)] = ([
        (.sha512, 256_000), (.sha1, 64_000), (.sha1, 4_000),
        (.sha256, 256_000), (.sha512, 64_000), (.sha256, 64_000), (.sha1, 256_000), (.sha512, 4_000), (.sha256, 4_000),
    ] as [(Digest, Int)]).map { ($0.0, TestingKeyDerivation.iterations(standingFor: $0.1)) }

    /// Every page size SQLCipher allows, the defaults first.
    static let pageSizes = [4096, 1024, 8192, 16384, 2048, 512, 32768, 65536]

    /// What detection tries for a file, in order: the four versions' defaults (4 first), then
    /// for each standard derivation every page size, HMAC digest and page-number order, and
    /// HMAC off. `given` (settings named with `--db-cipher`) replace those fields in every
    /// candidate: a custom `kdf_iter` or a salt is then tried with everything else. The
    /// candidates that share a derivation are grouped, so each derivation is done once.
    ///
    /// For a file whose header is in plaintext (`plaintextHeader`), each candidate is tried
    /// with the header sizes apps use (32, SQLCipher's advice, first), unless one was given.
    static func detectionCandidates(base: DatabaseCipherSettings? = nil, plaintextHeader: Bool = false) -> [DatabaseCipherSettings] {
        var out: [DatabaseCipherSettings] = []
        var seen = Set<DatabaseCipherSettings>()
        let headerSizes: [Int]
        if let given = base?.plaintextHeaderSize, given != 0 {
            headerSizes = [given]
        } else {
            headerSizes = plaintextHeader ? [32, 16, 48, 64, 80, 96] : [0]
        }
        func add(_ s: DatabaseCipherSettings) {
            var s = s
            if let base {
                // Settings given by name hold in every candidate.
                if base.salt != nil { s.salt = base.salt }
                if base.hmacSaltMask != 0x3a { s.hmacSaltMask = base.hmacSaltMask }
            }
            for size in headerSizes {
                s.plaintextHeaderSize = size
                guard s.problem == nil, seen.insert(s).inserted else { continue }
                out.append(s)
            }
        }
        var derivations = standardDerivations
        if let base, !derivations.contains(where: { $0 == (base.kdfAlgorithm, base.kdfIterations) }) {
            derivations.insert((base.kdfAlgorithm, base.kdfIterations), at: 0)
            add(base)
        }
        for version in [4, 3, 2, 1] {
            var s = Self.compatibility(version)
            if let base, !standardDerivations.contains(where: { $0 == (base.kdfAlgorithm, base.kdfIterations) }) {
                s.kdfAlgorithm = base.kdfAlgorithm
                s.kdfIterations = base.kdfIterations
            }
            add(s)
        }
        for (kdf, iterations) in derivations {
            for pageSize in pageSizes {
                for hmac in [Digest.sha512, .sha1, .sha256] {
                    for order in PageNumberOrder.allCases where order != .native {
                        var s = Self.sqlcipher4
                        s.kdfAlgorithm = kdf
                        s.kdfIterations = iterations
                        s.pageSize = pageSize
                        s.hmacAlgorithm = hmac
                        s.hmacPageNumber = order
                        add(s)
                    }
                }
                var s = Self.compatibility(1)
                s.kdfAlgorithm = kdf
                s.kdfIterations = iterations
                s.pageSize = pageSize
                add(s)
            }
        }
        return out
    }
}

private extension String {
    /// Two lower-case hex digits.
    init(format2 byte: UInt8) {
        let digits = Array("0123456789abcdef")
        self = String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
