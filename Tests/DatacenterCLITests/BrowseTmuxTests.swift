import DatacenterKit
import Foundation
import Testing

/// Drives the real `datacenter browse` in a tmux session, as a person would.
@Suite struct BrowseTmuxTests {
    static let demoKey = "64336d305a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"

    /// A tmux session running one command, killed when released. The command runs with a
    /// state folder of its own (`XDG_STATE_HOME`), so the browser's recent files and console
    /// histories go there, never into the home folder of whoever runs the tests.
    final class Session {
        let name = "dc-test-" + UUID().uuidString.prefix(8)
        /// The folder `XDG_STATE_HOME` names for the command.
        let state = TemporaryFolder("tmux-state")
        /// A folder the command reads (a demo root), kept as long as the session.
        var folder: TemporaryFolder?
        init(command: String, width: Int = 120, height: Int = 40) throws {
            let isolated = "XDG_STATE_HOME=\(state.path) " + command
            let result = try Session.tmux(["new-session", "-d", "-s", name, "-x", "\(width)", "-y", "\(height)", isolated])
            #expect(result.status == 0, "tmux failed: \(result.output)")
        }
        deinit { _ = try? Session.tmux(["kill-session", "-t", name]) }

        func send(_ keys: String...) throws { _ = try Session.tmux(["send-keys", "-t", name] + keys) }
        func screen() throws -> String { try Session.tmux(["capture-pane", "-p", "-t", name]).output }
        var isRunning: Bool { (try? Session.tmux(["has-session", "-t", name]).status == 0) ?? false }

        /// Waits (up to `seconds`) until the screen contains `text`; returns the last screen.
        @discardableResult
        func waitFor(_ text: String, seconds: Double = 15) throws -> String {
            try waitFor(all: [text], seconds: seconds)
        }

        /// Waits (up to `seconds`) until one screen contains every one of `texts`: a screen
        /// caught while a frame is being written can hold some of them only.
        @discardableResult
        func waitFor(all texts: [String], seconds: Double = 15) throws -> String {
            let deadline = Date().addingTimeInterval(seconds)
            var last = ""
            while Date() < deadline {
                last = try screen()
                if texts.allSatisfy(last.contains) { return last }
                Thread.sleep(forTimeInterval: 0.1)
            }
            Issue.record("screen never showed \(texts.joined(separator: ", ")):\n\(last)")
            return last
        }

        /// Runs a tmux command with `posix_spawn` and `waitpid`. Its output goes through a
        /// file, not a pipe, and it is waited for directly: the first command forks the tmux
        /// server, which keeps the descriptors it inherited open (a pipe would never reach its
        /// end) and which Foundation's `Process` was seen to wait on forever.
        /// The tmux server the tests use: their own socket (`-L`), one per test process, so a
        /// developer's own tmux server and sessions are never touched. Its server is stopped
        /// and its socket file removed when the test process exits: tmux 3.3 leaves the file
        /// behind when its last session ends, one per test run.
        ///
        /// The server is started once, with a session that keeps it up for as long as the
        /// test process lives (`tail --pid`), so tests can open sessions side by side: a
        /// server exits when its last session ends, and a test opening one then was refused
        /// ("server exited unexpectedly").
        static let socket: String = {
            atexit { Session.stopServer() }
            let name = "datacenter-tests-\(getpid())"
            _ = try? tmux(["-L", name, "new-session", "-d", "-s", "keep-alive", "tail --pid=\(getpid()) -f /dev/null"],
                          socketless: true)
            return name
        }()

