import ArgumentParser
import DatacenterKit
import Foundation

/// `datacenter overview`: what a root holds, store by store.
struct OverviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "overview",
        abstract: "Summarize a root: users, and per store its businesses and tables.")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let center = try global.openDataCenter(readOnly: true)
        let keys = try global.keyRing()
        Output.line("root: \(center.rootPath)")
        Output.line("current user: \(center.currentUserId.map { Output.safe($0) } ?? "(none)")")
        Output.line("keys given: \(keys.keys.isEmpty ? "none (encrypted values stay locked)" : keys.keys.map(\.description).joined(separator: ", "))")
        var stores: [(String, String)] = [("common", center.commonStorePath)]
        for user in center.users() {
            stores.append(("user \(Output.safe(user))\(user == center.currentUserId ? " (current)" : "")", try center.storePath(forUser: user)))
        }
        let versionPath = center.rootPath + "/version/common.sqlite"
        if FileManager.default.fileExists(atPath: versionPath) { stores.append(("version storage", versionPath)) }
        var damaged = 0
        for (name, path) in stores where FileManager.default.fileExists(atPath: path) {
            Output.line()
            Output.line("\(name): \(path)")
            // A damaged store is listed with its reason; the others are still summarized.
            do { try summarize(path, keys: keys, databaseKeys: center.databaseKeys) } catch where DamagedStore.isDamage(error) {
                Output.line("  damaged: \(Output.safe(DamagedStore(path: path, error: error).reason, limit: 200))")
                damaged += 1
            }
        }
        if damaged > 0 { Output.error("warning: \(damaged) damaged store(s) could not be read (listed as damaged)") }
    }

    /// Prints one store's businesses and tables.
    private func summarize(_ path: String, keys: KeyRing, databaseKeys: DatabaseKeyList) throws {
        let store = try Store(path: path, crypt: keys, readOnly: true, databaseKeys: databaseKeys)
        // Counted in SQL; only values the keys might open are decrypted, one at a time.
        for summary in try store.kv.businessSummaries() {
            let locked = summary.lockedCount ?? 0
            Output.line("  kv \(Output.safe(summary.business)): \(summary.count) value(s)" + (locked > 0 ? ", \(locked) locked" : ""))
        }
        let tables = try store.queue.read { db in
            try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
                .compactMap { $0[0].stringValue }
                .filter { !Store.internalTables.contains($0) }
                .map { name in (name, try db.scalar("SELECT count(*) FROM \(Database.quoteIdentifier(name))")?.int64Value ?? 0) }
        }
        for (table, count) in tables { Output.line("  table \(Output.safe(table)): \(count) row(s)") }
    }
}
