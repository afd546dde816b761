import DatacenterKit
import Foundation
import Testing
@testable import DatacenterChanges
import DatacenterTestSupport

/// `diff --sql` against the real `sqldiff` (Debian's `sqlite3-tools`): the same statements
/// on random tables of every kind of key, and applied to A, B byte for byte (by `.dump`).
@Suite struct SQLDiffTests {
    static let sqldiff = "/usr/bin/sqldiff"
    static var hasSqldiff: Bool { FileManager.default.isExecutableFile(atPath: sqldiff) }

    /// The statements our diff prints for the files `a` and `b`, one per line as written.
    func ours(_ a: String, _ b: String) throws -> String {
        var lines: [String] = []
        try StoreDiff().sql(try ChangeSource.at(a), try ChangeSource.at(b)) { lines.append($0) }
        return lines.joined(separator: "\n")
    }

    /// `.dump` of `path`, by the sqlite3 shell.
    func dump(_ path: String) throws -> String { try sqlite3Shell(path, ".dump") }

    /// `.dump`'s statements in sorted order: a schema changed by statements lists its objects
    /// in the order they were made, which no diff can choose, so the statements are compared.
    func statements(_ path: String) throws -> [String] { try dump(path).components(separatedBy: "\n").sorted() }

    /// Applies `sql` to a copy of `a` and returns the copy's path.
    func applied(_ sql: String, to a: String, in folder: TemporaryFolder, name: String = "applied.db") throws -> String {
        let copy = folder.file(name)
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: a, toPath: copy)
        let script = folder.file(name + ".sql")
        try Data(sql.utf8).write(to: URL(fileURLWithPath: script))
        let result = try runProcess("/usr/bin/env", ["sqlite3", "-bail", copy, ".read \(script)"])
        #expect(result.status == 0, "the statements run: \(result.output)")
        return copy
    }

    /// A random value: integers, reals that 15 digits give back (integers too, which a REAL
    /// column turns into reals), text with quotes, line
    /// breaks and tabs, blobs (empty too), NULL.
    static func value(_ random: inout SplitMix64) -> String {
        switch random.below(7) {
        case 0: return "NULL"
        // At most 15 digits: one stored in a REAL column is then a real that 15 digits give
        // back (with more, sqldiff's 15 lose bits that ours keep: the other test pins that).
        case 1: return String(Int64(bitPattern: random.next()) >> UInt64(15 + random.below(48)))
        case 2: return String(Double(Int(random.below(1_000_000)) - 500_000) / 8)
        case 3: return "'" + ["plain", "it''s", "two\nlines", "tab\there", "ünïcödé", ""][random.below(6)] + "'"
        case 4: return "x'" + random.bytes(random.below(5)).map { String(format: "%02x", $0) }.joined() + "'"
        case 5: return "'text \(random.below(50))'"
        default: return String(random.below(100))
        }
    }

    /// Tables keyed every way sqldiff knows: an implicit rowid, an INTEGER PRIMARY KEY, a
    /// text primary key of a rowid table (the rowid names the rows), a WITHOUT ROWID key of
    /// two columns, and a WITHOUT ROWID table that is all key.
    static let schema = """
        CREATE TABLE k(id INTEGER PRIMARY KEY, name TEXT, v);
        CREATE TABLE o(a, b, PRIMARY KEY(a, b)) WITHOUT ROWID;
        CREATE TABLE p(code TEXT PRIMARY KEY, n INTEGER, data BLOB);
        CREATE TABLE "r x"(a, "b c" TEXT, c REAL, "select");
        CREATE TABLE w(x TEXT, y INTEGER, z, PRIMARY KEY(x, y)) WITHOUT ROWID;
        CREATE INDEX k_name ON k(name);
        """

    /// Fills `path` with random rows of `schema`'s tables.
    static func fill(_ path: String, rows: Int, random: inout SplitMix64) throws {
        var sql = "BEGIN;"
        for i in 0..<rows {
            sql += "INSERT INTO k VALUES(\(i), \(value(&random)), \(value(&random)));"
            sql += "INSERT OR IGNORE INTO o VALUES(\(random.below(20)), \(random.below(20)));"
            sql += "INSERT OR IGNORE INTO p VALUES('c\(i)', \(value(&random)), \(value(&random)));"
            sql += "INSERT INTO \"r x\" VALUES(\(value(&random)), \(value(&random)), \(value(&random)), \(value(&random)));"
            sql += "INSERT OR IGNORE INTO w VALUES('x\(random.below(30))', \(random.below(5)), \(value(&random)));"
        }
        try Database(path: path).execute(sql + "COMMIT;")
    }

    /// Random updates, deletes and inserts in every table of `path`.
    static func mutate(_ path: String, random: inout SplitMix64) throws {
        var sql = "BEGIN;"
        for _ in 0..<(5 + random.below(20)) {
            let n = random.below(40)
            switch random.below(11) {
            case 0: sql += "UPDATE k SET name = \(value(&random)) WHERE id = \(n);"
            case 1: sql += "DELETE FROM k WHERE id = \(n);"
            case 2: sql += "INSERT OR REPLACE INTO k VALUES(\(100 + n), \(value(&random)), \(value(&random)));"
            case 3: sql += "DELETE FROM o WHERE a = \(random.below(20));"
            case 4: sql += "INSERT OR IGNORE INTO o VALUES(\(value(&random)), \(random.below(20)));"
            case 5: sql += "UPDATE p SET n = \(value(&random)), data = \(value(&random)) WHERE code = 'c\(n)';"
            case 6: sql += "DELETE FROM p WHERE code = 'c\(n)';"
            case 7: sql += "UPDATE \"r x\" SET \"b c\" = \(value(&random)), \"select\" = \(value(&random)) WHERE rowid = \(n);"
            case 8: sql += "INSERT INTO \"r x\" VALUES(\(value(&random)), \(value(&random)), \(value(&random)), NULL);"
            case 9: sql += "UPDATE w SET z = \(value(&random)) WHERE y = \(random.below(5));"
            default: sql += "DELETE FROM w WHERE x = 'x\(random.below(30))';"
            }
        }
        try Database(path: path).execute(sql + "COMMIT;")
    }

    @Test(.enabled(if: hasSqldiff, "needs sqldiff (Debian sqlite3-tools, installed by make test)"))
    func theStatementsAreSqldiffsOnRandomTables() throws {
        var random = SplitMix64(seed: testSeed("SQLDIFF_SEED", default: 0x5_91D1FF))
        for round in 0..<testCount("SQLDIFF_ROUNDS", default: 12) {
            let folder = TemporaryFolder()
            let a = folder.file("a.db"), b = folder.file("b.db")
            try Database(path: a).execute(Self.schema)
            try Self.fill(a, rows: 30, random: &random)
            try FileManager.default.copyItem(atPath: a, toPath: b)
            try Self.mutate(b, random: &random)
            let theirs = try runProcess(Self.sqldiff, [a, b])
            #expect(theirs.status == 0)
            let mine = try ours(a, b)
            #expect(mine == theirs.output, "round \(round): the same statements as sqldiff")
            #expect(try dump(try applied(mine, to: a, in: folder)) == (try dump(b)), "round \(round): applied, A is B")
            #expect(try ours(b, b).isEmpty, "nothing between a file and itself")
        }
    }

    @Test(.enabled(if: hasSqldiff, "needs sqldiff (Debian sqlite3-tools, installed by make test)"))
    func whatSqldiffLeavesOutIsWrittenSoTheResultIsB() throws {
        let folder = TemporaryFolder()
        let a = folder.file("a.db"), b = folder.file("b.db")
        try Database(path: a).execute("""
            CREATE TABLE log(id INTEGER PRIMARY KEY AUTOINCREMENT, what TEXT);
            CREATE TABLE names(id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE, score REAL);
            CREATE TABLE gone(x);
            CREATE TABLE grows(a, b);
            CREATE VIEW v AS SELECT name FROM names;
            CREATE TRIGGER names_log AFTER UPDATE ON names BEGIN INSERT INTO log(what) VALUES('updated ' || new.id); END;
            INSERT INTO names VALUES(1, 'ann', 0.5), (2, 'bob', 1.0), (3, 'cy', 2.0);
            INSERT INTO log(what) VALUES('start');
            INSERT INTO gone VALUES(1);
            INSERT INTO grows VALUES(1, 2);
            """)
        try FileManager.default.copyItem(atPath: a, toPath: b)
        try Database(path: b).execute("""
            DROP TRIGGER names_log;
            UPDATE names SET name = 'ANN' WHERE id = 1;
            UPDATE names SET score = 0.1 + 0.2 WHERE id = 2;
            CREATE TRIGGER names_log AFTER UPDATE ON names BEGIN INSERT INTO log(what) VALUES('changed ' || new.id); END;
            INSERT INTO log(what) VALUES('more');
            DROP TABLE gone;
            ALTER TABLE grows ADD COLUMN c DEFAULT 7;
            CREATE TABLE fresh(k TEXT PRIMARY KEY, v) WITHOUT ROWID;
            INSERT INTO fresh VALUES('a', 1);
            CREATE INDEX fresh_v ON fresh(v);
            DROP VIEW v;
            CREATE VIEW v AS SELECT name, score FROM names;
            """)
        let mine = try ours(a, b)
        #expect(mine.contains("UPDATE names SET name='ANN' WHERE id=1;"), "a change of case in a NOCASE column is a change")
        #expect(mine.contains("score=0.30000000000000004"), "every bit of a real")
        #expect(mine.contains("DROP TRIGGER names_log;"), "no trigger fires on the statements")
        #expect(try statements(try applied(mine, to: a, in: folder)) == (try statements(b)), "applied, A is B")
        #expect(try statements(try applied(try ours(b, a), to: b, in: folder, name: "back.db")) == (try statements(a)), "and back")
    }
}
