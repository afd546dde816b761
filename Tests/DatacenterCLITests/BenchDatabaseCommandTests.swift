import DatacenterKit
import Foundation
import Testing

/// `datacenter bench db`: every scenario runs on an encrypted file against a plain one (or
/// SQLCipher's), and the output has the shape of every `bench` command.
@Suite struct BenchDatabaseCommandTests {
    /// The reference SQLCipher `make test` installs; the bench finds it above its binary.
    static let referencePython = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path + "/.build/sqlcipher-venv/bin/python"
    /// The keys docs/CLI.md publishes for the files `--keep-files` leaves.
    static let passphraseKey = try! DatabaseKey.passphrase("datacenter-bench", format: .sqlcipher4)
    static let importKey = try! DatabaseKey(sqlcipherKey: "x'" + String(repeating: "2b7e1516", count: 8) + "'", format: .sqlcipher3)

    /// The first 16 bytes of a file.
    static func header(_ path: String) throws -> [UInt8] {
        let handle = try #require(FileHandle(forReadingAtPath: path), "no file \(path)")
        defer { try? handle.close() }
        return [UInt8](try handle.read(upToCount: 16) ?? Data())
    }

    static let plainHeader = Array("SQLite format 3\0".utf8)

    /// Rows of `messages` in the file at `path`, opened with `key` (plain when nil).
    static func rows(_ path: String, key: DatabaseKey?) throws -> Int64? {
        try Database(path: path, key: key, mode: .readOnly).scalar("SELECT count(*) FROM messages")?.int64Value
    }

    static let hasSQLite3MC = FileManager.default.isExecutableFile(atPath: referencePython)
        && (try? SQLCipherReference.run(["-c", "import apsw"], fullDerivation: true).status) == 0

    @Test func everyScenarioRunsOnAnEncryptedFileAgainstAPlainOne() throws {
        let scratch = TemporaryFolder()
        let folder = scratch.file("bench")
        let result = try CLI.run(["bench", "db", "--quick", "--json", "--folder", folder, "--keep-files"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("kept the benchmark's files in \(folder)"), "\(result.stderr)")
        let hasReference = FileManager.default.isExecutableFile(atPath: Self.referencePython)
        var scenarios: [String] = []
        for line in result.stdout.split(separator: "\n") {
            let object = try #require(try CLI.json(String(line)) as? [String: Any])
            #expect(Set(object.keys) == ["scenario", "engine_ns", "baseline_ns", "ratio"])
            let scenario = try #require(object["scenario"] as? String)
            scenarios.append(scenario)
            #expect((object["engine_ns"] as? Double ?? 0) > 0, "\(scenario)")
            if !["db-import", "db-open", "db-encrypt", "db-decrypt", "db-rekey"].contains(scenario) || hasReference {
                #expect((object["baseline_ns"] as? Double ?? 0) > 0, "\(scenario)")
            }
        }
        // SQLite3 Multiple Ciphers' scenarios run where its library is (make test installs it).
        let mc = ["chacha20", "aes256cbc", "aes128cbc", "sqlcipher", "rc4"].flatMap { scheme in
            ["scan", "point-read", "insert", "open", "rekey"].map { "db-mc-\($0)-\(scheme)" }
        }
        #expect(scenarios == ["db-point-read", "db-point-read-cold", "db-full-scan", "db-batch-write", "db-wal-spill-update", "db-import",
                              "db-open", "db-encrypt", "db-decrypt", "db-rekey"] + (Self.hasSQLite3MC ? mc : []))

        // The encrypted files are not SQLite's plaintext, open only with their key, and hold
        // the rows their plain twins hold.
        for (encrypted, plain) in [("read-encrypted.sqlite", "read-plain.sqlite"), ("write-encrypted.sqlite", "write-plain.sqlite")] {
            let (e, p) = (folder + "/" + encrypted, folder + "/" + plain)
            #expect(try Self.header(e).count == 16)
            #expect(try Self.header(e) != Self.plainHeader, "\(encrypted) is plaintext")
            #expect(try Self.header(p) == Self.plainHeader, "\(plain) is not a plain database")
            #expect(throws: DatabaseError.self) { try Self.rows(e, key: nil) }
            let count = try Self.rows(e, key: Self.passphraseKey)
            #expect((count ?? 0) > 0)
            #expect(count == (try Self.rows(p, key: nil)))
        }
        let ours = folder + "/import-engine.sqlite"
        #expect(try Self.header(ours) != Self.plainHeader)
        #expect(throws: DatabaseError.self) { try Self.rows(ours, key: Self.passphraseKey) }
        let imported = try Self.rows(ours, key: Self.importKey)
        #expect((imported ?? 0) > 0)
        if hasReference {
            let theirs = folder + "/import-sqlcipher.sqlite"
            #expect(try Self.header(theirs) != Self.plainHeader)
            #expect(try Self.rows(theirs, key: Self.importKey) == imported)
        }
    }

    @Test func aMissingSQLCipherLeavesTheImportWithoutABaselineAndTheOthersRun() throws {
        let scratch = TemporaryFolder()
        let result = try CLI.run(["bench", "db", "--quick", "--json", "--folder", scratch.file("bench"),
                                  "--scenario", "db-point-read", "--scenario", "db-import"],
                                 environment: ["DATACENTER_SQLCIPHER_PYTHON": scratch.file("no-python")])
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.stdout.split(separator: "\n").map { try #require(try CLI.json(String($0)) as? [String: Any]) }
        #expect(objects.compactMap { $0["scenario"] as? String } == ["db-point-read", "db-import"])
        #expect((objects.first?["baseline_ns"] as? Double ?? 0) > 0)
        #expect(objects.last?["baseline_ns"] as? Double == 0)
        #expect((objects.last?["engine_ns"] as? Double ?? 0) > 0)
        #expect(result.stderr.contains("make sqlcipher-reference"), "\(result.stderr)")

        let table = try CLI.run(["bench", "db", "--quick", "--folder", scratch.file("table"), "--scenario", "db-import"],
                                environment: ["DATACENTER_SQLCIPHER_PYTHON": scratch.file("no-python")])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("baseline unavailable"), "\(table.stdout)")
    }
}
