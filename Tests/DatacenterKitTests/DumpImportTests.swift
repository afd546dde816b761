import Foundation
import Testing
@testable import DatacenterKit

/// Importing SQL dumps as `sqlite3 .dump` writes them.
@Suite struct DumpImportTests {
    static let goodDump = """
        PRAGMA foreign_keys=OFF;
        BEGIN TRANSACTION;
        CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT);
        INSERT INTO notes VALUES(1,'plain');
        INSERT INTO notes VALUES(2,'semi;colon; inside');
        INSERT INTO notes VALUES(3,'multi
        line;
        text');
        -- a comment line; with a semicolon;
        INSERT INTO notes VALUES(4,'a'); INSERT INTO notes VALUES(5,'b');
        CREATE TABLE tags(
          note_id INTEGER,
          tag TEXT
        );

        /* block comment; with semicolon */
        INSERT INTO tags VALUES(1,'x');
        INSERT INTO notes VALUES(6,'it''s; quoted'); -- trailing comment
        CREATE INDEX tags_by_note ON tags(note_id);
        COMMIT;
        -- end of dump
        """

    @Test func aGoodDumpImportsEverything() throws {
        let db = try Database.inMemory()
        let report = try db.importDump(Self.goodDump)
        #expect(report.failures.isEmpty)
        // PRAGMA, 2 CREATE TABLE, 7 INSERT, CREATE INDEX; BEGIN/COMMIT are absorbed, comments are not statements.
        #expect(report.executedCount == 11)
        #expect(!db.isInTransaction)
        let bodies = try db.query("SELECT body FROM notes ORDER BY id").map { $0[0] }
        #expect(bodies == [
            .text("plain"), .text("semi;colon; inside"), .text("multi\nline;\ntext"),
            .text("a"), .text("b"), .text("it's; quoted"),
        ])
        #expect(try db.scalar("SELECT tag FROM tags WHERE note_id = 1") == .text("x"))
        #expect(try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'tags_by_note'") == .integer(1))
    }

    /// A dump far larger than the reader's blocks and chunks, with statements, strings and
    /// comments across their boundaries, imports whole, and a failure deep in it names its
    /// own line.
    @Test func aLargeDumpIsReadInPiecesAndLinesStayRight() throws {
        var dump = "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT);\nCREATE TRIGGER tr AFTER INSERT ON t BEGIN\n  SELECT 1;\n  SELECT 2;\nEND;\n"
        var line = 6
        var expected: [String] = []
        for i in 0..<20_000 {
            let body = i % 7 == 0 ? "semi;\ncolon \(i);" : (i % 5 == 0 ? String(repeating: "x", count: 3_000) : "row \(i)")
            expected.append(body)
            dump += "INSERT INTO t VALUES(\(i), '\(body)');" + (i % 3 == 0 ? " -- note;\n" : "\n")
            line += 1 + body.filter { $0 == "\n" }.count
        }
        #expect(dump.utf8.count > 4 * DumpReader.chunkSize)
        let db = try Database.inMemory()
        let report = try db.importDump(dump)
        #expect(report.executedCount == 20_002)
        #expect(try db.query("SELECT body FROM t ORDER BY id").compactMap { $0[0].stringValue } == expected)

        let broken = dump + "INSERT INTO nowhere VALUES(1);\n"
        let other = try Database.inMemory()
        let failure = #expect(throws: DumpStatementFailure.self) { try other.importDump(broken) }
        #expect(failure?.line == line)
        #expect(try other.scalar("SELECT count(*) FROM sqlite_master") == .integer(0))
    }

    /// A NUL byte would end the text SQLite reads: it is a failing statement, never the
    /// silent end of the dump.
    @Test func aNULByteInADumpIsAnErrorNotTheEnd() throws {
        let db = try Database.inMemory()
        let dump = "CREATE TABLE t(x);\nINSERT INTO t VALUES(1);\n\0\nINSERT INTO t VALUES(2);\n"
        let failure = #expect(throws: DumpStatementFailure.self) { try db.importDump(dump) }
        #expect(failure?.line == 3)
        #expect(failure?.error.message.contains("NUL") == true)
        let report = try db.importDump(dump, continueOnError: true)
        #expect(report.failures.count == 1)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(2))
    }

    @Test func aRollbackInADumpCannotEndTheImportMidway() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE t(x)")
        let dump = "INSERT INTO t VALUES(1);\nROLLBACK TRANSACTION;\nINSERT INTO t VALUES(2);\n"
        let failure = #expect(throws: DumpStatementFailure.self) { try db.importDump(dump) }
        #expect(failure?.line == 2)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(0))
        #expect(!db.isInTransaction)
        // Skipped with continueOnError: the rest commits, in one transaction.
        let report = try db.importDump(dump, continueOnError: true)
        #expect(report.failures.map(\.line) == [2])
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(2))
        // ROLLBACK TO a savepoint stays inside the transaction and runs.
        let savepoint = "SAVEPOINT s;\nINSERT INTO t VALUES(3);\nROLLBACK TO s;\nRELEASE s;\n"
        #expect(try db.importDump(savepoint).failures.isEmpty)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(2))
    }

    @Test func aDumpWithCRLFLineEndingsImports() throws {
        let db = try Database.inMemory()
        let text = "BEGIN TRANSACTION;\r\nCREATE TABLE t(x);\r\nINSERT INTO t VALUES(1);\r\nCOMMIT;\r\n"
        let report = try db.importDump(text)
        #expect(report.executedCount == 2)
        #expect(try db.scalar("SELECT x FROM t") == .integer(1))

        let broken = "CREATE TABLE u(x);\r\n\r\nINSERT INTO nope VALUES(1);\r\n"
        let failure = #expect(throws: DumpStatementFailure.self) { try db.importDump(broken) }
        #expect(failure?.line == 3)
    }

    @Test func aDumpFileImportsAndFailuresNameTheFile() throws {
        let folder = TemporaryFolder()
        let dumpPath = folder.file("dump.sql")
        try Self.goodDump.write(toFile: dumpPath, atomically: true, encoding: .utf8)
        let db = try Database(path: folder.file("db.sqlite"))
        #expect(try db.importDump(atPath: dumpPath).executedCount == 11)
        #expect(try Database(path: folder.file("db.sqlite")).scalar("SELECT count(*) FROM notes") == .integer(6))

        try "CREATE TABLE z(a);\nINSERT INTO nowhere VALUES (1);\n".write(toFile: dumpPath, atomically: true, encoding: .utf8)
        let failure = #expect(throws: DumpStatementFailure.self) { try db.importDump(atPath: dumpPath) }
        #expect(failure?.file == dumpPath)
        #expect(failure?.line == 2)
        #expect(failure?.description.hasPrefix("\(dumpPath):2:") == true)
    }

    @Test func aMissingDumpFileIsAnError() throws {
        let folder = TemporaryFolder()
        let db = try Database.inMemory()
        let error = #expect(throws: DatabaseError.self) { try db.importDump(atPath: folder.file("nope.sql")) }
        #expect(error?.description.contains(folder.file("nope.sql")) == true)
    }

    @Test func aBrokenStatementRollsBackEverythingAndNamesItsLine() throws {
        let folder = TemporaryFolder()
        let db = try Database(path: folder.file("db.sqlite"))
        try db.execute("CREATE TABLE existing(v); INSERT INTO existing VALUES ('before')")
        let dump = """
            BEGIN TRANSACTION;
            CREATE TABLE t(x TEXT);
            INSERT INTO t VALUES('a');
            INSERT INTO existing VALUES ('from the dump');
            INSERT INTO t VALUES('b
            c');
            INSERT INTO nope VALUES('broken');
            INSERT INTO t VALUES('after');
            COMMIT;
            """
        let failure = #expect(throws: DumpStatementFailure.self) { try db.importDump(dump, named: "broken.sql") }
        #expect(failure?.line == 7)
        #expect(failure?.file == "broken.sql")
        #expect(failure?.statement == "INSERT INTO nope VALUES('broken');")
        #expect(failure?.error.message.contains("nope") == true)
        #expect(!db.isInTransaction)
        // Nothing of the dump is left, in this connection or in the file.
        for check in [db, try Database(path: folder.file("db.sqlite"))] {
            #expect(try check.scalar("SELECT count(*) FROM sqlite_master WHERE name = 't'") == .integer(0))
            #expect(try check.query("SELECT v FROM existing").map { $0[0] } == [.text("before")])
        }
    }

    @Test func theLineOfAFailingStatementIsItsOwnNotThatOfAPrecedingComment() throws {
        let db = try Database.inMemory()
        let dump = """
            CREATE TABLE t(x);
            -- the next statement is broken
            /* really
               broken */
            INSERT INTO nope VALUES(1);
            """
        let failure = #expect(throws: DumpStatementFailure.self) { try db.importDump(dump) }
        #expect(failure?.line == 5)
        #expect(failure?.statement.hasPrefix("INSERT INTO nope") == true)
    }

    @Test func aSyntaxErrorIsReportedWithItsLine() throws {
        let db = try Database.inMemory()
        let failure = #expect(throws: DumpStatementFailure.self) {
            try db.importDump("CREATE TABLE t(x);\n\n\nINSERT INTO t VALUES(1);\nINSRT INTO t VALUES(2);\n")
        }
        #expect(failure?.line == 5)
        #expect(try db.scalar("SELECT count(*) FROM sqlite_master") == .integer(0))
    }

    @Test func continueOnErrorSkipsAndReportsEachFailure() throws {
        let folder = TemporaryFolder()
        let db = try Database(path: folder.file("db.sqlite"))
        let dump = """
            BEGIN TRANSACTION;
            CREATE TABLE t(x TEXT UNIQUE);
            INSERT INTO t VALUES('a');
            INSERT INTO t VALUES('a');
            INSERT INTO t VALUES(
              'b');
            INSERT INTO missing VALUES(1); INSERT INTO t VALUES('c');
            SELEC broken;
            INSERT INTO missing VALUES(2); -- a trailing comment
            INSERT INTO missing VALUES(3);
            INSERT INTO t VALUES('d
            e');
            COMMIT;
            """
        let report = try db.importDump(dump, named: "partial.sql", continueOnError: true)
        #expect(report.failures.map(\.line) == [4, 7, 8, 9, 10])
        #expect(report.failures.map(\.file) == Array(repeating: "partial.sql", count: 5))
        #expect(report.failures.first?.error.code == SQLiteCode.constraint)
        #expect(report.failures.last?.statement == "INSERT INTO missing VALUES(3);")
        #expect(report.executedCount == 5)
        #expect(!db.isInTransaction)
        let imported = try Database(path: folder.file("db.sqlite")).query("SELECT x FROM t ORDER BY x").map { $0[0] }
        #expect(imported == [.text("a"), .text("b"), .text("c"), .text("d\ne")])
    }

    @Test func anEmptyOrCommentOnlyDumpDoesNothing() throws {
        let db = try Database.inMemory()
        #expect(try db.importDump("") == DumpImportReport())
        #expect(try db.importDump("\n\n-- nothing here\n/* or here */\n") == DumpImportReport())
    }

    @Test func aLastStatementWithoutSemicolonStillRuns() throws {
        let db = try Database.inMemory()
        let report = try db.importDump("CREATE TABLE t(x);\nINSERT INTO t VALUES(1)")
        #expect(report.executedCount == 2)
        #expect(try db.scalar("SELECT x FROM t") == .integer(1))
    }
}
