import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

@Suite struct DAOPanelTests {
    /// The demo open on alice's messages table with the DAO panel's method `id` chosen.
    func form(_ method: String, keys: KeyRing = KeyRing([DemoStore.key]), table: String = "messages", width: Int = 130, height: Int = 40,
              allowsWrites: Bool = true, folder: TemporaryFolder = TemporaryFolder(), prepare: (String) throws -> Void = { _ in }) throws -> (Browser, TemporaryFolder) {
        let root = try makeDemo(folder)
        try prepare(root)
        let b = try browser(root, keys: keys, width: width, height: height, allowsWrites: allowsWrites)
        b.openNodeAndLoad(named: table)
        b.press(.character("d"))
        #expect(b.focus == .dao)
        let index = try #require(b.daoPanel?.config.methods.firstIndex { $0.id == method })
        b.press(.down, times: index)
        b.press(.enter)
        #expect(b.daoPanel?.stage == .form)
        return (b, folder)
    }


    /// A paste into a field is one edit: the preview is worked out once for it, not once a
    /// character (a 2,000-character paste asked for 2,000 previews before).
    @Test func aPasteIntoAFieldIsOneEditAndOnePreview() throws {
        let (b, folder) = try form("listMessages")
        defer { withExtendedLifetime(folder) {} }
        let text = "\"" + String(repeating: "x", count: 1_998) + "\""
        b.handle(.paste(text))
        #expect(b.daoPanel?.fields.first?.text == text)
        let previews = b.takeCommands().filter { if case .daoQueryPlan = $0 { return true } else { return false } }
        #expect(previews.count == 1)
        #expect(b.daoPanel?.previewing != nil)
        // Typed, the same text asks once a character.
        let (typed, typedFolder) = try form("listMessages")
        defer { withExtendedLifetime(typedFolder) {} }
        for character in "12345" { typed.handle(.key(.character(character))) }
        #expect(typed.commands.filter { if case .daoQueryPlan = $0 { return true } else { return false } }.count == 5)
    }

