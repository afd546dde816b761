import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// Database work a key starts runs as a command; its result comes back as an event, so keys
/// go on being handled meanwhile, and Esc cancels a console query.
@Suite struct AsyncCommandTests {
    /// A browser on the demo with the console open and `sql` typed, not yet run.
    func console(_ sql: String, folder: TemporaryFolder) throws -> Browser {
        let b = try browser(try makeDemo(folder), width: 110, height: 30)
        b.press(.character(":"))
        #expect(b.focus == .console)
        type(sql, into: b)
        return b
    }

    /// The console queries among `commands`.
    func queries(_ commands: [BrowserCommand]) -> [ConsoleQuery] {
        commands.compactMap { if case .consoleQuery(let query) = $0 { return query } else { return nil } }
    }

    @Test func aConsoleSelectRunsAsACommandAndItsRowsOpenInTheGrid() throws {
        let folder = TemporaryFolder()
        let b = try console("SELECT title FROM notes ORDER BY id", folder: folder)
        b.handle(.key(.enter))
        let commands = b.takeCommands()
        let query = try #require(queries(commands).first)
        #expect(commands.count == 1)
        #expect(query.sql == "SELECT title FROM notes ORDER BY id")
        #expect(b.console?.running != nil)
        #expect(b.screenText.contains("running…"))
        #expect(!b.screenText.contains("Welcome"))
        let event = try #require(commands[0].perform())
        guard case .consoleGrid = event else { Issue.record("a SELECT did not come back as a grid: \(event)"); return }
        b.handle(event)
        #expect(b.console?.running == nil)
        #expect(b.focus == .grid)
        #expect(b.grid?.rows.map { $0.cells[0].text } == ["Welcome", "Quotes", "Unicode"])
        #expect(b.screenText.contains("SQL: SELECT title FROM notes ORDER BY id"))
        #expect(!b.screenText.contains("running…"))
        // Its count comes as a table's does; `:` goes back to the console, which says where the rows went.
        for command in b.takeCommands() { if let event = command.perform() { b.handle(event) } }
        #expect(b.grid?.total == 3)
        b.press(.character(":"))
        #expect(b.focus == .console)
        #expect(b.screenText.contains("the rows are in the grid"))
    }

    @Test func escWhileAQueryRunsSendsACancelAndTheScreenSaysCancelled() throws {
        let folder = TemporaryFolder()
        let b = try console("SELECT title FROM notes ORDER BY id", folder: folder)
        b.handle(.key(.enter))
        let started = try #require(queries(b.takeCommands()).first)
        b.handle(.key(.escape))
        let cancels = b.takeCommands()
        #expect(cancels.count == 1)
        guard case .cancelConsoleQuery(let cancelled)? = cancels.first else {
            Issue.record("Esc did not ask to cancel the query: \(cancels)")
            return
        }
        #expect(cancelled === started)
        #expect(b.focus == .console)                      // the first Esc cancels, it does not close
        #expect(b.screenText.contains("cancelled after 0 row(s)"))
        // The cancel reaches the query before it ran: it reads nothing and says so; its late
        // result changes nothing on screen.
        cancels[0].perform()
        #expect(started.isCancelled)
        let late = try #require(BrowserCommand.consoleQuery(started).perform())
        guard case let .consoleFinished(_, output, _) = late else { Issue.record("\(late)"); return }
        #expect(output.last == "cancelled")
        b.handle(late)
        #expect(b.screenText.contains("cancelled after 0 row(s)"))
        #expect(!b.screenText.contains("Welcome"))
        b.press(.escape)
        #expect(b.focus == .tree)
    }

    @Test func keysPressedWhileAQueryRunsAreHandled() throws {
        let folder = TemporaryFolder()
        let b = try console("SELECT 1", folder: folder)
        b.handle(.key(.enter))
        let commands = b.takeCommands()
        #expect(queries(commands).count == 1)
        for c in "SELECT 2" { b.handle(.key(.character(c))) }
        #expect(b.console?.input.text == "SELECT 2")
        #expect(b.screenText.contains("sql> SELECT 2"))
        b.handle(.key(.enter))                             // waits for the running query
        #expect(b.takeCommands().isEmpty)
        #expect(b.message?.text.contains("a query is running") == true)
        #expect(b.console?.input.text == "SELECT 2")
        b.handle(.key(.up))
        #expect(b.console?.input.text == "SELECT 1")
        b.handle(commands[0].perform()!)
        #expect(b.console?.running == nil)
        #expect(b.grid?.rows.map { $0.cells[0].text } == ["1"])
    }

    /// A query that runs for ever: only a cancel ends it.
    static let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n WHERE i < 0"

