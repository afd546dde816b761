import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation
import Testing

/// A `rekey` of every kind of encrypted data killed with SIGKILL at random moments: each store
/// is all old key or all new key, across all its kinds, and a rerun finishes the job.
extension CrashTests {
    /// The stores of a crash root and what each holds, by kind: table and encrypted column.
    static let everyKind = [("datacenter_kv", "value"), ("lru_secure", "value"), ("files_attachments", "data"), ("messages", "content")]

    /// Builds a root whose common store and user `ann`'s each hold encrypted KV values, an
    /// encrypted cache, an encrypted file service and a DAO table with a crypt column.
    static func buildEveryKindRoot(_ root: String, key: EncryptionKey, configFolder: String) throws {
        let center = try DataCenter(rootPath: root, crypt: KeyRing([key]))
        try center.setCurrentUserId("ann")
        let config = try DAOConfig(contentsOfFile: configFolder + "/messages.xml")
        for store in [try center.commonStore(), try center.store(forUser: "ann")] {
            try store.kv.batch {
                for i in 0..<2_000 { try store.kv.setString("secret \(i)", forKey: "k\(i)", business: "b", encryption: .default) }
            }
            let cache = try LRUDiskCache(name: "secure", capacity: 10_000, encrypted: true, store: store)
            for i in 0..<1_000 { try cache.setData(Data("cached \(i)".utf8), forKey: "c\(i)") }
            try cache.flush()
            let files = try FileArrayService(name: "attachments", store: store, encrypted: true)
            for i in 0..<500 { files.write(Data("file \(i)".utf8), to: "f\(i)") }
            files.waitForPendingOperations()
            let messages = DAOObject(config: config, store: store)
            let models: [DAOValue] = (0..<1_000).map { i in
                .model("MessageModel", ["conversation": .string("c"), "sender": .string("s"), "time": .integer(Int64(i)),
                                        "content": .string("message \(i)")])
            }
            try messages.call("insertMessages", [.array(models)])
        }
    }

    /// Which keys open each kind's values in the store at `path`: "old", "new", "neither".
    static func keysOpening(_ path: String, old: EncryptionKey, new: EncryptionKey) throws -> [String: Set<String>] {
        let db = try Database(path: path, mode: .readOnly)
        var seen: [String: Set<String>] = [:]
        for (table, column) in everyKind {
            let extra = table == "datacenter_kv" ? ", business, key, encoding" : ""
            for row in try db.query("SELECT \(column)\(extra) FROM \(table)") {
                guard let blob = row[0].dataValue else { seen[table, default: []].insert("not a blob"); continue }
                func opens(_ key: EncryptionKey) -> Bool {
                    if table == "datacenter_kv" {
                        let context = CryptContext(parts: ["kv", row[1].stringValue ?? "", row[2].stringValue ?? "", row[3].stringValue ?? ""])
                        return (try? AESGCMCrypt(key: key).decrypt(blob, boundTo: context)) != nil
                    }
                    return (try? AESGCMCrypt(key: key).decrypt(blob)) != nil
                }
                seen[table, default: []].insert(opens(old) ? "old" : opens(new) ? "new" : "neither")
            }
        }
        return seen
    }

    @Test func aKilledRekeyOfEveryKindLeavesEachStoreAllOldOrAllNewAndARerunFinishes() throws {
        var dice = SplitMix64(seed: Self.seed &+ 5)
        let scratch = TemporaryFolder()
        let old = try EncryptionKey(parsing: TestKeys.first), new = try EncryptionKey(parsing: TestKeys.second)
        let configFolder = scratch.file("examples")
        try DAODemo.writeExamples(to: configFolder)
        var interrupted = 0, between = 0, seconds = 0.0
        for trial in 0..<max(1, Self.trials / 2) {
            let root = scratch.file("rekey-all-\(trial)")
            try Self.buildEveryKindRoot(root, key: old, configFolder: configFolder)
            let arguments = ["rekey", "--root", root, "--from", TestKeys.first, "--to", TestKeys.second]
            _ = try Self.runAndKill(CLI.binaryPath, arguments, acks: nil,
                                    delay: Double(Int.random(in: 0...900, using: &dice)) / 1000, dice: &dice)
            var states: [String: String] = [:]
            for path in [root + "/common.sqlite", root + "/users/ann/user.sqlite"] {
                #expect(try Self.integrityCheck(path) == "ok")
                let opening = try Self.keysOpening(path, old: old, new: new)
                #expect(Set(opening.keys) == Set(Self.everyKind.map(\.0)), "seed \(Self.seed) trial \(trial): \(path): \(opening)")
                let all = opening.values.reduce(into: Set<String>()) { $0.formUnion($1) }
                #expect(all == ["old"] || all == ["new"], "seed \(Self.seed) trial \(trial): \(path) holds \(opening)")
                states[path] = all.first
            }
            if states.values.contains("old") { interrupted += 1 }
            if Set(states.values).count == 2 { between += 1 }
            // A rerun finishes: what was done is said to be done, the rest moves.
            let started = Date()
            let rerun = try CLI.run(arguments)
            seconds = max(seconds, Date().timeIntervalSince(started))
            #expect(rerun.status == 0, "\(rerun.stderr)")
            if states[root + "/common.sqlite"] == "new" {
                #expect(rerun.stdout.contains("common: 0 value(s) re-encrypted, 4500 already under the new key"), "\(rerun.stdout)")
            } else {
                #expect(rerun.stdout.contains("common: 4500 value(s) re-encrypted"), "\(rerun.stdout)")
            }
            for path in [root + "/common.sqlite", root + "/users/ann/user.sqlite"] {
                let all = try Self.keysOpening(path, old: old, new: new).values.reduce(into: Set<String>()) { $0.formUnion($1) }
                #expect(all == ["new"], "seed \(Self.seed) trial \(trial): after the rerun \(path) holds \(all)")
            }
            let again = try CLI.run(arguments)
            #expect(again.stdout.contains("nothing to do"), "\(again.stdout)")
        }
        print("rekey of every kind killed \(max(1, Self.trials / 2)) time(s), \(interrupted) before the end, "
              + "\(between) between two stores; the longest rerun took \(seconds) s")
    }
}
