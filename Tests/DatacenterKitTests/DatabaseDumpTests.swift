import Foundation
import Testing
@testable import DatacenterKit

/// `DatabaseDump` rebuilds the database it dumps: loaded by the sqlite3 shell into an
/// empty file, it gives a database whose own `.dump` (the shell's) is the original's, byte
/// for byte: tables of every kind, their rows and values, sequences, indexes, triggers,
/// views and a virtual table.
@Suite struct DatabaseDumpTests {
    static func makeVaried(at path: String) throws {
        let db = try Database(path: path)
        try db.executeScript(#"""
            CREATE TABLE plain (a, b TEXT, c REAL, d BLOB);
            CREATE TABLE keyed (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, twice INTEGER GENERATED ALWAYS AS (id * 2) STORED);
            CREATE TABLE "odd ""name""" (k TEXT PRIMARY KEY, v) WITHOUT ROWID;
            CREATE INDEX keyed_name ON keyed(name);
            CREATE VIEW names AS SELECT name FROM keyed;
            CREATE TRIGGER keyed_log AFTER INSERT ON keyed BEGIN INSERT INTO plain(a) VALUES (new.id); END;
            CREATE VIRTUAL TABLE docs USING fts5(body);
            INSERT INTO docs(body) VALUES ('full text one'), ('two');
            INSERT INTO "odd ""name""" VALUES ('k1', x'00ff'), ('it''s', 'multi
            line'), ('é', 1.5e300);
            """#)
        for i in 0..<5000 {
            try db.execute("INSERT INTO keyed(name) VALUES (?)", [.text("name \(i) 'quoted'")])
        }
        try db.execute("DELETE FROM keyed WHERE id > 4990") // the sequence stays ahead of the rows
        try db.execute("INSERT INTO plain VALUES (NULL, 'x', 0.1, x''), (-9223372036854775808, '', -0.0, NULL), (1e-320, '\u{1F600}', 3.0, x'0102')")
    }

    @Test func theShellLoadsItIntoTheSameDatabase() throws {
        let folder = TemporaryFolder()
        let original = folder.file("original.db")
        try Self.makeVaried(at: original)
        let dumpPath = folder.file("dump.sql")
        var chunks = 0
        var report = DatabaseDump.Report()
        try PrivateFile.writeAtomically(to: dumpPath) { handle in
            report = try DatabaseDump().run(on: try Database(path: original, mode: .readOnly)) { bytes in
                chunks += 1
                try handle.write(contentsOf: bytes)
            }
        }
        #expect(report.rows > 5000 && report.tables >= 3)
        #expect(chunks > 1, "written in pieces, not held whole")
        let copy = folder.file("copy.db")
        let load = try runProcess("/usr/bin/env", ["sqlite3", copy, ".read \(dumpPath)"])
        #expect(load.status == 0, "\(load.output)")
        let expected = try sqlite3ShellBytes([original, ".dump"])
        #expect(!expected.isEmpty)
        #expect(try sqlite3ShellBytes([copy, ".dump"]) == expected)
        #expect(try sqlite3Shell(copy, "PRAGMA integrity_check") == "ok")
        #expect(try sqlite3Shell(copy, "SELECT seq FROM sqlite_sequence") == "5000")
        #expect(try sqlite3Shell(copy, "SELECT count(*) FROM docs WHERE docs MATCH 'full'") == "1")
    }

    @Test func progressCanStopIt() throws {
        let folder = TemporaryFolder()
        let original = folder.file("original.db")
        try Self.makeVaried(at: original)
        var calls = 0
        #expect(throws: TableExportError.cancelled(afterRows: 4096)) {
            try DatabaseDump().run(on: try Database(path: original, mode: .readOnly), to: { _ in }) { _ in
                calls += 1
                return false
            }
        }
        #expect(calls == 1)
    }
}
