import ArgumentParser
import DatacenterKit
import Foundation

/// `datacenter db`: whole database files, plaintext or encrypted in SQLCipher's format.
struct DBCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Encrypt, decrypt, rekey and inspect whole SQLite database files (SQLCipher's format, any settings).",
        discussion: ExitStatusHelp.discussion("""
            Database keys come from --db-key (repeatable, newest first; @file reads the secret from a file) then $DATACENTER_DB_KEY. \
            A key is a passphrase, x'<64 hex digits>' for a raw key, or x'<96 hex digits>' for a raw key and its salt. A file's \
            SQLCipher settings are found from the key (SQLCipher 1 to 4 and the settings apps use); give what cannot be found \
            (a custom kdf_iter, a salt kept outside the file) with --db-cipher NAME=VALUE. The new file is written beside its \
            destination, checked, synced and renamed into place: an interrupted command leaves the old file, never half a new one.
            """),
        subcommands: [Encrypt.self, Decrypt.self, Rekey.self, Info.self])

    /// `--compat 4|3|2|1`: the SQLCipher version whose defaults the file written gets
    /// (`cipher_compatibility`), before any setting named on top.
    struct Compatibility: ParsableArguments {
        @Option(name: .long, help: ArgumentHelp("The SQLCipher version whose settings the written file gets: 4 (default), or 3, 2, 1 for apps on older SQLCipher (cipher_compatibility).", valueName: "4|3|2|1"))
        var compat: Int = 4

        func validate() throws {
            guard (1...4).contains(compat) else { throw ValidationError("--compat takes 4, 3, 2 or 1") }
        }

        var settings: DatabaseCipherSettings { .compatibility(compat) }
    }

    struct Encrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "encrypt",
            abstract: "Encrypt the plain database IN into the new file OUT with the newest --db-key.",
            discussion: ExitStatusHelp.discussion())
        @OptionGroup var global: GlobalOptions
        @OptionGroup var compatibility: Compatibility
        @Argument(help: "The plain SQLite database.") var input: String
        @Argument(help: "The encrypted database to create (must not exist).") var output: String

        func run() throws {
            let (input, output) = (expandTilde(self.input), expandTilde(self.output))
            guard let text = try global.databaseKeyTexts().first else {
                throw CLIError("encrypting needs a database key: pass --db-key or set DATACENTER_DB_KEY")
            }
            // The plain input needs no settings: --db-cipher shapes the file written.
            let settings = try global.databaseCipherSettings(base: compatibility.settings) ?? compatibility.settings
            let key = try DBCommand.key(text, settings: settings, option: "--db-key")
            DBCommand.warnIfSQLCipherCannotRead(settings)
            switch try DBCommand.kind(of: input) {
            case .plain: break
            case .encryptedOrNotADatabase:
                throw CLIError("\(input): encrypted already, or not a database: use db rekey to change its key, db decrypt to decrypt it")
            default: break
            }
            let summary = try DBCommand.converting(output) { progress in
                try DatabaseFileConversion.encrypt(from: input, to: output, key: key, busyTimeout: global.busyTimeout, progress: progress)
            }
            Output.line("\(output): encrypted (\(DBCommand.settingsName(key.settings))); \(DBCommand.describe(summary))")
        }
    }

    struct Decrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decrypt",
            abstract: "Decrypt the encrypted database IN, opened with a --db-key, into the new plain file OUT.",
            discussion: ExitStatusHelp.discussion())
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The encrypted database.") var input: String
        @Argument(help: "The plain database to create (must not exist).") var output: String

        func run() throws {
            let (input, output) = (expandTilde(self.input), expandTilde(self.output))
            let keys = try global.databaseKeyList()
            if try DBCommand.kind(of: input) == .plain { throw CLIError("\(input): plain SQLite database: nothing to decrypt") }
            if keys.isEmpty { throw CLIError("\(input): encrypted database: pass --db-key") }
            let summary = try DBCommand.converting(output) { progress in
                try DatabaseFileConversion.decrypt(from: input, keys: keys, to: output, busyTimeout: global.busyTimeout, progress: progress)
            }
            Output.line("\(output): decrypted from \(DBCommand.settingsName(summary.sourceKey?.settings)); \(DBCommand.describe(summary))")
        }
    }

    struct Rekey: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rekey",
            abstract: "Re-encrypt the database FILE, opened with a --db-key, with the key NEW, in place.",
            discussion: ExitStatusHelp.discussion("FILE must not be in use: close the apps that have it open. After an interruption FILE opens with the old key or the new one; run the command again with both to finish."))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var compatibility: Compatibility
        @Argument(help: "The encrypted database.") var file: String
        @Option(name: .long, help: ArgumentHelp("The new key: a passphrase, x'<64 hex digits>', or @file.", valueName: "secret"))
        var to: String
        @Option(name: .customLong("to-cipher"),
                help: ArgumentHelp("A SQLCipher setting of the rekeyed file, as --db-cipher names them (which describe the file as it is). Repeatable; applied on top of --compat.",
                                   valueName: "name=value"))
        var toCipher: [String] = []

        func run() throws {
            let file = expandTilde(self.file)
            let settings = try GlobalOptions.cipherSettings(compatibility.settings, applying: toCipher, option: "--to-cipher")
            let newKey = try DBCommand.key(try GlobalOptions.readSecret(to, option: "--to"), settings: settings, option: "--to")
            DBCommand.warnIfSQLCipherCannotRead(settings)
            let keys = try global.databaseKeyList()
            switch try DBCommand.kind(of: file) {
            case .plain: throw CLIError("\(file): plain SQLite database: nothing to rekey (use db encrypt)")
            case .encryptedOrNotADatabase: if keys.isEmpty { throw CLIError("\(file): encrypted database: pass --db-key (its current key)") }
            default: break
            }
            let summary = try DBCommand.converting(file) { progress in
                try DatabaseFileConversion.rekey(path: file, keys: keys, to: newKey, busyTimeout: global.busyTimeout, progress: progress)
            }
            Output.line("\(file): rekeyed from \(DBCommand.settingsName(summary.sourceKey?.settings)) to \(DBCommand.settingsName(newKey.settings)); \(DBCommand.describe(summary))")
        }
    }

    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "Tell whether FILE is plain, encrypted (which format, which --db-key), empty, missing or not a database.",
            discussion: ExitStatusHelp.discussion())
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The database file.") var file: String
        @Flag(name: .long, help: "One JSON object on stdout.") var json = false

        func run() throws {
            let file = expandTilde(self.file)
            let keys = try global.databaseKeyList()
            let info: DatabaseFileInfo
            do { info = try DatabaseFileInfo.of(path: file, keys: keys) } catch let error as FileAccessError {
                throw CLIError(error.description)
            }
            var object: [String: Any] = [
                "path": file, "fileSize": info.fileSize,
                "pageSize": info.pageSize ?? NSNull(), "pageCount": info.pageCount ?? NSNull(),
                "journalMode": info.journalMode ?? NSNull(),
                "format": NSNull(), "key": NSNull(), "keyKind": NSNull(), "settings": NSNull(), "reason": NSNull(),
            ]
            let text: String
            switch info.state {
            case .missing: (object["state"], text) = ("missing", "no such file")
            case .empty: (object["state"], text) = ("empty", "an empty file (a database not written yet)")
            case .plain: (object["state"], text) = ("plain", "plain SQLite database")
            case .encryptedOrNotADatabase:
                (object["state"], text) = ("encryptedOrNotADatabase", "encrypted, or not a database (pass --db-key to tell)")
            case .damaged(let reason):
                (object["state"], text) = ("damaged", "damaged: \(reason)")
                object["reason"] = reason
            case .foreignJournal(let reason):
                (object["state"], text) = ("foreignJournal", reason)
                object["reason"] = reason
            case .wrongKey:
                (object["state"], text) = ("wrongKey", info.problem ?? "wrong key or not an encrypted database (no --db-key given opens it)")
                object["reason"] = info.problem ?? "no --db-key given opens it"
            case .encrypted(let key, let index):
                let kind: String
                if case .raw = key.secret { kind = "raw" } else { kind = "passphrase" }
                let number = keys.secretNumber(of: key) ?? index + 1
                object["state"] = "encrypted"
                object["format"] = key.settings.formatName
                object["settings"] = DBCommand.settingsObject(key.settings)
                object["key"] = number
                object["keyKind"] = kind
                text = "encrypted, \(DBCommand.settingsName(key.settings)), opened by database key #\(number) (\(kind == "raw" ? "raw key" : "passphrase"))"
                    + "\nsettings: " + key.settings.pragmaStatements
            }
            if json {
                try Output.json(object)
                return
            }
            Output.line("\(Output.safe(file, limit: 200)): \(text)")
            if let pageSize = info.pageSize, let pageCount = info.pageCount {
                Output.line("page size \(pageSize), \(pageCount) pages, journal mode \(info.journalMode ?? "?"), \(info.fileSize) bytes")
            }
        }
    }

    // MARK: Shared

    /// Warns that `cipher=sqlcipher` (SQLite3 Multiple Ciphers' non-legacy mode) writes what
    /// SQLCipher itself does not read, and how to write SQLCipher's own format instead.
    static func warnIfSQLCipherCannotRead(_ settings: DatabaseCipherSettings) {
        guard settings.scheme == .sqlite3mcSQLCipher else { return }
        Output.error("warning: cipher=sqlcipher writes SQLite3 Multiple Ciphers' non-legacy sqlcipher scheme (page 1's bytes 16–23 "
            + "in the clear), which SQLCipher itself does not read; add --db-cipher legacy=4 (or leave cipher= out) for SQLCipher 4's format")
    }

    /// A key from its text, with `settings`, or a usage-style error naming the option.
    static func key(_ text: String, settings: DatabaseCipherSettings, option: String) throws -> DatabaseKey {
        do { return try DatabaseKey(sqlcipherKey: text, settings: settings) } catch {
            throw CLIError("\(option): \(CommandLineRunner.describe(error))")
        }
    }

    /// What is at `path`, with file errors in plain words.
    static func kind(of path: String) throws -> DatabaseFileKind {
        do {
            let kind = try DatabaseFileKind.of(path: path)
            switch kind {
            case .missing: throw CLIError("\(path): no such file")
            case .empty: throw CLIError("\(path): an empty file, not a database")
            default: return kind
            }
        } catch let error as FileAccessError {
            throw CLIError(error.description)
        }
    }

    /// Runs a conversion, with a progress line on stderr when it is a terminal, and turns
    /// its errors into messages naming the file.
    static func converting(_ target: String,
                           _ body: (_ progress: ((DatabaseFileConversion.Step) -> Void)?) throws -> DatabaseFileConversion.Summary) throws
        -> DatabaseFileConversion.Summary {
        let terminal = isatty(2) == 1
        var shown = false
        let progress: ((DatabaseFileConversion.Step) -> Void)? = terminal ? { step in
            let text: String
            switch step {
            case .copying(let table, let index, let count): text = "copying \(Output.safe(table, limit: 40)) (table \(index) of \(count))"
            case .verifying: text = "checking the new file"
            case .finishing: text = "syncing and renaming into place"
            }
            FileHandle.standardError.write(Data("\r\u{1b}[K\(text)".utf8))
            shown = true
        } : nil
        defer { if shown { FileHandle.standardError.write(Data("\r\u{1b}[K".utf8)) } }
        do {
            return try body(progress)
        } catch let error as DatabaseError where error.keyProblem != nil {
            let path = error.path ?? target
            switch error.keyProblem {
            // Our own words: what was tried, and what to give.
            case .wrongKey?: throw CLIError("\(path): \(error.message)")
            case .missingKey?: throw CLIError("\(path): encrypted database: pass --db-key")
            default: throw CLIError("\(path): plain SQLite database, not encrypted")
            }
        } catch let error as DatabaseConversionError {
            throw CLIError(error.description)
        }
    }

    /// The settings' name (`SQLCipher 4`, `custom SQLCipher settings`), or "plain" for none.
    static func settingsName(_ settings: DatabaseCipherSettings?) -> String { settings?.name ?? "plain" }

    /// Every setting, in SQLCipher's pragma names, for `db info --json`: numbers as numbers,
    /// the rest as SQLCipher prints them.
    static func settingsObject(_ settings: DatabaseCipherSettings) -> [String: Any] {
        if settings.scheme.isSQLite3MultipleCiphers {
            // SQLite3MC's own setting names, as its pragmas and URI parameters take them.
            var object: [String: Any] = ["cipher": settings.scheme.cipherName, "legacy": settings.legacy ? 1 : 0,
                                         settings.legacy ? "legacy_page_size" : "page_size": settings.pageSize]
            switch settings.scheme {
            case .chacha20: object["kdf_iter"] = settings.kdfIterations
            case .sqlite3mcSQLCipher:
                object["kdf_iter"] = settings.kdfIterations
                object["kdf_algorithm"] = settings.kdfAlgorithm.sqlite3mcNumber
                object["hmac_algorithm"] = settings.hmacAlgorithm.sqlite3mcNumber
                object["hmac_use"] = settings.usesHMAC ? 1 : 0
                object["hmac_pgno"] = Int(settings.hmacPageNumber.rawValue)
                object["hmac_salt_mask"] = Int(settings.hmacSaltMask)
            default: break
            }
            return object
        }
        var object: [String: Any] = [
            "cipher_page_size": settings.pageSize, "kdf_iter": settings.kdfIterations,
            "cipher_hmac_algorithm": "HMAC_\(settings.hmacAlgorithm.name)", "cipher_kdf_algorithm": "PBKDF2_HMAC_\(settings.kdfAlgorithm.name)",
            "cipher_use_hmac": settings.usesHMAC, "cipher_hmac_pgno": settings.hmacPageNumber.name,
            "cipher_plaintext_header_size": settings.plaintextHeaderSize,
        ]
        if let version = settings.compatibilityVersion { object["cipher_compatibility"] = version }
        if let salt = settings.saltLiteral { object["cipher_salt"] = salt }
        return object
    }

    static func describe(_ summary: DatabaseFileConversion.Summary) -> String {
        "\(summary.tables) table(s), \(summary.rows) row(s), \(summary.bytes) bytes"
    }
}