    /// Outside text, a paste's characters are keys, as typed: in the grid, `jj` moves two rows.
    @Test func aPasteWhereNoTextIsTypedIsKeys() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder))
        b.openNodeAndLoad(named: "notes")
        b.handle(.paste("jj"))
        #expect(b.grid?.cursor == 2)
        // At the search prompt, the paste replaces the text offered, its line breaks spaces.
        b.press(.character("/"))
        b.handle(.paste("two\nlines"))
        #expect(b.prompt?.text == "two lines")
    }

    /// A list typed for an argument the method binds as one value (`#{conversation}`) is
    /// bound as its JSON text: the form says so; a list for a foreach collection is not warned of.
    @Test func aListForAnArgumentUsedAsOneValueIsWarnedOf() throws {
        let (b, folder) = try form("listMessages")
        defer { withExtendedLifetime(folder) {} }
        #expect(b.daoPanel?.method?.argumentsUsedWhole == ["conversation", "limit"])
        type("[\"team\", \"bob\"]", into: b)
        b.press(.down)
        type("[\"bob\"]", into: b)
        let fields = try #require(b.daoPanel?.fields)
        #expect(fields[0].summary.hasSuffix("⚠ bound as its JSON text: the method uses $conversation as one value"), "\(fields[0].summary)")
        #expect(!fields[1].summary.contains("⚠"), "\(fields[1].summary)")
        #expect(b.screenText.contains("⚠ bound as its JSON text"))
    }

    @Test func theFormPreviewsExactlyTheRenderedSQLWithBindingsAndPlan() throws {
        let (b, folder) = try form("listMessages")
        defer { withExtendedLifetime(folder) {} }   // the store files stay while the panel opens them
        type("\"team\"", into: b)
        b.press(.down, times: 3)
        type("2", into: b)
        let panel = try #require(b.daoPanel)
        let expected = try panel.config.render("listMessages", arguments: [.string("team"), .nil, .nil, .integer(2)], globals: [:], tableName: "messages")
        #expect(panel.previews.map(\.sql) == expected.statements.map(\.sql))
        #expect(panel.previews.first?.bindings == "'team', 2")
        #expect(panel.previews.first?.plan.first?.contains("messages_by_conversation") == true)
        let screen = b.screenText
        #expect(screen.contains("conversation = 'team'"))
        #expect(screen.contains("bindings   'team', 2"))
        try assertSnapshot(b.render(), named: "dao-form-preview")
    }

    @Test func runningASelectShowsItsRowsDecrypted() throws {
        let (b, folder) = try form("listMessages")
        defer { withExtendedLifetime(folder) {} }   // the store files stay while the panel opens them
        type("\"team\"", into: b)
        b.press(.enter)
        let screen = b.screenText
        #expect(screen.contains("3 row(s)"))
        #expect(screen.contains("I'll bring the slides"))
        #expect(!screen.contains("[locked"))
    }

    @Test func resultsTakeTheKeysPastTheLastFieldAndScrollBothWays() throws {
        // 10 lines: the results do not fit under the form; 100 columns: nor do their rows.
        let (b, folder) = try form("listMessages", width: 100, height: 10)
        defer { withExtendedLifetime(folder) {} }
        b.press(.enter)
        #expect(b.screenText.contains("5 row(s)"))
        #expect(!b.screenText.contains("Stand-up moved"))      // the last row is below the pane
        b.press(.tab, times: 4)                                   // past the 4th and last field
        #expect(b.render().lines().last?.contains("←→ sideways") == true)
        b.press(.end)
        let rowLine = try #require(b.screenText.split(separator: "\n").first { $0.contains("Stand-up moved") })
        // The row is one line, cut at the edge with a marker, not wrapped.
        #expect(rowLine.contains("1  team"))
        #expect(rowLine.hasSuffix("…"))
        #expect(!b.screenText.contains("starred"))
        b.press(.right, times: 3)
        #expect(b.screenText.contains("read starred"))
        #expect(!b.screenText.contains("1  team"))
        #expect(b.screenText.contains(" 5 row(s)\n"))                 // the count line fits: it stays put
        b.press(.left, times: 3)
        #expect(b.screenText.contains("1  team"))
        b.press(.home)
        #expect(b.screenText.contains("5 row(s)"))
        b.press(.tab)                                             // back to the form: typing edits the field again
        type("7", into: b)
        #expect(b.screenText.contains("limit        : 7"))
    }

    @Test func scalarResultsShowTheirValue() throws {
        let (b, folder) = try form("countUnread")
        type("\"team\"", into: b)
        b.press(.enter)
        let expected = try Database(path: b.daoPanel!.storePath, mode: .readOnly)
            .scalar("SELECT count(*) FROM messages WHERE read = 0 AND conversation = 'team'")?.int64Value
        #expect(b.screenText.contains("result int: \(expected ?? -1)"))
        withExtendedLifetime(folder) {}
    }

    @Test func withoutTheKeyResultsStayLocked() throws {
        let (b, folder) = try form("listMessages", keys: .empty)
        defer { withExtendedLifetime(folder) {} }   // the store files stay while the panel opens them
        type("\"team\"", into: b)
        b.press(.enter)
        #expect(b.screenText.contains("[locked: no key]"))
        #expect(!b.screenText.contains("I'll bring the slides"))
    }

    @Test func shortcutKeysAreTextInsideAField() throws {
        let (b, folder) = try form("listMessages")
        defer { withExtendedLifetime(folder) {} }   // the store files stay while the panel opens them
        type("\"what? t d :\"", into: b)
        #expect(b.daoPanel?.fields.first?.text == "\"what? t d :\"")
        #expect(b.focus == .dao)
        #expect(b.help == nil)
    }

    @Test func requiredArgumentsRefuseNil() throws {
        let (b, folder) = try form("getMessage")
        defer { withExtendedLifetime(folder) {} }   // the store files stay while the panel opens them
        b.press(.character("\u{e}"))
        #expect(b.screenText.contains("$id must not be nil"))
        #expect(b.daoPanel?.fields.first?.isNil == false)
    }

    @Test func aWriteAsksForConfirmationThenRunsAndTheGridShowsIt() throws {
        let (b, folder) = try form("updateFlags")
        type("3", into: b)              // message 3 is unread in the demo
        b.press(.down)
        b.press(.character("\u{e}"))  // read: no longer nil…
        type("1", into: b)              // …set to 1
        b.press(.enter)
        #expect(b.daoPanel?.stage == .confirm)
        #expect(b.screenText.contains("It writes to the file: run update updateFlags on user alice · user.sqlite? (y/n)"))
        b.press(.character("n"))
        #expect(b.daoPanel?.stage == .form)
        let store = folder.path + "/demo/users/alice/user.sqlite"
        #expect(try Database(path: store, mode: .readOnly).scalar("SELECT read FROM messages WHERE id = 3")?.int64Value == 0)
        b.press(.enter)
        b.press(.character("y"))
        #expect(b.screenText.contains("ok · 1 change(s)"))
        #expect(!b.screenText.contains("last insert rowid"))   // an update inserts nothing
        #expect(try Database(path: store, mode: .readOnly).scalar("SELECT read FROM messages WHERE id = 3")?.int64Value == 1)
    }

    @Test func renderErrorsAreShownInPlace() throws {
        let (b, folder) = try form("listMessages")
        defer { withExtendedLifetime(folder) {} }   // the store files stay while the panel opens them
        b.press(.down, times: 3)
        type("\"ten\"", into: b)   // `limit > 0` compares a string with a number
        #expect(b.daoPanel?.renderError != nil)
        #expect(b.render().cells.contains { $0.role == .error })
        b.press(.enter)
        #expect(b.screenText.contains("cannot run:"))
    }

    @Test func dOutsideADAOTableSaysWhatItNeeds() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder))
        b.openNodeAndLoad(named: "settings")
        b.press(.character("d"))
        #expect(b.focus == .grid)
        #expect(b.screenText.contains("d opens the methods of a DAO table"))
    }

    /// A refusal is about the input it refused: once the form is valid again it goes (it
    /// stayed on screen, red, above a form that would now run).
    @Test func aRefusalClearsOnceTheInputIsValid() throws {
        let (b, folder) = try form("getMessage")
        defer { withExtendedLifetime(folder) {} }
        b.press(.enter)                                   // $id is nil
        #expect(b.daoPanel?.resultIsError == true)
        #expect(b.daoPanel?.resultLines.first?.contains("cannot run: $id: empty") == true, "\(b.daoPanel?.resultLines ?? [])")
        type("fla", into: b)                              // not JSON yet: still refused
        #expect(b.daoPanel?.resultIsError == true)
        while !(b.daoPanel?.fields.first?.editor.text.isEmpty ?? true) { b.press(.backspace) }
        type("4", into: b)
        #expect(b.daoPanel?.resultIsError == false)
        #expect(b.daoPanel?.resultLines.isEmpty == true)
    }

    /// A paste arrives as one key per character, handled before the next frame: the panel's
    /// query-plan requests for all but the last text are left out, so SQLite is asked once.
    @Test func aPasteIntoAFieldAsksForOneQueryPlan() throws {
        let (b, folder) = try form("listMessages")
        defer { withExtendedLifetime(folder) {} }
        _ = b.takeCommands()
        // Every prefix of a number is a value: each character asks for a plan.
        let pasted = String(repeating: "9", count: 300)
        for character in pasted { b.handle(.key(.character(character))) }
        let plans = b.takeCommands().filter { if case .daoQueryPlan = $0 { return true } else { return false } }
        #expect(plans.count == 1)
        for command in plans { if let event = command.perform() { b.handle(event) } }
        #expect(b.daoPanel?.fields.first?.text == pasted)
        #expect(b.daoPanel?.previews.first?.plan.first?.contains("messages") == true, "the last request's answer is taken")
    }
}
