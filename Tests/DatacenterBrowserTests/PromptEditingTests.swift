import DatacenterKit
import Testing
@testable import DatacenterBrowser

/// Every prompt edits through the one line editor: the `/` search and `e` edit prompts, the
/// SQL console's input and the DAO form's fields move a cursor, take Home/End and Ctrl-A/E/U/W/K,
/// and keep the cursor on screen in text longer than the line.
@Suite struct PromptEditingTests {
    /// The prompt's line on screen (the one starting with its label).
    private func promptLine(_ b: Browser, label: String) -> String {
        b.render().text.split(separator: "\n").map(String.init).first { $0.hasPrefix(label) } ?? ""
    }

    @Test func theSearchPromptEditsInTheMiddleAndRemembersEarlierSearches() throws {
        let folder = TemporaryFolder()
        let db = folder.file("rows.db")
        try makeNumbersTable(at: db, rows: 3_000)
        let b = try browser(db, keys: .empty, width: 80, height: 20)
        b.openTreeNode("numbers")
        b.press(.character("/"))
        type("row 200", into: b)
        // Back before "200", insert "2" and "5" after it: "row 2500" is found only if they land there.
        b.press(.left, .left, .left)
        b.press(.right)
        type("5", into: b)
        #expect(b.prompt?.text == "row 2500")
        b.press(.character("\u{5}"))          // Ctrl-E, the end
        b.press(.backspace)
        type("0", into: b)
        #expect(b.prompt?.text == "row 2500")
        b.press(.enter)
        #expect(b.grid.map { $0.rows[$0.cursor].key.first?.int64Value } == 2500)

        // A second search, then ↑ in a third prompt walks back to both.
        b.press(.character("/"))
        b.press(.character("\u{15}"))         // Ctrl-U clears the prefilled query
        #expect(b.prompt?.text == "")
        type("row 12", into: b)
        b.press(.enter)
        b.press(.character("/"))
        b.press(.character("\u{15}"))
        b.press(.up)
        #expect(b.prompt?.text == "row 12")
        b.press(.up)
        #expect(b.prompt?.text == "row 2500")
        b.press(.down, .down)
        #expect(b.prompt?.text == "")
    }

    @Test func aLongEditKeepsTheCursorOnScreenAtBothEnds() throws {
        let folder = TemporaryFolder()
        let db = folder.file("rows.db")
        try makeNumbersTable(at: db, rows: 10)
        let b = try browser(db, keys: .empty, width: 60, height: 12)
        b.openTreeNode("numbers")
        b.press(.character("/"))
        let long = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        type(long, into: b)
        var shown = promptLine(b, label: "/")
        #expect(shown.contains("XYZ"), "the end being typed is on screen: \(shown)")
        #expect(shown.contains("…"), "the hidden start is marked: \(shown)")
        #expect(!shown.contains("abc"))
        b.press(.home)
        shown = promptLine(b, label: "/")
        #expect(shown.contains("/abc"), "Home brings the start back: \(shown)")
        #expect(!shown.contains("XYZ"))
        // Ctrl-K at the start empties the line; Ctrl-W takes back one word.
        b.press(.character("\u{B}"))
        #expect(b.prompt?.text == "")
        type("one two three", into: b)
        b.press(.character("\u{17}"))
        #expect(b.prompt?.text == "one two ")
    }

    @Test func theConsoleInputMovesItsCursorAndKeepsItsHistory() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root)
        b.press(.character(":"))
        #expect(b.focus == .console)
        type("SELECT count(*) FROM notes", into: b)
        b.press(.home)
        b.press(.character("\u{B}"))          // Ctrl-K from the start: nothing left
        #expect(b.console?.input.text == "")
        type("count(*) FROM notes", into: b)
        b.press(.character("\u{1}"))          // Ctrl-A, then type the missing head in front
        type("SELECT ", into: b)
        #expect(b.console?.input.text == "SELECT count(*) FROM notes")
        b.press(.enter)
        #expect(b.grid?.rows.first?.cells.first?.text == "3")
        #expect(b.console?.input.text == "")
        b.press(.character(":"))
        b.press(.up)
        #expect(b.console?.input.text == "SELECT count(*) FROM notes")
        // The history moves with the console to another store.
        b.press(.escape)
        b.press(.character(":"))
        b.press(.up)
        #expect(b.console?.input.text == "SELECT count(*) FROM notes")
    }
}

@Suite struct DAOFieldEditingTests {
    @Test func aFieldTakesTheCursorKeysAndTheControlKeys() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, width: 130, height: 40)
        b.openNodeAndLoad(named: "messages")
        b.press(.character("d"))
        let index = try #require(b.daoPanel?.config.methods.firstIndex { $0.id == "listMessages" })
        b.press(.down, times: index)
        b.press(.enter)
        #expect(b.daoPanel?.stage == .form)
        type("\"tem\"", into: b)
        // Into the middle: "tem" → "team".
        b.press(.left, .left)
        type("a", into: b)
        #expect(b.daoPanel?.fields.first?.text == "\"team\"")
        #expect(b.screenText.contains("string \"team\""))
        b.press(.home)
        b.press(.character("\u{B}"))          // Ctrl-K: the field is empty, not nil
        #expect(b.daoPanel?.fields.first?.text == "")
        #expect(b.daoPanel?.fields.first?.isNil == false)
        type("\"team\"", into: b)
        b.press(.enter)
        #expect(b.screenText.contains("I'll bring the slides"))
    }
}
