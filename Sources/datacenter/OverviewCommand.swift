import ArgumentParser
import DatacenterKit
import Foundation

/// `datacenter overview`: what a root holds, store by store.
struct OverviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "overview",
        abstract: "Summarize a root: users, and per store its businesses and tables.",
        discussion: ExitStatusHelp.discussion("With --json, one object: root, currentUser, keys (fingerprints), and stores, each with its name, kind (common, user, version), user, current, path, damaged (the reason, or null), kv (business, count, locked) and tables (name, rows)."))

    @OptionGroup var global: GlobalOptions
    @Flag(help: "One JSON object on stdout.") var json = false

    /// One store's summary.
    struct StoreSummary {
        var name: String
        var kind: String
        var user: String?
        var current: Bool
        var path: String
        var damaged: String?
        var businesses: [(business: String, count: Int, locked: Int)] = []
        var tables: [(name: String, rows: Int64)] = []
    }

    func run() throws {
        let center = try global.openDataCenter(readOnly: true)
        let keys = try global.keyRing()
        var stores: [StoreSummary] = [StoreSummary(name: "common", kind: "common", user: nil, current: false, path: center.commonStorePath)]
        for user in center.users() {
            stores.append(StoreSummary(name: "user \(user)", kind: "user", user: user, current: user == center.currentUserId,
                                       path: try center.storePath(forUser: user)))
        }
        let versionPath = center.rootPath + "/version/common.sqlite"
        if FileManager.default.fileExists(atPath: versionPath) {
            stores.append(StoreSummary(name: "version storage", kind: "version", user: nil, current: false, path: versionPath))
        }
        // DAO databases kept in files of their own under the root (`makeDAO(configPath:databasePath:)`).
        for path in center.daoDatabasePaths {
            let relative = String(path.dropFirst(center.rootPath.count + 1))
            stores.append(StoreSummary(name: "DAO database " + relative, kind: "dao database", user: nil, current: false, path: path))
        }
        stores = stores.filter { FileManager.default.fileExists(atPath: $0.path) }
        var damaged = 0
        for index in stores.indices {
            // A damaged store is listed with its reason; the others are still summarized.
            // In an encrypted root a store no key opens stops the command: the key is missing or wrong.
            do { try summarize(&stores[index], keys: keys, databaseKeys: center.databaseKeys) }
            catch where DamagedStore.isDamage(error, inEncryptedRoot: center.isDatabaseEncrypted) {
                stores[index].damaged = DamagedStore(path: stores[index].path, error: error).reason
                damaged += 1
            }
        }
        if json {
            try Output.json([
                "root": center.rootPath,
                "currentUser": center.currentUserId ?? NSNull(),
                "keys": keys.keys.map(\.fingerprint),
                "stores": stores.map { store -> [String: Any] in
                    [
                        "name": store.name, "kind": store.kind, "user": store.user ?? NSNull(), "current": store.current,
                        "path": store.path, "damaged": store.damaged ?? NSNull(),
                        "kv": store.businesses.map { ["business": $0.business, "count": $0.count, "locked": $0.locked] },
                        "tables": store.tables.map { ["name": $0.name, "rows": $0.rows] },
                    ]
                },
            ])
        } else {
            Output.line("root: \(center.rootPath)")
            Output.line("current user: \(center.currentUserId.map { Output.safe($0) } ?? "(none)")")
            Output.line("keys given: \(keys.keys.isEmpty ? "none (encrypted values stay locked)" : keys.keys.map(\.description).joined(separator: ", "))")
            for store in stores {
                Output.line()
                Output.line("\(Output.safe(store.name))\(store.current ? " (current)" : ""): \(store.path)")
                if let reason = store.damaged {
                    Output.line("  damaged: \(Output.safe(reason, limit: 200))")
                    continue
                }
                for summary in store.businesses {
                    Output.line("  kv \(Output.safe(summary.business)): \(summary.count) value(s)" + (summary.locked > 0 ? ", \(summary.locked) locked" : ""))
                }
                for (table, count) in store.tables { Output.line("  table \(Output.safe(table)): \(count) row(s)") }
            }
        }
        if damaged > 0 { Output.error("warning: \(damaged) damaged store(s) could not be read (listed as damaged)") }
    }

    /// Reads one store's businesses and tables into `summary`.
    private func summarize(_ summary: inout StoreSummary, keys: KeyRing, databaseKeys: DatabaseKeyList) throws {
        let store = try Store(path: summary.path, crypt: keys, readOnly: true, databaseKeys: databaseKeys)
        // Counted in SQL; only values the keys might open are decrypted, one at a time.
        summary.businesses = try store.kv.businessSummaries().map { ($0.business, $0.count, $0.lockedCount ?? 0) }
        summary.tables = try store.queue.read { db in
            try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
                .compactMap { $0[0].stringValue }
                .filter { !Store.internalTables.contains($0) }
                .map { name in (name, try db.scalar("SELECT count(*) FROM \(Database.quoteIdentifier(name))")?.int64Value ?? 0) }
        }
    }
}