        /// Stops the tests' tmux server, if it still runs, and removes its socket file.
        static func stopServer() {
            _ = try? tmux(["kill-server"])
            let root = ProcessInfo.processInfo.environment["TMUX_TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            unlink(root + "/tmux-\(getuid())/" + socket)
        }

        static func tmux(_ arguments: [String], socketless: Bool = false) throws -> (status: Int32, output: String) {
            let outputPath = NSTemporaryDirectory() + "dc-tmux-\(UUID().uuidString).out"
            defer { try? FileManager.default.removeItem(atPath: outputPath) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
            let argv = (["tmux"] + (socketless ? [] : ["-L", socket]) + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            let spawned = posix_spawnp(&pid, "tmux", &actions, nil, argv, environ)
            guard spawned == 0 else { return (127, "cannot start tmux: error \(spawned)") }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            let data = FileManager.default.contents(atPath: outputPath) ?? Data()
            let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            return (exitStatus, String(decoding: data, as: UTF8.self))
        }
    }

    /// The browser in a tmux session on a new demo root: `browse ROOT ARGUMENTS`; the
    /// root's folder (also for the test's own files) lives as long as the session.
    static func demoSession(_ arguments: String = "", width: Int = 120) throws -> (scratch: TemporaryFolder, root: String, session: Session) {
        let scratch = TemporaryFolder()
        let root = scratch.file("demo")
        #expect(try CLI.run(["demo", root]).status == 0)
        let session = try Session(command: "TERM=xterm-256color exec \(CLI.binaryPath) browse \(root) \(arguments)", width: width)
        session.folder = scratch
        return (scratch, root, session)
    }

    @Test func openTheDemoAndSeeAnEncryptedValueDecrypted() throws {
        let (_, root, session) = try Self.demoSession("--key \(Self.demoKey)")
        try session.waitFor("KV businesses")
        // common store → KV businesses → app, feed-cache, session.
        try session.send("Down", "Down", "Down", "Down", "Enter")
        let grid = try session.waitFor(all: ["sk_live_51Hdemo-secret-token", "apiToken"])
        #expect(grid.contains("apiToken"))
        #expect(grid.contains("{\"scope\":\"read write\",\"user\":\"alice\"}"))
        try session.send("Enter")
        let inspector = try session.waitFor(all: ["decrypted", "VALUE · string · decrypted"])
        #expect(inspector.contains("VALUE · string · decrypted"))
        try session.send("Escape", "Tab", "q")
        let deadline = Date().addingTimeInterval(5)
        while session.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(!session.isRunning, "the browser did not quit on q")
        // What the browser remembers went to the session's state folder, not the home folder.
        let recent = try String(contentsOfFile: session.state.path + "/datacenter/recent-files.json", encoding: .utf8)
        #expect(recent.contains(root))
    }

    /// Arrow, Home and End keys as a terminal sends them outside its keypad mode (`ESC [ B`,
    /// not the `ESC O B` the terminal's description names): keys typed before the browser
    /// turned that mode on (at start-up, while the first frame is drawn) arrive so, and were
    /// once read as Escape, `[` and `B`, the cursor left where it was.
    @Test func cursorKeysOutsideKeypadModeMoveAsTheKeypadOnes() throws {
        let (_, _, session) = try Self.demoSession("--key \(Self.demoKey)")
        try session.waitFor("KV businesses")
        let down = ["-H", "1b", "5b", "42"], end = ["-H", "1b", "5b", "46"], home = ["-H", "1b", "5b", "48"]
        // common store → KV businesses → app, feed-cache, session.
        for _ in 0..<4 { _ = try Session.tmux(["send-keys", "-t", session.name] + down) }
        try session.send("Enter")
        try session.waitFor(all: ["kv: session", "apiToken"])
        // Back in the tree: End is its last node (the version storage's business), Home its first.
        try session.send("Tab")
        _ = try Session.tmux(["send-keys", "-t", session.name] + end)
        try session.send("Enter")
        try session.waitFor("kv: default")
        try session.send("Tab")
        _ = try Session.tmux(["send-keys", "-t", session.name] + home)
        for _ in 0..<4 { _ = try Session.tmux(["send-keys", "-t", session.name] + down) }
        try session.send("Enter")
        try session.waitFor("kv: session")
        try session.send("q")
    }

    @Test func withoutTheKeyValuesShowLockedAndResizeRedraws() throws {
        let (_, _, session) = try Self.demoSession("--table session")
        let screen = try session.waitFor("[locked: no key]")
        #expect(!screen.contains("sk_live"))
        _ = try Session.tmux(["resize-window", "-t", session.name, "-x", "60", "-y", "15"])
        try session.waitFor("apiToken")
        _ = try Session.tmux(["resize-window", "-t", session.name, "-x", "40", "-y", "10"])
        try session.send("q")
    }

    /// Ctrl-P in a real terminal: the last message whole, in the inspector; an error stays
    /// on the status line through the keys after it.
    @Test func ctrlPShowsTheLastMessageAndAnErrorStays() throws {
        let (_, _, session) = try Self.demoSession("--table notes")
        try session.waitFor("Welcome")
        try session.send("f")
        try session.send("-l", "no_such_column = 1")
        try session.send("Enter")
        try session.waitFor("no such column")
        try session.send("Down")
        try session.send("Down")
        #expect(try session.waitFor("no such column").contains("no such column"))
        try session.send("C-p")
        let screen = try session.waitFor(all: ["last message", "no_such_column"])
        #expect(screen.contains("no_such_column"))
        try session.send("Escape")
        try session.send("q")
    }

    /// F in a real terminal: the frequency table of a column, and Enter filtering to a value.
    @Test func fShowsTheFrequencyTableAndEnterFilters() throws {
        let (_, _, session) = try Self.demoSession("--table notes")
        try session.waitFor("Welcome")
        try session.send("F")
        let table = try session.waitFor(all: ["percent", "value", "33.3%"])
        #expect(table.contains("value") && table.contains("33.3%"))
        try session.send("Enter")
        try session.waitFor("where")
        // I: the statistics of every column of the rows shown.
        try session.send("I")
        let stats = try session.waitFor(all: ["distinct", "nulls", "title"])
        #expect(stats.contains("title") && stats.contains("nulls"))
        try session.send("q")
    }

    /// Ctrl-R at the search prompt in a real terminal: a regular expression.
    @Test func ctrlRAtTheSearchPromptSearchesForARegularExpression() throws {
        let (_, _, session) = try Self.demoSession("--table notes")
        try session.waitFor("Welcome")
        try session.send("/", "C-r")
        try session.waitFor("regex /")
        try session.send("-l", "^Welc.me")
        try session.send("Enter")
        try session.waitFor("found /^Welc.me/")
        try session.send("q")
    }

    /// - hides a column, } moves one right, + shows the hidden ones again.
    @Test func minusHidesBraceMovesAndPlusShowsColumns() throws {
        let (_, _, session) = try Self.demoSession("--table notes")
        try session.waitFor("Welcome")
        try session.send("-")
        let hidden = try session.waitFor(all: ["hid id", "│title   body"])
        #expect(hidden.contains("│title   body"))
        try session.send("}")
        try session.waitFor("│body")
        try session.send("+")
        let shown = try session.waitFor(all: ["showing 1 hidden column again", "│id  body"])
        #expect(shown.contains("│id  body"), "id back in its place, body moved past title")
        try session.send("q")
    }

    /// \ hides the tree (the grid starts at the left edge), Tab shows it again.
    @Test func backslashHidesTheTreeAndTabShowsIt() throws {
        let (_, _, session) = try Self.demoSession("--table notes")
        try session.waitFor("Welcome")
        try session.send("\\")
        let hidden = try session.waitFor("tree hidden")
        #expect(hidden.components(separatedBy: "\n").contains { $0.hasPrefix("id  title") }, "\(hidden)")
        try session.send("Tab")
        let shown = try session.waitFor(all: ["│id", "KV businesses"])
        #expect(shown.contains("KV businesses"))
        try session.send("q")
    }

    /// s selects the cursor's row (the status line counts it), * the rows shown, U none.
    @Test func sSelectsRowsAndUUnselects() throws {
        let (_, _, session) = try Self.demoSession("--table notes")
        try session.waitFor("Welcome")
        try session.send("s")
        try session.waitFor("1 selected")
        try session.send("*")
        try session.waitFor("3 selected")
        try session.send("U")
        try session.waitFor("unselected 3 rows")
        try session.send("q")
    }

    /// A terminal described with the older mouse encoding (tmux's own `tmux-256color`),
    /// wider than 223 columns: the browser asks for SGR reports, so a click far right
    /// reaches its cell, and a lone Esc is still Esc.
    @Test func aClickBeyondColumn223ReachesItsCell() throws {
        let scratch = TemporaryFolder()
        let path = scratch.file("wide.db")
        let columns = (0..<40).map { String(format: "c%02d", $0) }
        let values = (0..<5).map { row in "(\(row), " + columns.map { "'r\(row)\($0)'" }.joined(separator: ", ") + ")" }
        try Database(path: path).execute("create table wide (id integer primary key, "
                                          + columns.map { "\($0) text" }.joined(separator: ", ") + "); insert into wide values "
                                          + values.joined(separator: ", "))
        let session = try Session(command: "TERM=tmux-256color \(CLI.binaryPath) browse \(path) --table wide", width: 250, height: 20)
        let screen = try session.waitFor("r4c33")
        // The cell of row 2 and column c32 on screen, as the terminal reports a click on it (from 1).
        let lines = screen.components(separatedBy: "\n")
        let line = try #require(lines.firstIndex { $0.contains("r2c32") })
        let column = try #require(lines[line].range(of: "r2c32")).lowerBound.utf16Offset(in: lines[line])
        #expect(column > 223)
        try session.send("-l", "\u{1B}[<0;\(column + 3);\(line + 1)M\u{1B}[<0;\(column + 3);\(line + 1)m")
        try session.send("Enter")
        try session.waitFor("c32 · text")
        try session.send("Escape")
        try session.waitFor("r4c33")
        try session.send("q")
    }

    @Test func aFileThatIsNotSQLiteIsRefusedBeforeTheScreenIsTouched() throws {
        let scratch = TemporaryFolder()
        let junk = scratch.file("random.bin")
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 73 &+ 11) }).write(to: URL(fileURLWithPath: junk))
        let result = try CLI.run(["browse", junk])
        #expect(result.status == 1)
        #expect(result.stderr.contains("is not a SQLite database"))
        #expect(!result.stdout.contains("\u{1b}["))
        let missing = try CLI.run(["browse", scratch.file("missing.db")])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("does not exist"))
    }

    @Test func browseWithoutATerminalSaysSo() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("demo")
        _ = try CLI.run(["demo", root])
        let result = try CLI.run(["browse", root])
        #expect(result.status == 1)
        #expect(result.stderr.contains("needs a terminal"))
    }
}

