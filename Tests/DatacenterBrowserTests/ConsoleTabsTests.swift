import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// The console as an editor: a statement over several lines (Ctrl-J, or Enter inside an
/// unfinished one, as the sqlite3 shell continues), and tabs that each keep a query and
/// its output.
@Suite struct ConsoleTabsTests {
    func console(width: Int = 100, height: Int = 24) throws -> (Browser, TemporaryFolder) {
        let folder = TemporaryFolder()
        let path = folder.file("s.db")
        try Database(path: path).execute("CREATE TABLE t (x); INSERT INTO t VALUES (1), (2), (3)")
        let b = try browser(path, width: width, height: height)
        b.press(.character(":"))
        return (b, folder)
    }

    func write(_ text: String, into b: Browser) {
        for character in text { b.press(character == "\n" ? .control("j") : .character(character)) }
    }

    @Test func aStatementOverSeveralLinesRunsWhole() throws {
        let (b, folder) = try console()
        defer { withExtendedLifetime(folder) {} }
        write("select count(*) as n,\n  'lines' as how\nfrom t", into: b)
        #expect(b.console?.input.lines.count == 3)
        let screen = b.screenText
        #expect(screen.contains("sql> select count(*) as n,") && screen.contains("│...>   'lines' as how") && screen.contains("│...> from t"), "\(screen)")
        b.press(.enter)
        #expect(b.grid?.rows.first?.cells.map(\.text) == ["3", "lines"], "the three lines ran as one statement")
        b.press(.character(":"))
        #expect(b.console?.output.prefix(3) == ["> select count(*) as n,", "    'lines' as how", "  from t"])
        b.press(.up)
        #expect(b.console?.input.text == "select count(*) as n,\n  'lines' as how\nfrom t", "the history keeps it whole")
    }

    /// Enter inside an open quote, comment or trigger body goes on to a new line, as the
    /// shell reads on; once the statement is finished Enter runs it.
    @Test func enterInsideAnUnfinishedStatementStartsANewLine() throws {
        let (b, folder) = try console()
        defer { withExtendedLifetime(folder) {} }
        b.handle(.key(.character(".")))                        // not SQL: a dot-command runs
        #expect(ConsolePane.isUnfinished(".mode list") == false)
        b.press(.backspace)
        write("select 'two", into: b)
        b.press(.enter)
        #expect(b.console?.input.lines == ["select 'two", ""], "inside a string")
        write("lines' as v", into: b)
        b.press(.enter)
        #expect(b.grid?.rows.first?.cells.first?.text == "two\nlines")
        #expect(ConsolePane.isUnfinished("select 1 /* a comment"))
        #expect(ConsolePane.isUnfinished("create trigger r after insert on t begin select 1;"))
        #expect(!ConsolePane.isUnfinished("create trigger r after insert on t begin select 1; end"))
        #expect(!ConsolePane.isUnfinished("select 1 -- a comment"))
        #expect(!ConsolePane.isUnfinished("select (1"), "the shell does not count brackets: SQLite reports the error")
    }

    @Test func eachTabKeepsItsQueryAndOutput() throws {
        let (b, folder) = try console()
        defer { withExtendedLifetime(folder) {} }
        write(".mode list", into: b)
        b.press(.enter)
        write("select 'first tab' as a", into: b)
        b.press(.enter)
        #expect(b.console?.output.last == "first tab")
        b.press(.control("t"))
        #expect(b.console?.tabs.count == 2 && b.console?.current == 1)
        #expect(b.console?.output == [ConsoleTab.greeting])
        write("select 'half written", into: b)
        b.press(.control("p"))
        #expect(b.console?.output.last == "first tab" && b.console?.input.text == "")
        b.press(.control("n"))
        #expect(b.console?.input.text == "select 'half written")
        let screen = b.screenText
        #expect(screen.contains(" 1 select 'first… ") && screen.contains(" 2 select 'half…"), "\(screen)")
    }

    /// A query finishes into the tab that ran it, whichever tab is shown by then.
    @Test func aQueryAnswersInTheTabThatRanIt() throws {
        let (b, folder) = try console()
        defer { withExtendedLifetime(folder) {} }
        write(".mode line", into: b)
        b.press(.enter)
        write("select 'slow answer' as a", into: b)
        b.handle(.key(.enter))                                 // its command not run yet
        #expect(b.console?.running != nil)
        b.handle(.key(.control("t")))
        b.runCommands()
        #expect(b.console?.current == 1 && b.console?.running == nil && b.console?.output == [ConsoleTab.greeting])
        #expect(b.console?.tabs[0].output.contains { $0.contains("slow answer") } == true)
        #expect(b.screenText.contains(" 1 select 'slow… ") && b.screenText.contains("…   2"))
    }

    /// Ctrl-X closes a tab: its query is cancelled and what it held unrun goes to the
    /// history; the last tab stays.
    @Test func closingATabLosesNothing() throws {
        let (b, folder) = try console()
        defer { withExtendedLifetime(folder) {} }
        b.press(.control("t"))
        write("select 'keep me'", into: b)
        b.handle(.key(.control("x")))
        #expect(b.console?.tabs.count == 1 && b.console?.current == 0)
        #expect(b.message?.text.contains("in the history") == true)
        b.press(.up)
        #expect(b.console?.input.text == "select 'keep me'")
        b.press(.control("x"))
        #expect(b.console?.tabs.count == 1 && b.message?.text.contains("the last tab stays") == true)
        for _ in 0..<ConsolePane.tabLimit { b.press(.control("t")) }
        #expect(b.console?.tabs.count == ConsolePane.tabLimit && b.message?.isError == true)
    }

    /// Outside the console's editor Ctrl-J is Enter, as it always was: in its history search
    /// too.
    @Test func ctrlJIsEnterElsewhere() throws {
        let (b, folder) = try console()
        defer { withExtendedLifetime(folder) {} }
        write("select 'earlier'", into: b)
        b.press(.enter)
        b.press(.character(":"), .character("\u{12}"))
        write("earl", into: b)
        b.press(.control("j"))
        #expect(b.console?.historySearch == nil && b.console?.input.text == "select 'earlier'", "chosen, not a new line")
        b.press(.escape)
        b.openNodeAndLoad(named: "t")
        b.press(.character("/"), .character("3"))
        #expect(b.prompt != nil)
        b.press(.control("j"))
        #expect(b.prompt == nil, "the prompt took Ctrl-J as Enter")
    }
}
