import ArgumentParser
import DatacenterBrowser
import DatacenterKit
import Foundation

/// Options every command takes: which root, and which keys.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The data-center root folder.",
                                            discussion: "Default: $DATACENTER_ROOT, else $XDG_DATA_HOME/datacenter/Preferences, else $HOME/.local/share/datacenter/Preferences.",
                                            valueName: "path"))
    var root: String?

    @Option(name: .long, help: ArgumentHelp("A 32-byte key: 64 hex digits, base64, or @file. Repeat for older keys, newest first.",
                                            discussion: "$DATACENTER_KEY is tried after the keys given here.",
                                            valueName: "key"))
    var key: [String] = []

    @Option(name: .long, help: ArgumentHelp("The app's key string: the default value key is derived from it, as the original does when the app gives no key of its own.",
                                            discussion: "$DATACENTER_APP_KEY when not given. The derived key is tried after every --key and $DATACENTER_KEY.",
                                            valueName: "string"))
    var appKey: String?

    @Option(name: .customLong("db-key"),
            help: ArgumentHelp("A database key: a passphrase, x'<64 hex digits>' for a raw key (96: a raw key and its salt), or @file. Repeat for older keys, newest first.",
                               discussion: "Opens SQLCipher-encrypted database files, whatever their SQLCipher settings (versions 1 to 4 and the settings apps use are detected), and SQLite3 Multiple Ciphers' (chacha20, aes128cbc, aes256cbc, sqlcipher, rc4). $DATACENTER_DB_KEY is tried after the keys given here.",
                               valueName: "secret"))
    var dbKey: [String] = []

    @Option(name: .customLong("db-cipher"),
            help: ArgumentHelp("A SQLCipher setting of the encrypted database files, in SQLCipher's pragma names: cipher_compatibility=1..4, cipher_page_size=N, kdf_iter=N, cipher_hmac_algorithm=HMAC_SHA1|HMAC_SHA256|HMAC_SHA512, cipher_kdf_algorithm=PBKDF2_HMAC_SHA1|…, cipher_use_hmac=ON|OFF, cipher_hmac_pgno=le|be|native, cipher_plaintext_header_size=N, cipher_salt=x'<32 hex digits>'; or SQLite3 Multiple Ciphers' scheme, first: cipher=chacha20|aes128cbc|aes256cbc|sqlcipher|rc4, then legacy=0|1 (sqlcipher: 0..4), kdf_iter=N, page_size=N, legacy_page_size=N. Repeatable.",
                               discussion: "Only what the key alone cannot find is needed: without it the settings SQLCipher 1 to 4 and apps use are tried. $DATACENTER_DB_CIPHER adds pairs separated by ';' (before these).",
                               valueName: "name=value"))
    var dbCipher: [String] = []

    @Flag(name: .long, help: ArgumentHelp("Say on stderr which database key and SQLCipher settings opened each encrypted file (as pragmas an app would set)."))
    var verbose = false

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for another connection's lock before failing.",
                                            discussion: "Default 5. A long write elsewhere (an import, a rekey, a big dao call) holds the lock; raise this to wait it out.",
                                            valueName: "seconds"))
    var busyTimeout: Double = 5

    func validate() throws {
        guard busyTimeout >= 0, busyTimeout.isFinite else { throw ValidationError("--busy-timeout takes 0 or more seconds") }
    }

    /// The root folder to use.
    var rootPath: String {
        if let root { return expandTilde(root) }
        if let env = ProcessEnvironment.value("DATACENTER_ROOT"), !env.isEmpty { return env }
        return GlobalOptions.defaultFolder("Preferences")
    }

    /// `name` in the data folder (`DataFolder`); when only the folder of before `$HOME` was
    /// followed exists, that one, said once on stderr (a mark in the state folder remembers it).
    static func defaultFolder(_ name: String) -> String {
        let resolved = DataFolder.resolve(name)
        guard resolved.usesOldLocation else { return resolved.path }
        let mark = StateFolder.url()?.appendingPathComponent("old-location-noted-\(name)")
        if let mark, !FileManager.default.fileExists(atPath: mark.path) {
            Output.error("note: using \(resolved.path), where it was before datacenter followed $HOME and $XDG_DATA_HOME; "
                + "the default is now \(resolved.newPath) (move it there to use that; this note is shown once)")
            try? FileManager.default.createDirectory(at: mark.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
            // Best effort: without the mark, the note is shown again next time.
            _ = FileManager.default.createFile(atPath: mark.path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        return resolved.path
    }

    /// The keys from `--key`, then `DATACENTER_KEY`, then the one derived from the app key
    /// (`--app-key`, `DATACENTER_APP_KEY`), newest first.
    func keyRing() throws -> KeyRing { try keys().ring }

    /// `keyRing()`, and the key derived from the app key (the ring's last), when one is given.
    /// Derived once here: 100,000 PBKDF2 rounds, tens of milliseconds.
    func keys() throws -> (ring: KeyRing, appKey: EncryptionKey?) {
        // Each key with where it came from, so a key that does not parse is named by it.
        var texts = key.enumerated().map { (text: $0.element, source: key.count == 1 ? "--key" : "--key #\($0.offset + 1)") }
        if let env = ProcessEnvironment.value("DATACENTER_KEY"), !env.isEmpty { texts.append((env, "$DATACENTER_KEY")) }
        let appKeyText = appKey ?? ProcessEnvironment.value("DATACENTER_APP_KEY")
        let hasAppKey = appKeyText.map { !$0.isEmpty } ?? false
        // Secrets in memory from here on: no core dump may carry them.
        if !texts.isEmpty || hasAppKey { SecretGuard.engage() }
        let ring = KeyRing(try texts.map { text, source in
            do { return try EncryptionKey(parsing: text) } catch let error as CryptError { throw CLIError("\(source): \(error)") }
        })
        guard let appKeyText, hasAppKey else { return (ring, nil) }
        let derived = EncryptionKey.derived(fromAppKey: appKeyText)
        return (KeyRing(ring.keys + [derived]), derived)
    }

    /// The database key texts from `--db-key` then `$DATACENTER_DB_KEY`, newest first, each
    /// `@file` read: passphrases or `x'…'` raw keys, as SQLCipher's `PRAGMA key` takes them.
    func databaseKeyTexts() throws -> [String] {
        if !dbKey.isEmpty || ProcessEnvironment.value("DATACENTER_DB_KEY")?.isEmpty == false { SecretGuard.engage() }
        var texts = try dbKey.map { try GlobalOptions.readSecret($0, option: "--db-key") }
        if let env = ProcessEnvironment.value("DATACENTER_DB_KEY"), !env.isEmpty {
            texts.append(try GlobalOptions.readSecret(env, option: "$DATACENTER_DB_KEY"))
        }
        return texts
    }

    /// The `NAME=VALUE` SQLCipher settings from `$DATACENTER_DB_CIPHER` (pairs separated by
    /// `;`) then `--db-cipher`, in order.
    var databaseCipherPairs: [String] {
        let env = ProcessEnvironment.value("DATACENTER_DB_CIPHER") ?? ""
        let fromEnv = env.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return fromEnv + dbCipher
    }

    /// The SQLCipher settings `--db-cipher` and `$DATACENTER_DB_CIPHER` give, on top of
    /// `base` (SQLCipher 4's defaults), or nil when none is given.
    func databaseCipherSettings(base: DatabaseCipherSettings = .sqlcipher4) throws -> DatabaseCipherSettings? {
        let pairs = databaseCipherPairs
        guard !pairs.isEmpty else { return nil }
        return try GlobalOptions.cipherSettings(base, applying: pairs, option: "--db-cipher")
    }

    /// `base` with the `NAME=VALUE` pairs of `option` applied, or a usage-style error naming it.
    static func cipherSettings(_ base: DatabaseCipherSettings, applying pairs: [String], option: String) throws -> DatabaseCipherSettings {
        do { return try base.applying(pairs) } catch let error as CryptError {
            throw CLIError("\(option): \(CommandLineRunner.describe(error))")
        }
    }

    /// The database keys from `--db-key` then `$DATACENTER_DB_KEY`, newest first: each tried
    /// with the `--db-cipher` settings when given, else in SQLCipher 4's format then SQLCipher
    /// 3's; then detection tries what else real files use (a file's settings are not written
    /// in it). Empty when none is given: files are then opened plain.
    func databaseKeyList() throws -> DatabaseKeyList {
        let texts = try databaseKeyTexts()
        let settings = try databaseCipherSettings()
        do {
            if let settings { return try DatabaseKeyList(sqlcipherKeys: texts, settings: settings) }
            return try DatabaseKeyList(sqlcipherKeys: texts)
        } catch let error as CryptError {
            throw CLIError("--db-key: \(error)")
        }
    }

    /// A secret as given on the command line: the text itself, or with `@path` the content of
    /// that file, one trailing newline dropped (so `echo secret > file` works). Never empty.
    static func readSecret(_ text: String, option: String) throws -> String {
        SecretGuard.engage()
        guard text.hasPrefix("@") else {
            guard !text.isEmpty else { throw CLIError("\(option): a database key cannot be empty") }
            return text
        }
        let path = expandTilde(String(text.dropFirst()))
        let data: Data
        do { data = try RegularFile.contents(atPath: path, limit: 4096) } catch let error as FileAccessError {
            throw CLIError("\(option): cannot read key file \(path): \(error.reason)")
        }
        guard var secret = String(data: data, encoding: .utf8) else {
            throw CLIError("\(option): key file \(path) is not UTF-8 text")
        }
        if secret.hasSuffix("\r\n") { secret.removeLast() } else if secret.hasSuffix("\n") { secret.removeLast() }
        guard !secret.isEmpty else { throw CLIError("\(option): key file \(path) is empty") }
        return secret
    }

    /// Opens the root, its SQLite files with the `--db-key` keys; read-only roots must exist.
    func openDataCenter(readOnly: Bool = false) throws -> DataCenter {
        let keys = try databaseKeyList()
        let center = try DataCenter(rootPath: rootPath, crypt: keyRing(), readOnly: readOnly, busyTimeout: busyTimeout,
                                    databaseKeys: keys)
        if verbose, !keys.isEmpty, let common = center.databaseFilePaths().first,
           let key = try? keys.open(path: common, mode: .readOnly, busyTimeout: busyTimeout).key {
            GlobalOptions.sayHowOpened(common, key: key, keys: keys)
        }
        return center
    }

    /// Opens one SQLite file with the `--db-key` key that fits it (plain when none is given).
    func openDatabase(path: String, mode: Database.OpenMode) throws -> Database {
        let keys = try databaseKeyList()
        let (db, key) = try keys.open(path: path, mode: mode, busyTimeout: busyTimeout)
        if verbose, let key { GlobalOptions.sayHowOpened(path, key: key, keys: keys) }
        return db
    }

    /// `--verbose`: which key and settings opened the encrypted file at `path`, on stderr.
    static func sayHowOpened(_ path: String, key: DatabaseKey, keys: DatabaseKeyList) {
        let number = keys.secretNumber(of: key).map { " #\($0)" } ?? ""
        Output.error("\(Output.safe(path, limit: 200)): opened with database key\(number); settings: \(key.settings.pragmaStatements)")
    }
}

/// Expands a leading `~/` to the home folder.
func expandTilde(_ path: String) -> String {
    path.hasPrefix("~/") ? DataFolder.home() + String(path.dropFirst(1)) : path
}

/// Selects the store a KV command works on: the common store, or a user's.
struct StoreSelection: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Work on this user's store instead of the common store.", valueName: "id"))
    var user: String?

    /// Opens the root (read-only when `readOnly`) and the selected store. A `--user` that is
    /// not one of the root's users is refused before anything is created, unless `create`
    /// (a write's `--create`; nil for a command without one) lets the command create it.
    func openStore(_ global: GlobalOptions, readOnly: Bool, create: Bool? = nil) throws -> KVStore {
        if let user, !readOnly { try KnownUser.requireBeforeWriting(user, global, create: create) }
        let center = try global.openDataCenter(readOnly: readOnly)
        guard let user else { return try center.commonPreferences }
        if readOnly { try KnownUser.require(user, in: center, create: nil) }
        return try center.preferences(forUser: user)
    }
}

/// A command given a user ID that is not one of the root's users creates nothing: a
/// mistyped `--user` or `users switch` must not leave a new store in the app's folder.
enum KnownUser {
    /// The help of a write's `--create`.
    static let createHelp: ArgumentHelp = "Create the user's store when the user has none yet."

    /// Throws, naming the root's users, when `id` has no store under `center`'s root and is
    /// not its current user. `create` is nil for a command that only reads (the error then
    /// does not offer `--create`), else the command's `--create`, which lets it through.
    static func require(_ id: String, in center: DataCenter, create: Bool?) throws {
        try require(id, users: center.users(), current: center.currentUserId, root: center.rootPath, create: create)
    }

    /// `require`, checked before a command that writes opens the root (which would create
    /// the root's folder): a root that does not exist yet has no users.
    static func requireBeforeWriting(_ id: String, _ global: GlobalOptions, create: Bool?) throws {
        guard create != true else { return }
        guard FileManager.default.fileExists(atPath: global.rootPath) else {
            return try require(id, users: [], current: nil, root: global.rootPath, create: create)
        }
        try require(id, in: global.openDataCenter(readOnly: true), create: create)
    }

    private static func require(_ id: String, users: [String], current: String?, root: String, create: Bool?) throws {
        guard !users.contains(id), id != current, create != true else { return }
        let listed = users.isEmpty ? "it has no users" : "its users: " + users.map { Output.safe($0) }.joined(separator: ", ")
        let offer = create == nil ? "" : "; give --create to create its store"
        throw CLIError("no user '\(Output.safe(id))' under \(root) (\(listed))\(offer)")
    }
}
