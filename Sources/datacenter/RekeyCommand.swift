import ArgumentParser
import DatacenterDAO
import DatacenterKit
import Foundation

/// `datacenter rekey --from OLD --to NEW`: re-encrypt everything a root holds under its
/// default key — KV values, DAO crypt columns, encrypted disk caches, file and object
/// services — in every store (common, users, version storage, cache files, custom storages).
struct RekeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Re-encrypt everything stored under the default key with a new key.",
        discussion: """
            KV values, DAO crypt columns, encrypted disk caches and encrypted file and object services, in every \
            store of the root (common, every user, the version storage, the cache files, custom storages kept under \
            the root and those given with --storage). Each store is rewritten in one transaction: it moves entirely \
            to the new key or is left as it was. Values already under the new key are skipped, so a rerun finishes \
            an interrupted rekey. Values encrypted with a custom crypt are left alone. KV values are rewritten bound \
            to their business and key, which upgrades values written before binding: --to may be the current key.
            """)

    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: ArgumentHelp("A key the values are encrypted with now (repeatable; --key and DATACENTER_KEY count too).", valueName: "key"))
    var from: [String] = []
    @Option(name: .long, help: ArgumentHelp("The new key.", valueName: "key")) var to: String
    @Option(name: .long, help: ArgumentHelp("A custom storage's folder outside the root to re-encrypt too (repeatable).", valueName: "path"))
    var storage: [String] = []
    @Flag(help: "Print the summary as JSON: {\"moved\",\"alreadyDone\",\"failed\",\"stores\":[{\"name\",\"path\",\"moved\",\"alreadyDone\",\"error\",\"kinds\":[…]}]}.")
    var json = false

    func run() throws {
        let rootPath = global.rootPath
        let old: KeyRing
        let new: EncryptionKey
        do {
            old = KeyRing(try KeyRing(parsing: from).keys + global.keyRing().keys)
            new = try EncryptionKey(parsing: to)
        } catch let error as CLIError { throw error } catch { throw CLIError(CommandLineRunner.describe(error)) }
        if old.isEmpty { throw CLIError("give the current key with --from (or --key, or DATACENTER_KEY)") }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: rootPath, isDirectory: &isFolder), isFolder.boolValue else {
            throw CLIError("no data-center root at \(rootPath)")
        }
        for folder in storage {
            guard FileManager.default.fileExists(atPath: expandTilde(folder), isDirectory: &isFolder), isFolder.boolValue else {
                throw CLIError("\(folder): no such folder (--storage takes a custom storage's folder)")
            }
        }
        let databaseKeys = try global.databaseKeyList()
        let bar = ProgressBar(json: json)
        let summary = DataCenter.rekey(rootPath: rootPath, from: old, to: new, customStorages: storage.map(expandTilde),
                                       passes: [DAOCryptColumnsRekey()], busyTimeout: global.busyTimeout,
                                       databaseKeys: databaseKeys) { progress in
            // A big store takes a while: the values looked at so far show it is moving.
            let label = progress.values > 0 ? "\(progress.store) (\(progress.values) values)" : progress.store
            bar.show(label, fraction: progress.fraction, labelWidth: 36)
        }
        bar.clear()
        for store in summary.failed {
            Output.error("error: \(Output.safe(store.name, limit: 200)) (\(Output.safe(store.path, limit: 400))): "
                         + "\(Output.safe(store.error ?? "", limit: 400)) — this store was left unchanged")
        }
        if json {
            try Output.json(Self.jsonObject(summary))
        } else {
            Self.printSummary(summary)
        }
        if !summary.failed.isEmpty { throw ExitCode(1) }
    }

    /// The summary as `--json` prints it (docs/CLI.md, `rekey`).
    static func jsonObject(_ summary: RekeySummary) -> [String: Any] {
        [
            "moved": summary.moved, "alreadyDone": summary.alreadyDone, "failed": summary.failed.count,
            "stores": summary.stores.map { store -> [String: Any] in
                [
                    "name": store.name, "path": store.path, "moved": store.moved, "alreadyDone": store.alreadyDone,
                    "error": store.error ?? NSNull(),
                    "kinds": store.tallies.map { tally -> [String: Any] in
                        ["kind": tally.kind, "name": tally.name ?? NSNull(), "moved": tally.moved, "alreadyDone": tally.alreadyDone]
                    },
                ]
            },
        ]
    }

    /// One line per store (`<store>: N value(s) re-encrypted[, M already under the new key]`),
    /// one indented line per kind under it, and a last line with the totals.
    static func printSummary(_ summary: RekeySummary) {
        func counts(_ moved: Int, _ done: Int) -> String {
            "\(moved) value(s) re-encrypted" + (done > 0 ? ", \(done) already under the new key" : "")
        }
        for store in summary.stores {
            let name = Output.safe(store.name, limit: 200)
            if store.error != nil {
                Output.line("\(name): failed, left unchanged")
                continue
            }
            guard !store.tallies.isEmpty else {
                Output.line("\(name): nothing encrypted with the default key")
                continue
            }
            Output.line("\(name): \(counts(store.moved, store.alreadyDone))")
            for tally in store.tallies { Output.line("  \(Output.safe(tally.label, limit: 200)): \(counts(tally.moved, tally.alreadyDone))") }
        }
        let stores = summary.stores.count
        if !summary.failed.isEmpty {
            Output.line("total: \(counts(summary.moved, summary.alreadyDone)) in \(stores - summary.failed.count) store(s); "
                        + "\(summary.failed.count) store(s) failed and were left unchanged")
        } else if summary.wasAlreadyDone {
            Output.line("nothing to do: every value is under the new key already (\(summary.alreadyDone) value(s) in \(stores) store(s))")
        } else {
            Output.line("total: \(counts(summary.moved, summary.alreadyDone)) in \(stores) store(s)")
        }
    }
}
