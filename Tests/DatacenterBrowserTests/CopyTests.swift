import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// `y` copies the cursor cell's whole value and `Y` the row as a JSON object, for the
/// terminal edge to put on the clipboard with OSC 52; a locked value is never copied.
@Suite struct CopyTests {
    /// A table with a long text, a blob, a NULL and a real in one row.
    func makeValues(at path: String) throws {
        let db = try Database(path: path)
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, long TEXT, b BLOB, n, r REAL)")
        try db.execute("INSERT INTO t VALUES (1, ?, X'00ff', NULL, 1.5)", [.text(String(repeating: "x", count: 1_000) + "END")])
    }

    @Test func yCopiesTheWholeValueNotTheCutText() throws {
        let folder = TemporaryFolder()
        let db = folder.file("v.db")
        try makeValues(at: db)
        let b = try browser(db, keys: .empty)
        b.openTreeNode("t")
        #expect(b.takeClipboard() == nil)
        b.press(.character("l"), .character("y"))
        #expect(b.takeClipboard() == String(repeating: "x", count: 1_000) + "END")
        #expect(b.takeClipboard() == nil)                   // taken once
        #expect(b.screenText.contains("copied 1,003 bytes: long"))
        b.press(.character("l"), .character("y"))
        #expect(b.takeClipboard() == "00ff")                // a blob that is not text: its hex
    }

    @Test func capitalYCopiesTheRowAsAJSONObjectInColumnOrder() throws {
        let folder = TemporaryFolder()
        let db = folder.file("v.db")
        try makeValues(at: db)
        let b = try browser(db, keys: .empty)
        b.openTreeNode("t")
        b.press(.character("Y"))
        let json = try #require(b.takeClipboard())
        #expect(json.hasPrefix("{\"id\":1,\"long\":\"xxx"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["id"] as? Int == 1)
        #expect((object["long"] as? String)?.hasSuffix("END") == true)
        #expect((object["b"] as? [String: String]) == ["$blob": "AP8="])
        #expect(object["n"] is NSNull)
        #expect(object["r"] as? Double == 1.5)
        #expect(b.screenText.contains("the row as JSON"))
    }

    @Test func decryptedValuesAreCopiedDecryptedAndLockedOnesNever() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let open = try browser(root)
        open.openTreeNode("session")
        open.press(.character("/"))
        answer("apiToken", in: open)
        open.press(.character("y"))
        let grid = try #require(open.grid)
        guard case .kv(.string(let token)) = grid.rows[grid.cursor].cells[4].content else { Issue.record("no token"); return }
        #expect(token.hasPrefix("sk_live"))
        #expect(open.takeClipboard() == token)

        let locked = try browser(root, keys: .empty)
        locked.openTreeNode("session")
        locked.press(.character("/"))
        answer("apiToken", in: locked)
        locked.press(.character("y"))
        #expect(locked.takeClipboard() == nil)
        #expect(locked.screenText.contains("VALUE is locked (no key): nothing copied"))
        locked.press(.character("Y"))
        let row = try #require(locked.takeClipboard())
        #expect(row.contains("\"VALUE\":{\"$locked\":\"no key\"}"))
        #expect(row.hasPrefix("{\"KEY\":\"apiToken\""))
        #expect(locked.screenText.contains("1 locked value"))
    }

    @Test func theClipboardSequenceIsOSC52WithTheTextInBase64() {
        let sequence = CellCopy.osc52("héllo")
        #expect(sequence.hasPrefix("\u{1b}]52;c;"))
        #expect(sequence.hasSuffix("\u{7}"))
        let payload = sequence.dropFirst(7).dropLast()
        #expect(Data(base64Encoded: String(payload)).map { String(decoding: $0, as: UTF8.self) } == "héllo")
    }
}
