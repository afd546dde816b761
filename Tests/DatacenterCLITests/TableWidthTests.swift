import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif


/// Tables printed by the command line keep their columns under wide characters.
@Suite struct TableWidthTests {
    @Test func columnsAfterEmojiAndJoinersLineUpWithTheHeader() throws {
        let scratch = TemporaryFolder()
        let db = scratch.file("wide.db")
        #expect(try CLI.run(["import", "/dev/null", db]).status == 0)
        let names = ["rocket 🚀", "✅⌚⚡🀄", "family 👨\u{200D}👩\u{200D}👧", "flag 🇺🇸", "cafe\u{301} 日本語", "plain"]
        let values = names.enumerated().map { "(\($0.offset + 1), '\($0.element)', 'Z\($0.offset + 1)')" }.joined(separator: ", ")
        let setup = try CLI.run(["sql", db, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, after TEXT); INSERT INTO t VALUES \(values)"])
        #expect(setup.status == 0, "\(setup.stderr)")
        let result = try CLI.run(["sql", db, "SELECT name, after FROM t ORDER BY id"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == names.count + 2)
        let header = try #require(lines.first?.range(of: "after").map { LibCWidth.columns(lines[0][..<$0.lowerBound]) })
        for (index, name) in names.enumerated() {
            let line = try #require(lines.first { $0.hasSuffix("Z\(index + 1)") })
            #expect(line.unicodeScalars.starts(with: name.unicodeScalars), "every scalar printed: \(line)")
            let column = line.range(of: "Z\(index + 1)").map { LibCWidth.columns(line[..<$0.lowerBound]) }
            #expect(column == header, "\(line)")
        }
    }
}
