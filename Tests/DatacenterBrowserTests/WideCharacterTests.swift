import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser
#if canImport(Glibc)
import Glibc
#endif


/// Wide characters, joiners and marks in the browser: drawn where ncursesw will put them,
/// with every scalar kept.
@Suite struct WideCharacterTests {
    static let family = "👨\u{200D}👩\u{200D}👧"
    static let names = [
        "rocket 🚀 done ✅", "⌚⚡🀄 three", "family " + family, "flag 🇺🇸 ok", "cafe\u{301} 日本語",
        String(repeating: "🚀", count: 30) + " long",
    ]

    /// A table `t(id, name, after)`: the names above, then `Z1`, `Z2`… to line up.
    func makeTable(_ folder: TemporaryFolder) throws -> String {
        let path = folder.file("wide.db")
        let db = try Database(path: path)
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, after TEXT)")
        for (index, name) in Self.names.enumerated() {
            try db.execute("INSERT INTO t VALUES (?, ?, ?)", [.integer(Int64(index + 1)), .text(name), .text("Z\(index + 1)")])
        }
        return path
    }

    /// The terminal column where `needle` starts on `line` as ncursesw places it: the library's
    /// widths of everything drawn before it.
    func terminalColumn(of needle: String, in line: String) -> Int? {
        line.range(of: needle).map { LibCWidth.columns(line[..<$0.lowerBound]) }
    }

    /// What curses can hold in one cell: empty (a wide character's second half) or one
    /// spacing scalar followed by zero-width ones only.
    func isOneCursesCell(_ cell: Cell) -> Bool {
        let scalars = Array(cell.text.unicodeScalars)
        guard let first = scalars.first else { return true }
        return LibCWidth.width(first) > 0 && scalars.dropFirst().allSatisfy { LibCWidth.width($0) == 0 }
    }

    @Test func columnsAfterWideCharactersLineUpWithTheirHeader() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeTable(folder), keys: .empty, width: 120, height: 20)
        b.openTreeNode("t")
        let screen = b.render()
        let lines = screen.lines()
        let header = try #require(terminalColumn(of: "after", in: lines[1]))
        for index in Self.names.indices {
            let line = try #require(lines.first { $0.contains("Z\(index + 1)") }, "row \(index + 1) on screen")
            #expect(terminalColumn(of: "Z\(index + 1)", in: line) == header, "\(line)")
        }
        // Every line is exactly the screen's width as the terminal counts it.
        for line in lines { #expect(LibCWidth.columns(line) == 120, "\(line)") }
        // The family is drawn with all its scalars, each cell one curses cell.
        #expect(lines.contains { $0.contains("family " + Self.family) })
        for cell in screen.cells { #expect(isOneCursesCell(cell), "\(cell.text.unicodeScalars.map { String($0.value, radix: 16) })") }
        // The long value is cut with a marker, no rocket halved.
        let long = try #require(lines.first { $0.contains("Z6") })
        #expect(long.contains("🚀…"))
    }

    @Test func theInspectorShowsAZWJSequenceWhole() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeTable(folder), keys: .empty, width: 80, height: 20)
        b.openTreeNode("t")
        b.press(.down, .down, .right, .enter)
        let screen = b.render()
        #expect(screen.text.contains("family " + Self.family))
        for cell in screen.cells { #expect(isOneCursesCell(cell)) }
        for line in screen.lines() { #expect(LibCWidth.columns(line) == 80, "\(line)") }
    }

    @Test func wrappingBreaksBetweenCellsAndKeepsEveryScalar() {
        let text = "ab" + Self.family + Self.family + "✅"
        let lines = Inspector.wrap(text, width: 8)
        #expect(lines == ["ab👨\u{200D}👩\u{200D}👧", "👨\u{200D}👩\u{200D}👧✅"])
        #expect(lines.joined().unicodeScalars.elementsEqual(text.unicodeScalars))
        for line in lines { #expect(LibCWidth.columns(line) <= 8) }
        let words = Inspector.wrapWords("go " + String(repeating: "🚀", count: 7) + " now", width: 8)
        #expect(words == ["go", "🚀🚀🚀🚀", "🚀🚀🚀", "now"])
    }
}
