import Foundation
import Testing
@testable import DatacenterKit

/// `DatabaseValue.sqlLiteral`, the one spelling of a value in SQL: SQLite reads every
/// literal back as the value it was written from, infinities included, and an export's
/// statements spell an infinity as it does.
@Suite struct SQLLiteralTests {
    @Test func everyLiteralReadsBackAsItsValue() throws {
        let db = try Database.inMemory()
        let values: [DatabaseValue] = [
            .null, .integer(0), .integer(.min), .integer(.max), .real(2.5), .real(-0.1), .real(1e-300), .real(1e20),
            .real(.greatestFiniteMagnitude), .real(.infinity), .real(-.infinity), .real(1.0), .real(0.1 + 0.2),
            .text(""), .text("it's \"quoted\"\n"), .text("日本"), .blob(Data()), .blob(Data([0, 0xFF, 0x7F])),
        ]
        for value in values {
            let literal = value.sqlLiteral
            #expect(try db.scalar("SELECT \(literal)") == value, "\(value) as \(literal)")
        }
        #expect(DatabaseValue.real(.infinity).sqlLiteral == "1e999")
        #expect(DatabaseValue.real(-.infinity).sqlLiteral == "-1e999")
        #expect(DatabaseValue.real(.nan).sqlLiteral == "NULL")
        #expect(try db.scalar("SELECT typeof(\(DatabaseValue.real(1.0).sqlLiteral))") == .text("real"))
    }

    @Test func anExportsStatementsSpellAnInfinityAsTheLiteralDoes() throws {
        let folder = TemporaryFolder()
        let db = try Database(path: folder.file("i.db"))
        try db.execute("CREATE TABLE i (x)")
        try db.execute("INSERT INTO i VALUES (9e999), (-9e999)")
        let path = folder.file("i.sql")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try TableExport(table: "i", format: .sql).run(on: db, to: handle)
        try handle.close()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("VALUES(1e999)") && text.contains("VALUES(-1e999)"), "\(text)")
    }
}
