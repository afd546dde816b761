import ArgumentParser
import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation

/// `datacenter demo [PATH]`: build the demo root.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Build a demo data-center root with every kind of value.",
        discussion: ExitStatusHelp.discussion("""
            Two users (alice, current, and bob@example.com), the common store and a version storage; \
            businesses holding every value type; some values encrypted with the demo key \
            \(DemoStore.keyHex) (pass it with --key to decrypt them), one with an unpublished custom key \
            (shown as locked), and purgeable values. With --encrypt-db, every SQLite file of the root is \
            encrypted (SQLCipher 4) with the demo database passphrase \(DemoStore.databasePassphrase) \
            (open it with --db-key \(DemoStore.databasePassphrase)).
            """))

    /// Where `demo` builds by default: `demo` in the data folder (`$XDG_DATA_HOME/datacenter`,
    /// else `$HOME/.local/share/datacenter`), always. The folder of before `$HOME` was
    /// followed is for reading what is there (`browse` opens a demo found only there); a new
    /// demo goes where the data folder is now, so a `HOME` of its own (a test's, a sandbox's)
    /// never builds into, or is refused by, the demo of the user's passwd home.
    static var defaultPath: String { DataFolder.path() + "/demo" }

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("Where to build it (default: --root if given, else $XDG_DATA_HOME/datacenter/demo, else $HOME/.local/share/datacenter/demo).", valueName: "path"))
    var path: String?
    @Flag(help: "Replace an existing demo at that path.") var force = false
    @Flag(name: .customLong("encrypt-db"),
          help: "Encrypt every SQLite file of the demo (SQLCipher 4) with the published demo database passphrase.")
    var encryptDatabases = false

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
                try FileTree.remove(atPath: target)
            }
        }
        try DemoCommand.buildDemo(at: target, databaseKeys: encryptDatabases ? DemoStore.databaseKeys : .empty)
        Output.line("demo built at \(target)")
        if encryptDatabases {
            Output.line("its databases are encrypted (SQLCipher 4): open them with --db-key \(DemoStore.databasePassphrase)")
        }
        Output.line("decrypt its values with --key \(DemoStore.keyHex)")
    }
}

extension DemoCommand {
    /// Builds the whole demo at `target`: stores, caches, purgeable folder and DAO tables.
    /// Paths are recorded absolute (the DAO panel finds its configs from any folder), and
    /// every store is checkpointed, so each `.sqlite` file holds all its data on its own
    /// (copying one file copies its data; the `-wal` files are left empty). With
    /// `databaseKeys`, every SQLite file is encrypted with them.
    static func buildDemo(at target: String, databaseKeys: DatabaseKeyList = .empty) throws {
        let root = URL(fileURLWithPath: target).standardizedFileURL.path
        try DemoStore.build(at: root, databaseKeys: databaseKeys)
        try DAODemo.build(in: DataCenter(rootPath: root, crypt: KeyRing([DemoStore.key]), databaseKeys: databaseKeys))
        try checkpointStores(under: root, databaseKeys: databaseKeys)
    }

    /// Folds the write-ahead log of every `.sqlite` file under `root` into the file, each
    /// opened with whichever of `databaseKeys` fits (none: plain files).
    static func checkpointStores(under root: String, databaseKeys: DatabaseKeyList = .empty) throws {
        guard let files = FileManager.default.enumerator(atPath: root) else { return }
        for case let file as String in files where file.hasSuffix(".sqlite") {
            let (db, _) = try databaseKeys.open(path: root + "/" + file, mode: .readWriteExisting)
            _ = try db.scalar("PRAGMA wal_checkpoint(TRUNCATE)", cached: false)
        }
    }
}
