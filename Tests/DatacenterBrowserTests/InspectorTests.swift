import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// The inspector on values that are large or stored in a form other than their text.
@Suite struct InspectorTests {
    @Test func movingInAHugeValueDoesNotLayItOutAgain() throws {
        let folder = TemporaryFolder()
        let db = folder.file("big.db")
        // 1 MB of words, lines of about 800 characters: wrapping it takes a while.
        let line = (0..<100).map { "word\($0)" }.joined(separator: " ") + "\n"
        let text = String(repeating: line, count: 1_048_576 / line.utf8.count)
        let database = try Database(path: db)
        try database.execute("CREATE TABLE big(id INTEGER PRIMARY KEY, v TEXT)")
        try database.execute("INSERT INTO big(v) VALUES (?)", [.text(text)])
        let b = try browser(db, keys: .empty, width: 120, height: 40)
        b.openTreeNode("big")
        b.press(.right)                                  // the v column
        b.press(.enter)
        #expect(b.focus == .inspector)
        _ = b.render()

        // Ten keys and ten frames lay the value out no more: the kept layout serves them all.
        let keys = WorkMeter.measure {
            for key in [Key.down, .down, .pageDown, .down, .up, .pageDown, .end, .home, .down, .down] {
                b.press(key)
                _ = b.render()
            }
        }
        #expect(keys[.inspectorLayouts] == 0, "\(keys.all)")
        #expect(b.inspector?.scroll == 2)
        // A new width is laid out once, however many frames follow.
        let resized = WorkMeter.measure {
            b.handle(.resize(width: 110, height: 40))
            for _ in 0..<3 { _ = b.render() }
        }
        #expect(resized[.inspectorLayouts] == 1, "\(resized.all)")

        // The kept layout follows the width and the view.
        b.handle(.resize(width: 100, height: 40))
        #expect(b.render().lines()[2].count <= 100)
        #expect(b.inspector?.layout?.width == b.paneArea.width)
        b.press(.character("m"))
        #expect(b.inspector?.layout?.mode == .json)
        b.press(.character("m"))
        #expect(b.inspector?.mode == .hex)
        #expect(b.screenText.contains("00000000  77 6f 72 64 30 20"))   // "word0 "
        // The hex view is made from the bytes a screenful at a time (nothing laid out), and
        // reaches the last byte (it stopped at 20,000 lines, 160 KB here, before).
        let perLine = b.paneArea.width >= 76 ? 16 : 8
        let lastOffset = (text.utf8.count - 1) / perLine * perLine
        let hex = WorkMeter.measure {
            b.press(.end)
            _ = b.render()
        }
        #expect(hex[.inspectorLayouts] == 0, "\(hex.all)")
        #expect(b.screenText.contains(String(format: "%08x  ", lastOffset)), "\(b.screenText)")
    }

    /// A property list's hex view shows the binary property list it is stored as (decrypted
    /// when encrypted), not the JSON the json view shows: KV values and archived cache entries,
    /// plain and encrypted.
    @Test(arguments: ["app", "profile", "tokens"])
    func theHexViewOfAPropertyListShowsTheStoredBytes(node: String) throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder))
        b.openTreeNode(node)
        b.press(.enter)
        #expect(b.focus == .inspector)
        #expect(b.screenText.contains("json view"))
        b.press(.character("m"))
        let screen = b.screenText
        #expect(screen.contains("hex view"))
        #expect(screen.contains("00000000  62 70 6c 69 73 74 30 30"))     // "bplist00"
        #expect(screen.contains("bplist00"))
    }
}
