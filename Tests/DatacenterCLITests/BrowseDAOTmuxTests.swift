import Foundation
import Testing

/// Drives a DAO write through the real browser in tmux, then checks the file with the
/// `sqlite3` shell: the crypt column holds ciphertext and the journal mode is unchanged.
@Suite struct BrowseDAOTmuxTests {
    /// Runs the `sqlite3` shell on `path` (the shared helper).
    static func sqlite3(_ path: String, _ sql: String) throws -> String { try sqlite3Shell(path, sql) }

    @Test func insertAModelFromTheFormAndFindItEncrypted() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("demo")
        #expect(try CLI.run(["demo", root]).status == 0)
        let store = root + "/users/alice/user.sqlite"
        let journalMode = try Self.sqlite3(store, "PRAGMA journal_mode;")
        #expect(["wal", "delete"].contains(journalMode))
        #expect(try Self.sqlite3(store, "SELECT count(*) FROM messages;") == "5")

        let session = try BrowseTmuxTests.Session(
            command: "TERM=xterm-256color \(CLI.binaryPath) browse \(root) --table messages --key \(BrowseTmuxTests.demoKey)",
            width: 140)
        try session.waitFor("conversation")
        try session.send("d")
        try session.waitFor("insertMessage(")
        // Methods in file order: createTable, insertMessage, …
        try session.send("Down", "Enter")
        try session.waitFor("$m :")
        let model = #"{"$model": "MessageModel", "conversation": "team", "sender": "alice", "time": 1767229200, "content": "typed in tmux"}"#
        try session.send("-l", model)
        let preview = try session.waitFor(all: ["model MessageModel", "<encrypted: "])
        #expect(preview.contains("<encrypted: "))
        try session.send("Enter")
        try session.waitFor("(y/n)")
        try session.send("y")
        let done = try session.waitFor(all: ["ok · 1 change(s)", "last insert rowid 6"])
        #expect(done.contains("last insert rowid 6"))

        try session.send("Escape", "Escape", "q")
        let deadline = Date().addingTimeInterval(5)
        var answeredQuit = false
        while session.isRunning && Date() < deadline {
            // Should quitting ask first (staged edits), discard: a DAO write is not staged.
            if !answeredQuit, (try? session.screen())?.lowercased().contains("quit?") == true {
                try session.send("d")
                answeredQuit = true
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(!session.isRunning, "the browser did not quit on q")

        #expect(try Self.sqlite3(store, "SELECT typeof(content) FROM messages WHERE id = 6;") == "blob")
        #expect(try Self.sqlite3(store, "SELECT count(*) FROM messages WHERE CAST(content AS TEXT) LIKE '%typed in tmux%';") == "0")
        #expect(try Self.sqlite3(store, "PRAGMA journal_mode;") == journalMode)
    }
}
