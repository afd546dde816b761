import DatacenterKit
import Testing
@testable import DatacenterBrowser

/// The console's editor: SQL over several lines, the line keys acting on the cursor's line,
/// ↑ ↓ between lines and then into the history, and a layout that follows the cursor.
@Suite struct QueryEditorTests {
    func typed(_ text: String, into editor: inout QueryEditor) {
        for character in text {
            if character == "\n" { editor.newLine() } else { _ = editor.handle(.character(character)) }
        }
    }

    @Test func newLinesSplitAndBackspaceJoins() {
        var e = QueryEditor()
        typed("select *\nfrom t", into: &e)
        #expect(e.lines == ["select *", "from t"])
        #expect(e.cursorPosition == (1, 6))
        _ = e.handle(.home)
        #expect(e.cursorPosition == (1, 0))
        #expect(e.handle(.backspace) == .edited)
        #expect(e.text == "select *from t" && e.cursorPosition == (0, 8))
        e.newLine()
        #expect(e.text == "select *\nfrom t")
        _ = e.handle(.left)                                   // back over the line end
        #expect(e.cursorPosition == (0, 8))
        _ = e.handle(.control("d"))                           // deletes the line end
        #expect(e.lines == ["select *from t"])
    }

    @Test func theLineKeysActOnTheCursorsLine() {
        var e = QueryEditor()
        typed("select a,\n  b from t\nwhere x", into: &e)
        _ = e.handle(.up)
        #expect(e.cursorPosition == (1, 7))
        _ = e.handle(.control("e"))
        #expect(e.cursorPosition == (1, 10))
        _ = e.handle(.control("a"))
        #expect(e.cursorPosition == (1, 0))
        _ = e.handle(.control("k"))
        #expect(e.lines == ["select a,", "", "where x"])
        typed("  c from u", into: &e)
        _ = e.handle(.left)
        _ = e.handle(.control("u"))
        #expect(e.lines == ["select a,", "u", "where x"])
        #expect(e.cursorPosition == (1, 0))
    }

    @Test func upAndDownMoveBetweenLinesKeepingTheColumn() {
        var e = QueryEditor()
        typed("select name\nfrom\nwhere id = 1", into: &e)
        #expect(e.cursorPosition == (2, 12))
        #expect(e.handle(.up) == .consumed)
        #expect(e.cursorPosition == (1, 4), "the end of a shorter line")
        _ = e.handle(.up)
        #expect(e.cursorPosition == (0, 11), "aiming for the column it started from")
        _ = e.handle(.down)
        _ = e.handle(.down)
        #expect(e.cursorPosition == (2, 12))
        _ = e.handle(.left)
        _ = e.handle(.up)
        #expect(e.cursorPosition == (1, 4))
        _ = e.handle(.left)                                   // another key forgets the goal
        _ = e.handle(.up)
        #expect(e.cursorPosition == (0, 3))
    }

    @Test func theHistoryIsWalkedFromTheFirstAndLastLines() {
        var history = LineHistory()
        history.record("select 1\nunion all\nselect 2")
        history.record("select 3")
        var e = QueryEditor(history: history)
        typed("draft", into: &e)
        #expect(e.handle(.up) == .edited)
        #expect(e.text == "select 3")
        _ = e.handle(.up)
        #expect(e.text == "select 1\nunion all\nselect 2", "an entry of several lines comes back whole")
        #expect(e.cursorPosition == (2, 8))
        _ = e.handle(.up)                                     // inside the entry: a line up
        #expect(e.text == "select 1\nunion all\nselect 2" && e.cursorPosition == (1, 8))
        _ = e.handle(.down)
        _ = e.handle(.down)                                   // on its last line: the newer entry
        #expect(e.text == "select 3")
        _ = e.handle(.down)
        #expect(e.text == "draft", "back to what was being written")
        #expect(e.handle(.enter) == .submitted("draft"))
        #expect(e.history?.entries.last == "draft")
    }

    /// A box shows the lines around the cursor: the cursor's line always, the box scrolled
    /// as little as needed, and the lines beside it scrolled sideways with it.
    @Test func theLayoutFollowsTheCursorDownAndSideways() {
        var e = QueryEditor()
        typed((1...6).map { "line \($0)" }.joined(separator: "\n"), into: &e)
        e.followCursor(width: 20, height: 3)
        var box = e.layout(width: 20, height: 3)
        #expect(box.firstLine == 3 && box.lines.map(\.visible.trimmed) == ["line 4", "line 5", "line 6"])
        #expect(box.cursorLine == 2)
        for _ in 0..<4 { _ = e.handle(.up) }
        e.followCursor(width: 20, height: 3)
        box = e.layout(width: 20, height: 3)
        #expect(box.firstLine == 1 && box.cursorLine == 0, "scrolled up only as far as the cursor")
        _ = e.handle(.down)
        box = e.layout(width: 20, height: 3)
        #expect(box.firstLine == 1 && box.cursorLine == 1, "a move inside the box does not scroll it")

        var wide = QueryEditor()
        typed("select aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nfrom bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", into: &wide)
        wide.followCursor(width: 12, height: 2)
        let shown = wide.layout(width: 12, height: 2)
        #expect(shown.lines[1].leftClipped && shown.lines[1].visible.hasSuffix("bb "))
        #expect(shown.lines[0].firstColumn == shown.lines[1].firstColumn, "the lines stay aligned")
    }
}

private extension String {
    var trimmed: String { trimmingCharacters(in: .whitespaces) }
}
