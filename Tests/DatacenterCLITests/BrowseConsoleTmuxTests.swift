import Foundation
import Testing

/// The SQL console in the real browser: a query runs without freezing the screen, and Esc
/// cancels it.
extension BrowseTmuxTests {
    /// The browser on a new demo's `notes` table with the console open (`demoSession`).
    static func consoleOnTheDemoNotes() throws -> (scratch: TemporaryFolder, session: Session) {
        let (scratch, _, session) = try Self.demoSession("--table notes")
        try session.waitFor("Welcome")
        try session.send(":")
        try session.waitFor("sql>")
        return (scratch, session)
    }

    @Test func aConsoleQueryRunsWhileKeysWorkAndEscCancelsIt() throws {
        let (_, session) = try Self.consoleOnTheDemoNotes()
        // A query that never ends by itself.
        try session.send("-l", "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n WHERE i < 0")
        try session.send("Enter")
        try session.waitFor("running…")
        // The screen still takes keys: typing shows in the input line.
        try session.send("-l", "select 6 * 7 AS answer")
        try session.waitFor("sql> select 6 * 7 AS answer")
        try session.send("Escape")
        try session.waitFor("cancelled after")
        try session.send("Enter")
        // A SELECT's rows open in the grid.
        let answer = try session.waitFor(all: ["SQL: select 6 * 7 AS answer", "42"])
        #expect(answer.contains("42"))
        try session.send("Escape", "q")
        Self.waitForExit(session)
        #expect(!session.isRunning, "the browser did not quit on q")
    }

    /// Ctrl-R in the console: the history filtered by what is typed; Enter takes a line.
    @Test func ctrlRInTheConsoleSearchesTheHistory() throws {
        let (_, session) = try Self.consoleOnTheDemoNotes()
        try session.send("-l", ".mode list")
        try session.send("Enter")
        try session.waitFor("mode: list")
        try session.send("-l", "select 'remember me' as x")
        try session.send("Enter")
        try session.waitFor("remember me")
        try session.send("C-r")
        try session.waitFor("history search:")
        try session.send("-l", "remem")
        try session.send("Enter")
        try session.waitFor("sql> select 'remember me' as x")
        try session.send("Escape", "q")
    }

    /// The console as an editor in a real terminal: Ctrl-J starts a new line and Enter runs
    /// the statement whole; a paste keeps its lines (bracketed paste) and runs nothing; a
    /// second tab keeps its own query.
    @Test func theConsoleEditsOverSeveralLinesInTabs() throws {
        let (scratch, session) = try Self.consoleOnTheDemoNotes()
        try session.send("-l", "select title,")
        try session.send("C-j")
        try session.send("-l", "  length(body) as chars")
        try session.send("C-j")
        try session.send("-l", "from notes where title = 'Quotes'")
        let editing = try session.waitFor(all: ["...> from notes", "sql> select title,", "...>   length(body) as chars"])
        #expect(editing.contains("sql> select title,") && editing.contains("...>   length(body) as chars"))
        try session.send("Enter")
        // The grid's title, not the input's text: the query may still be running.
        let grid = try session.waitFor(all: ["SQL: select title,", "chars"])
        #expect(grid.contains("Quotes") && !grid.contains("Welcome"), "the three lines ran as one statement")
        try session.send(":")
        try session.send("C-t")
        try session.waitFor("1 select title,")
        let paste = scratch.file("paste.sql")
        try "select 'pasted' as p,\n  2 as two\n".write(toFile: paste, atomically: true, encoding: .utf8)
        _ = try Session.tmux(["load-buffer", paste])
        _ = try Session.tmux(["paste-buffer", "-p", "-t", session.name])
        let pasted = try session.waitFor("...>   2 as two")
        #expect(pasted.contains("sql> select 'pasted' as p,") && !pasted.contains("running"), "the paste ran nothing")
        try session.send("Enter")
        try session.waitFor("SQL: select 'pasted' as p,")
        try session.send("Escape", "q")
        Self.waitForExit(session)
        #expect(!session.isRunning, "the browser did not quit on q")
    }
}

