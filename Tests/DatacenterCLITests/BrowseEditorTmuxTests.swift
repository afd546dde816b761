import Foundation
import Testing

/// The browser as an editor, driven in tmux as a person would: a staged value shown in its
/// cell, `u` and `Ctrl-R`, the pivot `W`, a column renamed, `.import` in the console, and `Z`
/// undoing a commit, each checked on screen and, after a commit, with the `sqlite3` shell.
extension BrowseTmuxTests {
    @Test func aStagedValueShowsAndUUndoesAndCtrlRRedoesIt() throws {
        let scratch = TemporaryFolder()
        let path = scratch.file("plain.db")
        _ = try Self.sqlite3(path, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t(v) VALUES ('alpha'), ('beta');")
        let session = try Session(command: "TERM=xterm-256color \(CLI.binaryPath) browse \(path) --table t")
        try session.waitFor("alpha")
        try session.send("Right", "e")
        try session.waitFor("edit v: alpha")
        try session.send("C-u", "gamma", "Enter")
        let staged = try session.waitFor("staged (1)")
        #expect(staged.contains("1   gamma"), "the cell reads its new value: \(staged)")
        try session.send("u")
        let undone = try session.waitFor("undid: UPDATE")
        #expect(undone.contains("1   alpha"))
        try session.send("C-r")
        try session.waitFor("redid: UPDATE")
        try session.send("w", "c")
        try session.waitFor("committed 1 edit(s)")
        #expect(try Self.sqlite3(path, "SELECT v FROM t WHERE id = 1") == "gamma")
        try session.send("q")
        Self.waitForExit(session)
    }

    @Test func wPivotsAndEnterFiltersToTheCell() throws {
        let scratch = TemporaryFolder()
        let path = scratch.file("sales.db")
        _ = try Self.sqlite3(path, """
            CREATE TABLE s(id INTEGER PRIMARY KEY, region TEXT, product TEXT);
            INSERT INTO s(region, product) VALUES ('north', 'pens'), ('north', 'ink'), ('south', 'pens'), ('north', 'pens');
            """)
        let session = try Session(command: "TERM=xterm-256color \(CLI.binaryPath) browse \(path) --table s")
        try session.waitFor("north")
        try session.send("Right", "W")
        try session.waitFor("pivot rows by region; columns by")
        try session.send("product", "Enter")
        let pivot = try session.waitFor(all: ["pivot of s: region by product, count(*)", "region 'ink' 'pens'"])
        #expect(pivot.contains("north  1     2"), "\(pivot)")
        try session.send("Right", "Right", "Enter")
        try session.waitFor("where \"region\" IS 'north' AND \"product\" IS 'pens'")
        try session.send("q")
        Self.waitForExit(session)
    }

    @Test func aColumnRenamedAndRowsImportedThroughTheReview() throws {
        let scratch = TemporaryFolder()
        let path = scratch.file("plain.db")
        _ = try Self.sqlite3(path, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t(v) VALUES ('alpha');")
        let csv = scratch.file("more.csv")
        try "v\n\"b, c\"\nd\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let session = try Session(command: "TERM=xterm-256color \(CLI.binaryPath) browse \(path) --table t")
        try session.waitFor("alpha")
        try session.send(":")
        try session.waitFor("sql>")
        try session.send("-l", ".import \(csv) t")
        try session.send("Enter")
        try session.waitFor("nothing is written until the commit")
        try session.send("Escape", "Right", "^")
        try session.waitFor("rename v (NEW")
        try session.send("=value", "Enter")
        try session.waitFor("staged (2)")
        try session.send("w", "c")
        try session.waitFor("committed 2 edit(s)")
        #expect(try Self.sqlite3(path, "SELECT group_concat(value, '|') FROM (SELECT value FROM t ORDER BY id)") == "alpha|b, c|d")
        try session.send("q")
        Self.waitForExit(session)
    }

    /// A commit, then `w` (nothing staged: the review offers `Z`), `Z` and `c`: the file is
    /// as before the commit, by `sqldiff`. A second session refuses when a row changed since.
    @Test func zInTheReviewUndoesTheLastCommit() throws {
        let scratch = TemporaryFolder()
        let path = scratch.file("plain.db")
        _ = try Self.sqlite3(path, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t(v) VALUES ('alpha'), ('beta');")
        let before = scratch.file("before.db")
        try FileManager.default.copyItem(atPath: path, toPath: before)
        let session = try Session(command: "TERM=xterm-256color \(CLI.binaryPath) browse \(path) --table t")
        try session.waitFor("alpha")
        try session.send("Right", "e")
        try session.waitFor("edit v: alpha")
        try session.send("C-u", "gamma", "Enter")
        try session.waitFor("staged (1)")
        try session.send("Down", "x")
        try session.waitFor("staged (2)")
        try session.send("w", "c")
        try session.waitFor("committed 2 edit(s) · w then Z undoes it")
        #expect(try Self.sqlite3(path, "SELECT group_concat(v) FROM t") == "gamma")
        try session.send("w")
        try session.waitFor("Nothing staged. Z stages the undo of the last commit")
        try session.send("Z")
        let review = try session.waitFor("staged the undo of the last commit (1 store(s))")
        #expect(review.contains("undo the commit of"), "\(review)")
        #expect(try Self.sqlite3(path, "SELECT group_concat(v) FROM t") == "gamma", "staged, not written")
        try session.send("c")
        try session.waitFor("committed 1 edit(s)")
        let diff = try runProcess("/usr/bin/sqldiff", [path, before])
        #expect(diff.status == 0 && diff.output.isEmpty, "\(diff.output)")
        // The undo was a commit: Z again redoes it, unless a row changed meanwhile.
        _ = try Self.sqlite3(path, "UPDATE t SET v = 'changed' WHERE id = 2")
        try session.send("w", "Z")
        try session.waitFor("Z refused, nothing staged: 1 row(s) changed since the commit of")
        try session.send("Escape", "q")
        Self.waitForExit(session)
    }
}
