import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The C library's `wcwidth`, looked up by name and called under a C.UTF-8 locale: the
/// columns a terminal gives what the command prints, computed apart from the tool.
private enum LibCWidth {
    private typealias Function = @convention(c) (Int32) -> Int32
    nonisolated(unsafe) private static let function = unsafeBitCast(dlsym(dlopen(nil, RTLD_NOW), "wcwidth")!, to: Function.self)
    nonisolated(unsafe) private static let locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil)!

    static func columns(_ text: some StringProtocol) -> Int {
        let previous = uselocale(locale)
        defer { uselocale(previous) }
        return text.unicodeScalars.reduce(0) { $0 + Int(function(Int32(bitPattern: $1.value))) }
    }
}

/// Tables printed by the command line keep their columns under wide characters.
@Suite struct TableWidthTests {
    @Test func columnsAfterEmojiAndJoinersLineUpWithTheHeader() throws {
        let scratch = Scratch()
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
