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
        discussion: ExitStatusHelp.discussion("""
            KV values, DAO crypt columns, encrypted disk caches and encrypted file and object services, in every \
            store of the root (common, every user, the version storage, the cache files, custom storages kept under \
            the root and those given with --storage). Each store is rewritten in one transaction: it moves entirely \
            to the new key or is left as it was. Values already under the new key are skipped, so a rerun finishes \
            an interrupted rekey. Values encrypted with a custom crypt are left alone. KV values are rewritten bound \
            to their business and key, which upgrades values written before binding: --to may be the current key.
            """))

    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: ArgumentHelp("A key the values are encrypted with now (repeatable; --key and DATACENTER_KEY count too).", valueName: "key"))
    var from: [String] = []
    @Option(name: .long, help: ArgumentHelp("The new value key.", valueName: "key")) var to: String?
    @Option(name: .customLong("to-db-key"),
            help: ArgumentHelp("The new database key of every SQLite file of the root (a passphrase, x'…' or @file); --db-key gives the current ones.",
                               discussion: "Plain files are encrypted, encrypted ones rekeyed, files already under it left alone; datacenter.json then records the format.",
                               valueName: "secret"))
    var toDbKey: String?
    @Option(name: .customLong("db-compat"), help: ArgumentHelp("The SQLCipher format of --to-db-key: 4 (default) or 3.", valueName: "4|3"))
    var dbCompat: Int = 4
    @Option(name: .long, help: ArgumentHelp("A custom storage's folder outside the root to re-encrypt too (repeatable).", valueName: "path"))
    var storage: [String] = []
    @Flag(help: "Print the summary as JSON: {\"moved\",\"alreadyDone\",\"failed\",\"stores\":[{\"name\",\"path\",\"moved\",\"alreadyDone\",\"error\",\"kinds\":[…]}]}.")
    var json = false

    func validate() throws {
        guard to != nil || toDbKey != nil else {
            throw ValidationError("give --to NEW (the value key) or --to-db-key NEW (the database key), or both")
        }
        guard [3, 4].contains(dbCompat) else { throw ValidationError("--db-compat takes 4 or 3") }
    }

    func run() throws {
        SecretGuard.engage()   // old and new keys are secrets
        let rootPath = global.rootPath
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: rootPath, isDirectory: &isFolder), isFolder.boolValue else {
            throw CLIError("no data-center root at \(rootPath)")
        }
        for folder in storage {
            guard FileManager.default.fileExists(atPath: expandTilde(folder), isDirectory: &isFolder), isFolder.boolValue else {
                throw CLIError("\(folder): no such folder (--storage takes a custom storage's folder)")
            }
        }
        var databaseKeys = try global.databaseKeyList()
        var output: [String: Any] = [:]
        var failed = false
        if let toDbKey {
            let results = try rekeyDatabases(to: toDbKey, rootPath: rootPath, current: databaseKeys)
            output["databases"] = results.object
            failed = results.failed
            databaseKeys = results.keys
        }
        if let to, !failed {
            let summary = try rekeyValues(to: to, rootPath: rootPath, databaseKeys: databaseKeys)
            output.merge(Self.jsonObject(summary)) { $1 }
            failed = failed || !summary.failed.isEmpty
        }
        if json { try Output.json(output) }
        if failed { throw ExitCode(1) }
    }

    /// Moves the root's SQLite files to the database key `text`, printing a line per file
    /// (unless `--json`); returns the JSON of it, whether a file failed, and the database keys
    /// the stores open with afterwards (the new one first).
    private func rekeyDatabases(to text: String, rootPath: String, current: DatabaseKeyList) throws
        -> (object: [[String: Any]], failed: Bool, keys: DatabaseKeyList) {
        let format: DatabaseCipherFormat = dbCompat == 3 ? .sqlcipher3 : .sqlcipher4
        let newKey: DatabaseKey
        do { newKey = try DatabaseKey(sqlcipherKey: GlobalOptions.readSecret(text, option: "--to-db-key"), format: format) }
        catch let error as CLIError { throw error } catch { throw CLIError("--to-db-key: \(error)") }
        let bar = ProgressBar(json: json)
        let results: [DatabaseRekeyResult]
        do {
            results = try DataCenter.rekeyDatabases(rootPath: rootPath, from: current, to: newKey,
                                                    customStorages: storage.map(expandTilde), busyTimeout: global.busyTimeout) {
                index, count, name in
                bar.show("database " + name, fraction: count == 0 ? 1 : Double(index) / Double(count), labelWidth: 36)
            }
        } catch { bar.clear(); throw CLIError(CommandLineRunner.describe(error)) }
        bar.clear()
        let formatName = format.displayName
        var object: [[String: Any]] = []
        for result in results {
            let name = Output.safe(result.name, limit: 200)
            let outcome: String
            switch result.outcome {
            case .encrypted: outcome = "encrypted"
            case .rekeyed: outcome = "rekeyed"
            case .alreadyDone: outcome = "alreadyDone"
            case .failed(let reason):
                outcome = "failed"
                Output.error("error: database \(name) (\(Output.safe(Self.shown(result.path, rootPath: rootPath), limit: 400))): "
                             + "\(Output.safe(Self.reason(reason, about: result.path), limit: 400)) — this file was left unchanged")
            }
            object.append(["name": result.name, "path": result.path, "outcome": outcome, "error": result.failure ?? NSNull()])
            guard !json else { continue }
            switch result.outcome {
            case .encrypted: Output.line("database \(name): encrypted (\(formatName))")
            case .rekeyed: Output.line("database \(name): moved to the new database key (\(formatName))")
            case .alreadyDone: Output.line("database \(name): under the new database key already")
            case .failed: Output.line("database \(name): failed, left unchanged")
            }
        }
        let failed = results.contains { $0.failure != nil }
        if failed, !json {
            Output.line("some database files failed: the others are under the new key; run the same command again "
                        + "(with --db-key NEW --db-key OLD) once the cause is fixed")
        }
        return (object, failed, DatabaseKeyList([newKey] + current.keys))
    }

    /// `path` (absolute, as the engine finds a root's files) as the user named the root: a
    /// file under it is shown under the root as given (`rk/users/alice/user.sqlite`).
    static func shown(_ path: String, rootPath: String) -> String {
        let absoluteRoot = URL(fileURLWithPath: rootPath).standardizedFileURL.path
        guard rootPath != absoluteRoot, path.hasPrefix(absoluteRoot + "/") else { return path }
        return rootPath + path.dropFirst(absoluteRoot.count)
    }

    /// An engine error about the file at `path`, without the path it starts with (the line
    /// names the file already).
    static func reason(_ error: String, about path: String) -> String {
        error.hasPrefix(path + ": ") ? String(error.dropFirst(path.count + 2)) : error
    }

    /// Re-encrypts the values under the value key `text`, printing the summary (unless `--json`).
    private func rekeyValues(to text: String, rootPath: String, databaseKeys: DatabaseKeyList) throws -> RekeySummary {
        let old: KeyRing
        let new: EncryptionKey
        do {
            old = KeyRing(try KeyRing(parsing: from).keys + global.keyRing().keys)
            new = try EncryptionKey(parsing: text)
        } catch let error as CLIError { throw error } catch { throw CLIError(CommandLineRunner.describe(error)) }
        if old.isEmpty { throw CLIError("give the current key with --from (or --key, or DATACENTER_KEY)") }
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
            Output.error("error: \(Output.safe(store.name, limit: 200)) (\(Output.safe(Self.shown(store.path, rootPath: rootPath), limit: 400))): "
                         + "\(Output.safe(Self.reason(store.error ?? "", about: store.path), limit: 400)) — this store was left unchanged")
        }
        if !json { Self.printSummary(summary) }
        return summary
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
