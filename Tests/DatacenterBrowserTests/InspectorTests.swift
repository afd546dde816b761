import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// The inspector on values that are large or stored in a form other than their text.
@Suite struct InspectorTests {
    /// Seconds `body` takes.
    func seconds(_ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

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

        // What laying the value out once costs, measured here so the bound holds on any machine.
        let once = seconds { _ = Inspector.wrap(text, width: b.paneArea.width) }
        let keys = seconds {
            for key in [Key.down, .down, .pageDown, .down, .up, .pageDown, .end, .home, .down, .down] {
                b.press(key)
                _ = b.render()
            }
        }
        // Ten keys and ten frames: laying the value out again for each would cost 20 × `once`.
        #expect(keys < once * 2, "10 keys took \(keys) s; one layout takes \(once) s")
        #expect(b.inspector?.scroll == 2)

        // The kept layout follows the width and the view.
        b.handle(.resize(width: 100, height: 40))
        #expect(b.render().lines()[2].count <= 100)
        #expect(b.inspector?.layout?.width == b.paneArea.width)
        b.press(.character("m"))
        #expect(b.inspector?.layout?.mode == .json)
        b.press(.character("m"))
        #expect(b.inspector?.layout?.mode == .hex)
        #expect(b.screenText.contains("00000000  77 6f 72 64 30 20"))   // "word0 "
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
