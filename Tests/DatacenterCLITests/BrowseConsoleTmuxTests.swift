import Foundation
import Testing

/// The SQL console in the real browser: a query runs without freezing the screen, and Esc
/// cancels it.
extension BrowseTmuxTests {
    @Test func aConsoleQueryRunsWhileKeysWorkAndEscCancelsIt() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("demo")
        #expect(try CLI.run(["demo", root]).status == 0)
        let session = try Session(command: "TERM=xterm-256color \(CLI.binaryPath) browse \(root) --table notes")
        try session.waitFor("Welcome")
        try session.send(":")
        try session.waitFor("sql>")
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
        let answer = try session.waitFor("SQL: select 6 * 7 AS answer")
        #expect(answer.contains("42"))
        try session.send("Escape", "q")
        Self.waitForExit(session)
        #expect(!session.isRunning, "the browser did not quit on q")
    }

    /// Ctrl-R in the console: the history filtered by what is typed; Enter takes a line.
    @Test func ctrlRInTheConsoleSearchesTheHistory() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("demo")
        #expect(try CLI.run(["demo", root]).status == 0)
        let session = try Session(command: "TERM=xterm-256color \(CLI.binaryPath) browse \(root) --table notes")
        try session.waitFor("Welcome")
        try session.send(":")
        try session.waitFor("sql>")
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
}

