import ArgumentParser
import DatacenterDAO
import DatacenterKit
import Foundation

/// `datacenter demo [PATH]`: build the demo root.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Build a demo data-center root with every kind of value.",
        discussion: """
            Two users (alice, current, and bob@example.com), the common store and a version storage; \
            businesses holding every value type; some values encrypted with the demo key \
            \(DemoStore.keyHex) (pass it with --key to decrypt them), one with an unpublished custom key \
            (shown as locked), and purgeable values.
            """)

    static var defaultPath: String {
        FileManager.default.homeDirectoryForCurrentUser.path + "/.local/share/datacenter/demo"
    }

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("Where to build it (default: --root if given, else ~/.local/share/datacenter/demo).", valueName: "path"))
    var path: String?
    @Flag(help: "Replace an existing demo at that path.") var force = false

    func run() throws {
        let target = expandTilde(path ?? global.root ?? Self.defaultPath)
        let fm = FileManager.default
        if fm.fileExists(atPath: target) {
            let contents = (try? fm.contentsOfDirectory(atPath: target)) ?? []
            if !contents.isEmpty {
                guard force else { throw CLIError("\(target) exists and is not empty (use --force to replace it)") }
                guard fm.fileExists(atPath: target + "/datacenter.json") else {
                    throw CLIError("\(target) is not a data-center root; refusing to delete it")
                }
                try fm.removeItem(atPath: target)
            }
        }
        try DemoCommand.buildDemo(at: target)
        Output.line("demo built at \(target)")
        Output.line("decrypt its values with --key \(DemoStore.keyHex)")
    }
}

extension DemoCommand {
    /// Builds the whole demo at `target`: stores, caches, purgeable folder and DAO tables.
    /// Paths are recorded absolute (the DAO panel finds its configs from any folder), and
    /// every store is checkpointed, so each `.sqlite` file holds all its data on its own
    /// (copying one file copies its data; the `-wal` files are left empty).
    static func buildDemo(at target: String) throws {
        let root = URL(fileURLWithPath: target).standardizedFileURL.path
        try DemoStore.build(at: root)
        try DAODemo.build(in: DataCenter(rootPath: root, crypt: KeyRing([DemoStore.key])))
        try checkpointStores(under: root)
    }

    /// Folds the write-ahead log of every `.sqlite` file under `root` into the file.
    static func checkpointStores(under root: String) throws {
        guard let files = FileManager.default.enumerator(atPath: root) else { return }
        for case let file as String in files where file.hasSuffix(".sqlite") {
            let db = try Database(path: root + "/" + file, mode: .readWriteExisting)
            _ = try db.scalar("PRAGMA wal_checkpoint(TRUNCATE)", cached: false)
        }
    }
}

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