extension BrowseTmuxTests {
    @Test func fillADAOMethodFormSeeTheSQLAndRunIt() throws {
        let (_, _, session) = try Self.demoSession("--table messages --key \(Self.demoKey)", width: 140)
        try session.waitFor("conversation")
        try session.send("d")
        try session.waitFor("listMessages(")
        // listMessages is the fifth method: createTable, insertMessage, insertMessages, getMessage, listMessages.
        try session.send("Down", "Down", "Down", "Down", "Enter")
        try session.waitFor("conversation :")
        try session.send("\"team\"")
        let preview = try session.waitFor(all: ["bindings   'team'", "conversation = 'team'"])
        #expect(preview.contains("conversation = 'team'"))
        #expect(preview.contains("plan"))
        try session.send("Enter")
        let result = try session.waitFor(all: ["row(s)", "I'll bring the slides"])
        #expect(result.contains("I'll bring the slides"))
        try session.send("Escape", "Escape", "q")
    }
}

extension BrowseTmuxTests {
    @Test func theBrowserEndsWhenItsTerminalGoesAway() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("demo")
        #expect(try CLI.run(["demo", root]).status == 0)
        var session: Session? = try Session(command: "exec \(CLI.binaryPath) browse \(root)")
        try session!.waitFor("KV businesses")
        let pid = try #require(Int32(try Session.tmux(["list-panes", "-t", session!.name, "-F", "#{pane_pid}"]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        session = nil   // kills the tmux session: the terminal hangs up
        let deadline = Date().addingTimeInterval(5)
        while Self.isRunning(pid) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!Self.isRunning(pid), "the browser kept running without its terminal")
    }

    /// True while `pid` runs: it exists and is not a zombie waiting to be reaped.
    static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(close, offsetBy: 2)]
        return state != "Z" && state != "X"
    }
}
