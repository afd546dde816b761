import Foundation
import Testing

/// The browser's writes, driven in tmux as a person would, checked with the `sqlite3` shell.
extension BrowseTmuxTests {
    /// Runs the `sqlite3` shell on `path` (the shared helper).
    static func sqlite3(_ path: String, _ sql: String) throws -> String { try sqlite3Shell(path, sql) }

    /// Waits up to five seconds for the browser to end.
    static func waitForExit(_ session: Session) {
        let deadline = Date().addingTimeInterval(5)
        while session.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
    }

    @Test func anEditCommittedOnAPlainFileChangesOnlyTheRow() throws {
        let scratch = TemporaryFolder()
        let path = scratch.file("plain.db")
        _ = try Self.sqlite3(path, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t(v) VALUES ('alpha'), ('beta');")
        #expect(try Self.sqlite3(path, "PRAGMA journal_mode") == "delete")
        let session = try Session(command: "TERM=xterm-256color \(CLI.binaryPath) browse \(path) --table t")
        try session.waitFor("alpha")
        try session.send("Right", "e")
        try session.waitFor("edit v: alpha")
        try session.send("BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "gamma", "Enter")
        try session.waitFor("staged (1)")
        try session.send("w")
        try session.waitFor("[plain.db] UPDATE \"t\" SET \"v\" = 'gamma' WHERE \"_rowid_\" = 1")
        try session.send("c")
        try session.waitFor("committed 1 edit(s)")
        try session.send("q")
        Self.waitForExit(session)
        #expect(!session.isRunning, "the browser did not quit on q")
        #expect(try Self.sqlite3(path, "SELECT group_concat(v, ',') FROM (SELECT v FROM t ORDER BY id)") == "gamma,beta")
        #expect(try Self.sqlite3(path, "PRAGMA journal_mode") == "delete")
        #expect(try Self.sqlite3(path, "SELECT group_concat(name, ',') FROM sqlite_master") == "t")
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
    }

    @Test func quittingWithAStagedEditAsksAndEscNeverQuits() throws {
        let scratch = TemporaryFolder()
        let path = scratch.file("plain.db")
        _ = try Self.sqlite3(path, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t(v) VALUES ('alpha'), ('beta');")
        let session = try Session(command: "TERM=xterm-256color \(CLI.binaryPath) browse \(path) --table t")
        try session.waitFor("alpha")
        try session.send("x")
        try session.waitFor("staged (1)")
        try session.send("q")
        try session.waitFor("Quit with 1 staged edit(s) not written? c commit and quit · d discard and quit · Esc stay")
        try session.send("Escape")
        try session.waitFor("1 staged edit(s) kept")
        // Esc from the grid goes to the tree, and from the tree back to the grid: never out.
        // Keys are read in order: the prompt Ctrl-C brings shows the Escapes did not quit.
        try session.send("Escape", "Escape", "Escape")
        try session.send("C-c")
        try session.waitFor("Quit with 1 staged edit(s)")
        #expect(session.isRunning, "Esc quit the browser")
        try session.send("d")
        Self.waitForExit(session)
        #expect(!session.isRunning, "d did not quit")
        #expect(try Self.sqlite3(path, "SELECT count(*) FROM t") == "2")
    }
}
