import Foundation
import Testing
@testable import DatacenterKit

/// Mutated dumps import whole or not at all: a failure names a line inside the dump and
/// leaves the database as it was; never a crash or a hang. Seeded and printed: `FUZZ_CASES`
/// and `FUZZ_SEED` set the run (`make fuzz` runs a long one).
@Suite struct DumpImportFuzzTests {
    static let cases = testCount("FUZZ_CASES", default: 400)
    static let seed = testSeed("FUZZ_SEED", default: 0xD0_3B)

    static let tokens = [";", "'", "''", "\"", "--", "/*", "*/", "BEGIN;", "COMMIT;", "ROLLBACK;", "ROLLBACK TO s;",
                         "SAVEPOINT s;", "END;", "\n", "\r\n", "\0", "X'0", "CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; END;",
                         "INSERT INTO t VALUES(", ")", "é", "\u{FEFF}"]

    static let dump = """
        PRAGMA foreign_keys=OFF;
        BEGIN TRANSACTION;
        CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT, data BLOB);
        INSERT INTO t VALUES(1,'plain',NULL);
        INSERT INTO t VALUES(2,'semi;colon; it''s',X'00ff');
        INSERT INTO t VALUES(3,'multi
        line;
        text',NULL);
        -- a comment; with a semicolon
        /* block; comment */
        CREATE INDEX t_body ON t(body);
        CREATE VIEW v AS SELECT id FROM t;
        COMMIT;
        """

    @Test func mutatedDumpsImportWholeOrNotAtAll() throws {
        var random = SplitMix64(seed: Self.seed)
        let original = Array(Self.dump.utf8)
        let watchdog = Watchdog(limit: 5)
        defer { watchdog.finish() }
        for index in 0..<Self.cases {
            watchdog.start("seed \(Self.seed) case \(index)")
            defer { watchdog.stop() }
            var bytes = original
            for _ in 0..<(1 + random.below(6)) {
                guard !bytes.isEmpty else { break }
                let at = random.below(bytes.count)
                switch random.below(5) {
                case 0: bytes[at] ^= UInt8(1 << random.below(8))
                case 1: bytes.removeSubrange(at..<min(bytes.count, at + 1 + random.below(30)))
                case 2: bytes.insert(contentsOf: Array(Self.tokens[random.below(Self.tokens.count)].utf8), at: at)
                case 3: bytes.insert(contentsOf: Array(bytes[at..<min(bytes.count, at + 1 + random.below(60))]), at: random.below(bytes.count))
                default: bytes.removeSubrange(at...)
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let lines = bytes.filter { $0 == 0x0A }.count + 1
            let db = try Database.inMemory()
            try db.execute("CREATE TABLE before(x)")
            do {
                _ = try db.importDump(text, named: "case\(index).sql")
            } catch let failure as DumpStatementFailure {
                #expect(failure.line >= 1 && failure.line <= lines, "seed \(Self.seed) case \(index): line \(failure.line) of \(lines)")
                #expect(failure.file == "case\(index).sql")
                // Nothing of the dump stayed.
                let names = try db.query("SELECT name FROM sqlite_master ORDER BY name").compactMap { $0[0].stringValue }
                #expect(names == ["before"], "seed \(Self.seed) case \(index): \(names) after a failed import")
            }
            #expect(!db.isInTransaction, "seed \(Self.seed) case \(index): a transaction was left open")
        }
    }
}