    @Test func escInterruptsAQueryRunningOnAnotherThread() throws {
        let folder = TemporaryFolder()
        let b = try console(Self.endless, folder: folder)
        let runner = BrowserCommandRunner()
        b.handle(.key(.enter))
        for command in b.takeCommands() { runner.run(command) }
        Thread.sleep(forTimeInterval: 0.2)                // let it get going
        #expect(runner.takeEvents().isEmpty)               // still running
        b.handle(.key(.escape))
        #expect(b.screenText.contains("cancelled"))
        let start = Date()
        for command in b.takeCommands() { runner.run(command) }
        var finished: [String]?
        while finished == nil, Date().timeIntervalSince(start) < 10 {
            for event in runner.takeEvents() {
                if case let .consoleFinished(_, output, _) = event { finished = output }
                b.handle(event)
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        // The 10 s above is a watchdog against a hang, not a bound on speed.
        #expect(finished?.last == "cancelled", "the query did not stop: \(finished ?? [])")
        #expect(b.console?.running == nil)
    }

    @Test func aLongResultIsCountedWithProgressButOnlyTheFirstRowsAreKept() throws {
        let folder = TemporaryFolder()
        // Two statements: run to their end in the console, not paged by the grid.
        let b = try console("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12345) SELECT i FROM n; SELECT 'end'", folder: folder)
        b.handle(.key(.enter))
        let command = try #require(b.takeCommands().first)
        var progress: [Int] = []
        let event = command.perform { event in
            if case let .consoleProgress(_, rows) = event { progress.append(rows) }
            b.handle(event)
        }
        #expect(progress == (1...12).map { $0 * 1_000 })
        b.handle(try #require(event))
        let output = try #require(b.console?.output)
        #expect(output[1] == "12345 row(s), first \(RowsLayout.rowLimit) shown")
        #expect(output.count == 1 + 2 + RowsLayout.rowLimit + 3)
        #expect(output[2 + RowsLayout.rowLimit].trimmingCharacters(in: .whitespaces) == "\(RowsLayout.rowLimit)")
        #expect(output.last?.trimmingCharacters(in: .whitespaces) == "end")
    }

    @Test func aHugeSelectShowsOnePageAndIsCountedInTheBackground() throws {
        let folder = TemporaryFolder()
        let b = try console("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000) SELECT i, i * 2 AS twice FROM n",
                            folder: folder)
        b.handle(.key(.enter))
        let command = try #require(b.takeCommands().first)
        var progress = 0
        let event = try #require(command.perform { if case .consoleProgress = $0 { progress += 1 } })
        guard case let .consoleGrid(_, _, source, rows, _) = event else { Issue.record("\(event)"); return }
        // Only the first page was read: no progress, a screen's worth of rows.
        #expect(progress == 0)
        #expect(rows.count == (30 - 3) * 2)
        #expect(source.columns == ["i", "twice"])
        b.handle(event)
        for command in b.takeCommands() { if let event = command.perform() { b.handle(event) } }
        #expect(b.grid?.total == 300_000)
        b.press(.end)
        #expect(b.grid?.rows.last?.cells.map(\.text) == ["300000", "600000"])
        #expect(b.render().lines().last?.contains("row 300000 of 300,000") == true)
    }

    @Test func theConsoleShowsProgressWhileItRuns() throws {
        let folder = TemporaryFolder()
        let b = try console("SELECT 1", folder: folder)
        b.handle(.key(.enter))
        let query = try #require(queries(b.takeCommands()).first)
        b.handle(.consoleProgress(queryID: query.id, rows: 3_000))
        #expect(b.screenText.contains("running… 3,000 row(s) read"))
        #expect(b.render().lines().last?.contains("running… Esc cancels") == true)
        b.handle(.consoleProgress(queryID: query.id + 1, rows: 9_000))   // another query's: ignored
        #expect(b.screenText.contains("running… 3,000 row(s) read"))
    }
}

extension DAOPanelTests {
    @Test func aDAOSelectRunsAsACommandAndKeysWaitForItsResult() throws {
        let (b, folder) = try form("listMessages")
        defer { withExtendedLifetime(folder) {} }
        type("\"team\"", into: b)
        b.handle(.key(.enter))
        let commands = b.takeCommands()
        #expect(commands.count == 1)
        guard case .daoRun(let run)? = commands.first else { Issue.record("no DAO run: \(commands)"); return }
        #expect(run.method.id == "listMessages")
        #expect(b.daoPanel?.running == run.id)
        #expect(b.screenText.contains("running listMessages…"))
        b.handle(.key(.down))                             // the form waits for the result
        #expect(b.daoPanel?.fieldCursor == 0)
        #expect(b.message?.text.contains("its result comes next") == true)
        b.handle(.daoFinished(runID: run.id + 1, lines: ["not mine"], isError: false, wrote: false))
        #expect(b.daoPanel?.running == run.id)
        b.handle(try #require(commands[0].perform()))
        #expect(b.daoPanel?.running == nil)
        #expect(b.screenText.contains("3 row(s)"))
        #expect(b.screenText.contains("I'll bring the slides"))
        b.press(.down)
        #expect(b.daoPanel?.fieldCursor == 1)
    }

    @Test func aDAOWriteRunsAsACommandAndQuittingWaitsForIt() throws {
        let (b, folder) = try form("updateFlags")
        type("3", into: b)
        b.press(.down)
        b.press(.character("\u{e}"))
        type("1", into: b)
        b.press(.enter)
        #expect(b.daoPanel?.stage == .confirm)
        b.handle(.key(.character("y")))
        let commands = b.takeCommands()
        guard case .daoRun(let run)? = commands.first, case .write = run.kind else { Issue.record("no DAO write: \(commands)"); return }
        let store = folder.path + "/demo/users/alice/user.sqlite"
        #expect(try Database(path: store, mode: .readOnly).scalar("SELECT read FROM messages WHERE id = 3")?.int64Value == 0)
        b.handle(.key(.character("\u{3}")))               // Ctrl-C while it writes: not yet
        #expect(!b.isFinished)
        #expect(b.message?.text.contains("a DAO method is running") == true)
        b.handle(try #require(commands[0].perform()))
        #expect(b.screenText.contains("ok · 1 change(s)"))
        #expect(try Database(path: store, mode: .readOnly).scalar("SELECT read FROM messages WHERE id = 3")?.int64Value == 1)
        b.handle(.key(.character("\u{3}")))
        #expect(b.isFinished)
    }
}

extension DAOPanelTests {
    func previews(_ commands: [BrowserCommand]) -> [DAOQueryPlanRequest] {
        commands.compactMap { if case .daoQueryPlan(let preview) = $0 { return preview } else { return nil } }
    }

    @Test func typingInTheFormAsksForThePlanAsACommandAndALateOneIsDropped() throws {
        let (b, folder) = try form("listMessages")
        defer { withExtendedLifetime(folder) {} }
        b.handle(.key(.character("\"")))
        let first = b.takeCommands()
        #expect(previews(first).isEmpty)                   // `"` alone is not JSON: nothing to plan
        for c in "team\"" { b.handle(.key(.character(c))) }
        let commands = b.takeCommands()
        let asked = previews(commands)
        #expect(asked.count == 1)                          // only the text that parses asks
        #expect(b.daoPanel?.previews.first?.plan == ["…"])
        #expect(b.daoPanel?.previews.first?.sql.contains("conversation = ?") == true)
        b.handle(.key(.down))
        b.handle(.key(.down))
        b.handle(.key(.down))
        type("2", into: b)                                 // a newer preview, run at once
        let newer = try #require(b.daoPanel?.previews.first?.plan)
        #expect(newer.first?.contains("messages_by_conversation") == true)
        b.handle(try #require(commands.last?.perform()))  // the older answer comes late: dropped
        #expect(b.daoPanel?.previews.first?.plan == newer)
        #expect(b.daoPanel?.previewing == nil)
    }

    @Test func aWriteAskedForBeforeItsPreviewIsConfirmedOnlyWhenThePreviewComes() throws {
        let (b, folder) = try form("updateFlags")
        defer { withExtendedLifetime(folder) {} }
        type("3", into: b)
        b.press(.down)
        b.press(.character("\u{e}"))
        b.handle(.key(.character("1")))
        let commands = b.takeCommands()
        #expect(previews(commands).count == 1)
        #expect(b.daoPanel?.preparation == nil)
        b.handle(.key(.enter))
        #expect(b.daoPanel?.stage == .form)                // no confirmation without the preview
        #expect(b.screenText.contains("working out the preview first…"))
        #expect(b.takeCommands().isEmpty)                  // and nothing runs
        b.handle(try #require(commands.last?.perform()))
        #expect(b.daoPanel?.preparation?.isEmpty == true)
        #expect(b.daoPanel?.stage == .confirm)             // the Enter goes on now
        #expect(b.screenText.contains("(y/n)"))
        b.press(.character("n"))
        // A key that changes the form drops the waiting Enter.
        b.handle(.key(.character("0")))
        let again = b.takeCommands()
        b.handle(.key(.enter))
        b.handle(.key(.backspace))
        for command in again + b.takeCommands() { if let event = command.perform() { b.handle(event) } }
        #expect(b.daoPanel?.stage == .form)
    }
}
