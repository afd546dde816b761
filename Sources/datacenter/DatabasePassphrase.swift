import DatacenterKit
import Foundation

/// The browser's way into an encrypted database given no `--db-key`: on a terminal it asks
/// for the passphrase without echo (as `sqlcipher` users type `PRAGMA key`); elsewhere it
/// says which option to pass, rather than showing an encrypted file as damaged.
enum DatabasePassphrase {
    /// How many passphrases are tried before giving up.
    static let attempts = 3

    /// Reads one line of `NAME=VALUE` settings separated by `;` from the terminal, applied on
    /// top of `base` (SQLCipher 4's defaults when nil); nil when none was given or it did not
    /// parse (the problem is said).
    static func askSettings(on base: DatabaseCipherSettings?) -> DatabaseCipherSettings? {
        Output.error("Settings the app sets, as NAME=VALUE separated by ';' (e.g. kdf_iter=12345; cipher_salt=x'…'), or Enter for none:")
        guard let line = readLine(), !line.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        do {
            return try (base ?? .sqlcipher4).applying(line.split(separator: ";").map(String.init))
        } catch {
            Output.error("\(CommandLineRunner.describe(error)); settings unchanged")
            return nil
        }
    }

    /// The encrypted file `target` is or starts with — the file itself, or a root's common
    /// store — or nil when it is plain, missing or a root without one.
    static func encryptedFile(at target: String) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory) else { return nil }
        let file = isDirectory.boolValue ? target + "/common.sqlite" : target
        return (try? DatabaseFileKind.of(path: file)) == .encryptedOrNotADatabase ? file : nil
    }

    /// Asks for the passphrase of `file` until one opens it, and returns it as a key list.
    /// - throws: `CLIError` with no terminal to ask on, when the user cancels, or after
    ///   `attempts` wrong passphrases.
    /// - parameter shown: the root or file the prompt names.
    ///
    /// A passphrase is tried with `settings` (`--db-cipher`) when given, and the settings real
    /// files use are detected. When none opens the file, the prompt also asks for settings
    /// that cannot be found in a file (NAME=VALUE pairs in SQLCipher's pragma names, separated
    /// by `;`: a custom kdf_iter, the salt of a file whose header is in plaintext).
    static func ask(for file: String, shownAs shown: String, settings given: DatabaseCipherSettings? = nil) throws -> DatabaseKeyList {
        let name = (shown as NSString).lastPathComponent
        guard isatty(0) == 1, isatty(1) == 1 else {
            throw CLIError("\(file) is not a SQLite database, or it is encrypted: pass --db-key SECRET (or set DATACENTER_DB_KEY)")
        }
        SecretGuard.engage()
        var settings = given
        var attempt = 0
        while attempt < attempts {
            switch PassphrasePrompt.ask("Database passphrase for \(name) (Esc cancels): ") {
            case nil:
                throw CLIError("\(file): encrypted database: pass --db-key (no terminal to ask the passphrase on)")
            case .cancelled?:
                throw CLIError("no passphrase given: \(file) was not opened")
            case .entered(let text)?:
                guard !text.isEmpty else {
                    // An empty line: the settings a key alone cannot find, asked for in the
                    // clear (they are no secret), then the passphrase again.
                    settings = askSettings(on: settings) ?? settings
                    continue
                }
                attempt += 1
                let keys: DatabaseKeyList
                do {
                    keys = try settings.map { try DatabaseKeyList(sqlcipherKeys: [text], settings: $0) } ?? DatabaseKeyList(sqlcipherKeys: [text])
                } catch {
                    Output.error("\(error)")
                    continue
                }
                Output.error("checking the passphrase (SQLCipher 4, then the settings of versions 3 to 1 and apps)…")
                do {
                    let found = try keys.open(path: file, mode: .readOnly).key
                    return DatabaseKeyList((found.map { [$0] } ?? []) + keys.keys)
                } catch let error as DatabaseError where error.keyProblem == .wrongKey {
                    if attempt < attempts {
                        Output.error("wrong passphrase; try again (tried SQLCipher 4, 3, 2 and 1 settings, page sizes 512–65536), "
                            + "or press Enter on an empty line to give settings the app sets, such as kdf_iter or cipher_salt")
                    }
                }
            }
        }
        throw CLIError("\(file): wrong key or not an encrypted database (\(attempts) passphrases tried)")
    }
}
