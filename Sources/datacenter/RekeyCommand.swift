import ArgumentParser
import DatacenterKit
import Foundation

/// `datacenter rekey --from OLD --to NEW`: re-encrypt every store of a root.
struct RekeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Re-encrypt every value stored with the default key under a new key.",
        discussion: "Each store (common, every user, the version storage) is rewritten in one transaction: a store either moves entirely to the new key or is left as it was. Values encrypted with a custom crypt are left alone. Every value is rewritten bound to its business and key, which upgrades values written before binding: --to may be the current key.")

    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: ArgumentHelp("A key the values are encrypted with now (repeatable; --key and DATACENTER_KEY count too).", valueName: "key"))
    var from: [String] = []
    @Option(name: .long, help: ArgumentHelp("The new key.", valueName: "key")) var to: String

    func run() throws {
        let rootPath = global.rootPath
        let old: KeyRing
        let new: EncryptionKey
        do {
            old = KeyRing(try KeyRing(parsing: from).keys + global.keyRing().keys)
            new = try EncryptionKey(parsing: to)
        } catch let error as CLIError { throw error } catch { throw CLIError(CommandLineRunner.describe(error)) }
        if old.isEmpty { throw CLIError("give the current key with --from (or --key, or DATACENTER_KEY)") }
        guard FileManager.default.fileExists(atPath: rootPath) else { throw CLIError("no data-center root at \(rootPath)") }
        let center = try DataCenter(rootPath: rootPath, crypt: old, readOnly: false, busyTimeout: global.busyTimeout)
        var stores: [(String, KVStore)] = [("common", try center.commonPreferences)]
        for user in center.users() { stores.append(("user \(user)", try center.preferences(forUser: user))) }
        if FileManager.default.fileExists(atPath: rootPath + "/version/common.sqlite") {
            stores.append(("version storage", try center.currentVersionStorage.commonPreferences.store))
        }
        var failed = false
        for (name, store) in stores {
            do {
                let count = try store.reencryptDefaultEncryptedValues(with: AESGCMCrypt(key: new))
                Output.line("\(name): \(count) value(s) re-encrypted")
            } catch {
                failed = true
                Output.error("error: \(name): \(error) — this store was left unchanged")
            }
        }
        if failed { throw ExitCode(1) }
    }
}
