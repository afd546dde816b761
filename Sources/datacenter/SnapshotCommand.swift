import ArgumentParser
import DatacenterChanges
import DatacenterKit
import Foundation

/// `datacenter snapshot [PATH] [-o DIR]`: a consistent copy of every store, to diff later.
struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Copy every store of a root (or one database file) into a new folder, to diff against later.",
        discussion: ExitStatusHelp.discussion("""
            PATH is a data-center root (default: --root), a snapshot, or one SQLite file. Each store is copied \
            in one read transaction with SQLite's backup API, so the copy is one committed state of it: in WAL \
            mode the app goes on writing meanwhile; in rollback-journal mode its commits wait until that store \
            is copied. An encrypted store is copied encrypted, with the same key and SQLCipher settings \
            (--db-key opens it); a snapshot never holds plaintext its source did not. The folder is written \
            whole or not at all (0700, files 0600), with snapshot.json listing the stores; it must not exist. \
            Then: datacenter diff --since DIR.
            """))

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A root, a snapshot or a database file. Default: the root (--root).", valueName: "path"))
    var path: String?
    @Option(name: [.customShort("o"), .long],
            help: ArgumentHelp("The new folder. Default: <name>.snapshot-<UTC time> in the current folder.", valueName: "dir"))
    var output: String?
    @Flag(help: "Print the snapshot's manifest as one JSON object, with its folder as \"path\".") var json = false

    func run() throws {
        let sourcePath = path.map(expandTilde) ?? global.rootPath
        let databaseKeys = try global.databaseKeyList()
        let source = try ChangeSource.at(sourcePath, keys: try global.keyRing(), databaseKeys: databaseKeys,
                                         busyTimeout: global.busyTimeout)
        let now = Date()
        let destination = output.map(expandTilde) ?? Self.defaultFolder(for: sourcePath, at: now)
        let bar = ProgressBar(json: json)
        let manifest = try StoreSnapshot.take(of: source, to: destination, databaseKeys: databaseKeys,
                                              busyTimeout: global.busyTimeout, now: now) { step in
            if case let .copying(name, index, count) = step { bar.show(name, fraction: Double(index - 1) / Double(max(count, 1)), labelWidth: 24) }
        }
        bar.clear()
        if json {
            let object = try JSONSerialization.jsonObject(with: manifest.encoded())
            guard var fields = object as? [String: Any] else { return }
            fields["path"] = destination
            try Output.json(fields)
            return
        }
        let bytes = manifest.stores.reduce(Int64(0)) { $0 + $1.bytes }
        let encrypted = manifest.stores.filter(\.encrypted).count
        Output.line("snapshot of \(Output.safe(sourcePath, limit: 200)): \(manifest.stores.count) store\(manifest.stores.count == 1 ? "" : "s"), "
                    + ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
                    + (encrypted > 0 ? " (\(encrypted) encrypted, as their sources are)" : ""))
        Output.line("in \(Output.safe(destination, limit: 200))")
        Output.line("then: datacenter diff --since \(Output.safe(destination, limit: 200)) \(Output.safe(sourcePath, limit: 200))")
    }

    /// `<name>.snapshot-YYYYMMDD-HHMMSS` (UTC) in the current folder.
    static func defaultFolder(for source: String, at date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        var name = (source as NSString).lastPathComponent
        if name.isEmpty || name == "/" || name == "." { name = "store" }
        return name + ".snapshot-" + formatter.string(from: date)
    }
}
