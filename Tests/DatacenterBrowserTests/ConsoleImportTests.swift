import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// `.import FILE TABLE` in the console stages the rows for the review; the commit writes
/// them in the store's transaction, all or nothing.
@Suite struct ConsoleImportTests {
    private func console(_ folder: TemporaryFolder, allowsWrites: Bool = true) throws -> (Browser, String) {
        let path = folder.file("s.db")
        try Database(path: path).execute("CREATE TABLE t (x)")
        let b = try browser(path, keys: .empty, allowsWrites: allowsWrites)
        b.press(.character(":"))
        return (b, path)
    }

    private func run(_ line: String, in b: Browser) {
        type(line, into: b)
        b.press(.enter)
        b.runCommands()
    }

    @Test func importIsStagedThenCommittedFromTheReview() throws {
        let folder = TemporaryFolder()
        let (b, path) = try console(folder)
        let csv = folder.file("rows.csv")
        try "name,n\n\"a, b\",1\nc,2\n".write(toFile: csv, atomically: true, encoding: .utf8)
        run(".import \(csv) people", in: b)
        #expect(b.review.staged.count == 1)
        #expect(b.review.staged.first?.preview == "IMPORT the rows of \(csv) (CSV) INTO \"people\"")
        #expect(b.console?.output.contains("nothing is written until the commit: w reviews it, c commits") == true)
        #expect(try Database(path: path).query("SELECT name FROM sqlite_schema WHERE name = 'people'").isEmpty, "nothing written yet")
        b.press(.escape, .character("w"), .character("c"))
        b.runCommands()
        #expect(b.review.staged.isEmpty, "\(b.message?.text ?? "")")
        #expect(try Database(path: path).query("SELECT name, n FROM people ORDER BY rowid").map(\.values)
                == [[.text("a, b"), .text("1")], [.text("c"), .text("2")]])
    }

    @Test func aBadLineCommitsNothingAndKeepsTheEditStaged() throws {
        let folder = TemporaryFolder()
        let (b, path) = try console(folder)
        let csv = folder.file("bad.csv")
        try "x\n1\n2,3\n".write(toFile: csv, atomically: true, encoding: .utf8)
        run(".import \(csv) t", in: b)
        b.press(.escape, .character("w"), .character("c"))
        b.runCommands()
        #expect(b.review.staged.count == 1)
        #expect(b.message?.text.contains("bad.csv:3:1: 2 fields where the header has 1") == true, "\(b.message?.text ?? "")")
        #expect(try Database(path: path).query("SELECT count(*) FROM t").first?.values == [.integer(0)])
    }

    @Test func readOnlyAndBadArgumentsStageNothing() throws {
        let folder = TemporaryFolder()
        let csv = folder.file("rows.csv")
        try "x\n1\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let (readOnly, _) = try console(folder, allowsWrites: false)
        run(".import \(csv) t", in: readOnly)
        #expect(readOnly.review.staged.isEmpty)
        #expect(readOnly.console?.output.last == "--read-only: .import stages nothing")
        let (b, _) = try console(TemporaryFolder())
        run(".import \(csv)", in: b)
        #expect(b.console?.output.last == ".import takes a file and a table: .import ?--csv|--jsonl? FILE TABLE")
        run(".import \(folder.file("rows.txt")) t", in: b)
        #expect(b.console?.output.last?.hasPrefix("cannot tell the format of") == true)
        run(".import --csv \(folder.file("none.csv")) t", in: b)
        #expect(b.console?.output.last?.hasPrefix("no file at") == true)
        #expect(b.review.staged.isEmpty)
    }
}
