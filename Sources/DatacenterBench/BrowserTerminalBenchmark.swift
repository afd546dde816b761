import DatacenterKit
import Foundation

/// The browser measured as a person sees it: in a real terminal (a tmux pane of its own
/// server and socket, 120 × 40), from a key or from the start of the process until the
/// screen shows the result, against the sqlite3 shell in a pane of the same size.
///
/// - `browse-tmux-first-rows`: `datacenter browse FILE --table T` started until its first
///   rows are on screen, start-up included, against `sqlite3 FILE "SELECT * FROM T LIMIT
///   38"` started until its rows are printed.
/// - `browse-tmux-end`: `End` in the open grid until the last row is on screen, against the
///   shell (already open) printing the result of a trivial query typed with Enter.
/// - `browse-tmux-end-page` (reported): the same `End`, against the open shell printing the
///   same last page (`SELECT * … ORDER BY rowid DESC LIMIT 38`): what the terminal takes to
///   show a screenful of rows, which a one-line answer does not measure.
///
/// Both sides are started, sent keys and watched the same way: through one tmux client in
/// control mode (`tmux -C`), which asks the server for the pane's screen (`capture-pane`)
/// in about 0.06 ms, where starting a `tmux capture-pane` process each time took 2-3 ms and
/// was most of what a fast answer measured. Figures are medians of the rounds. Needs tmux
/// and sqlite3.
enum BrowserTerminalBenchmark {
    static let scenarios = ["browse-tmux-first-rows", "browse-tmux-end", "browse-tmux-down"]

    /// A tmux server of this run's own, driven through one control-mode client.
    final class Tmux {
        let socket = "datacenter-bench-\(getpid())"
        /// The control-mode client, attached to a session of its own (a `sleep`), so it never
        /// sizes the panes measured.
        private var client: pid_t = 0
        private var commands: Int32 = -1
        private var replies: Int32 = -1
        /// What the client wrote that is not yet read as lines.
        private var pending: [UInt8] = []

        /// Starts the server and the client.
        /// - throws: when tmux cannot be started.
        init() throws {
            try Self.spawn(["tmux", "-L", socket, "new-session", "-d", "-s", "control", "-x", "120", "-y", "40", "sleep 600"])
            do {
                try attach()
            } catch {
                killServer()   // no server left behind
                throw error
            }
        }

        /// Ends the server and removes its socket, which tmux leaves behind when its server
        /// is killed (in `$TMUX_TMPDIR`, else `/tmp`, under `tmux-UID`).
        private func killServer() {
            _ = try? Self.spawn(["tmux", "-L", socket, "kill-server"])
            let folder = ProcessEnvironment.value("TMUX_TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            unlink(folder + "/tmux-\(getuid())/" + socket)
        }

        /// Starts the control-mode client on the `control` session and reads up to its first
        /// reply of ours.
        private func attach() throws {
            var toClient: [Int32] = [0, 0], fromClient: [Int32] = [0, 0]
            guard pipe(&toClient) == 0, pipe(&fromClient) == 0 else {
                throw DatabaseBenchmark.Failure(description: "cannot make pipes for tmux")
            }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, toClient[0], 0)
            posix_spawn_file_actions_adddup2(&actions, fromClient[1], 1)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            for fd in toClient + fromClient { posix_spawn_file_actions_addclose(&actions, fd) }
            let words: [String] = ["tmux", "-L", socket, "-C", "attach", "-t", "control"]
            let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            guard posix_spawnp(&client, "tmux", &actions, nil, argv, environ) == 0 else {
                throw DatabaseBenchmark.Failure(description: "cannot start tmux (bench browse's terminal scenarios need it)")
            }
            close(toClient[0])
            close(fromClient[1])
            commands = toClient[1]
            replies = fromClient[0]
            // The attach answers with a block of its own first: read up to a known reply, so
            // each later command's reply is the next block.
            let mark = "datacenter-bench-ready-\(getpid())"
            try write("display-message -p \(mark)")
            while try readLine() != mark {}
            _ = try readLine()                        // its %end
        }

        /// Ends the client and the server.
        func stop() {
            close(commands)
            var status: Int32 = 0
            while waitpid(client, &status, 0) == -1 && errno == EINTR {}
            close(replies)
            killServer()
        }

        /// Runs a tmux command line (tmux's own quoting) through the client; its output lines.
        /// - throws: when tmux answers with an error, or the client is gone.
        @discardableResult
        func run(_ command: String) throws -> [String] {
            try write(command)
            // The reply is the block between %begin and %end (or %error); notifications
            // around it are skipped.
            var block: [String]?
            while true {
                let reply = try readLine()
                if reply.hasPrefix("%begin ") { block = []; continue }
                guard var lines = block else { continue }
                if reply.hasPrefix("%end ") { return lines }
                if reply.hasPrefix("%error ") {
                    throw DatabaseBenchmark.Failure(description: "tmux: \(command): " + lines.joined(separator: "\n"))
                }
                lines.append(reply)
                block = lines
            }
        }

        /// Sends one command line to the client.
        private func write(_ command: String) throws {
            let line = Array((command + "\n").utf8)
            var written = 0
            while written < line.count {
                let result = line[written...].withUnsafeBytes { Glibc.write(commands, $0.baseAddress, $0.count) }
                guard result > 0 else { throw DatabaseBenchmark.Failure(description: "the tmux client is gone") }
                written += result
            }
        }

        private func readLine() throws -> String {
            while true {
                if let end = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[..<end], as: UTF8.self)
                    pending.removeSubrange(...end)
                    return line
                }
                var buffer = [UInt8](repeating: 0, count: 65_536)
                let count = read(replies, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw DatabaseBenchmark.Failure(description: "the tmux client ended") }
                pending += buffer[..<count]
            }
        }

        /// `text` as one argument of a tmux command line (single quotes, which tmux takes
        /// literally; a `'` inside is closed, escaped and reopened).
        static func quoted(_ text: String) -> String {
            "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        }

        /// Runs `argv` as a process and waits for it (setting up and tearing down only).
        private static func spawn(_ argv: [String]) throws {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            let arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
            defer { arguments.forEach { free($0) } }
            var pid: pid_t = 0
            guard posix_spawnp(&pid, argv[0], &actions, nil, arguments, environ) == 0 else {
                throw DatabaseBenchmark.Failure(description: "cannot start tmux (bench browse's terminal scenarios need it)")
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        }

        /// A new pane running `command`; returns its session's name.
        func start(_ command: String) throws -> String {
            let name = "s\(UInt32.random(in: 0...UInt32.max))"
            try run("new-session -d -s \(name) -x 120 -y 40 \(Self.quoted(command))")
            return name
        }

        /// Types `keys` (tmux key names, or `-l` and literal text) into `session`.
        func send(_ session: String, _ keys: String) throws {
            try run("send-keys -t \(session) \(keys)")
        }

        /// Nanoseconds from now until the screen of `session` holds a line `until` accepts
        /// (10 s at most).
        func wait(_ session: String, until accepts: (Substring) -> Bool) throws -> Double {
            let start = Stopwatch.now()
            var screen: [String] = []
            while Stopwatch.now() - start < 10_000_000_000 {
                screen = try run("capture-pane -p -t \(session)")
                if screen.contains(where: { accepts(Substring($0)) }) { return Double(Stopwatch.now() - start) }
            }
            throw DatabaseBenchmark.Failure(description: "the terminal never showed what was waited for; it showed:\n"
                                                + screen.joined(separator: "\n"))
        }

        func kill(_ session: String) { _ = try? run("kill-session -t \(session)") }
    }

    /// Runs the selected scenarios on `table` (a `messages` table of `rows` rows, whose row N
    /// reads `message N: …`) of the file at `path`.
    static func run(path: String, table: String, rows: Int, rounds: Int, selection: BenchmarkSelection,
                    report: (BenchmarkResult) throws -> Void) throws {
        guard selection.includesAny("browse-tmux-first-rows", "browse-tmux-end", "browse-tmux-down") else { return }
        guard let binary = Bundle.main.executableURL?.resolvingSymlinksInPath().path, binary.hasSuffix("/datacenter"),
              let shell = SQLiteShell.path, BenchChildProcess.tool("tmux") != nil else { return }
        // They watch for row 30 and the last page's 38 rows: a smaller table never shows them.
        guard rows >= 38 else {
            throw DatabaseBenchmark.Failure(description: "the terminal scenarios need a table of at least 38 rows (--rows \(rows) given)")
        }
        let tmux = try Tmux()                          // the server, started before anything is timed
        defer { tmux.stop() }
        let state = NSTemporaryDirectory() + "dc-bench-state-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: state) }
        // TERM as tmux sets it in its panes (tmux-256color): the keys it sends are the ones its terminfo names.
        let browse = "XDG_STATE_HOME=\(state) exec \(binary) browse \(path) --table \(table)"
        let firstRow: (Substring) -> Bool = { $0.contains("message 30:") }
        var first: [Double] = [], firstShell: [Double] = [], startUp: [Double] = [], down: [Double] = [], end: [Double] = []
        var pageShell: [Double] = []
        for _ in 0..<rounds {
            // Start-up included: the command is started, then watched.
            var start = Stopwatch.now()
            let browser = try tmux.start(browse)
            first.append(Double(Stopwatch.now() - start) + (try tmux.wait(browser, until: firstRow)))
            start = Stopwatch.now()
            let printed = try tmux.start("\(shell) \(path) \"SELECT * FROM \(table) LIMIT 38\"; sleep 600")
            firstShell.append(Double(Stopwatch.now() - start) + (try tmux.wait(printed, until: firstRow)))
            tmux.kill(printed)
            // The floor: the same binary started until it prints its version and nothing else.
            start = Stopwatch.now()
            let version = try tmux.start("\(binary) --version; sleep 600")
            startUp.append(Double(Stopwatch.now() - start) + (try tmux.wait(version) { $0.contains(".") }))
            tmux.kill(version)

            // The cursor on the next row: the status line names its key.
            try tmux.send(browser, "Down")
            down.append(try tmux.wait(browser) { $0.contains("key 2 of ") })
            try tmux.send(browser, "End")
            end.append(try tmux.wait(browser) { $0.contains("message \(rows):") })
            tmux.kill(browser)
            let interactive = try tmux.start("\(shell) \(path)")
            _ = try tmux.wait(interactive) { $0.hasPrefix("sqlite>") }
            // The last page, newest row first: on screen once its last line (row N - 37) is.
            // Quoted, the ";" is typed rather than taken as the end of the tmux command.
            let lastPage = "SELECT * FROM \(table) ORDER BY rowid DESC LIMIT 38;"
            try tmux.send(interactive, "-l " + Tmux.quoted(lastPage))
            _ = try tmux.wait(interactive) { $0.contains(lastPage) }
            try tmux.send(interactive, "Enter")
            pageShell.append(try tmux.wait(interactive) { $0.hasPrefix("\(rows - 37)|") })
            tmux.kill(interactive)
        }
        if selection.includes("browse-tmux-first-rows") {
            let (engine, baseline, floor) = (Stopwatch.median(first), Stopwatch.median(firstShell), Stopwatch.median(startUp))
            try report(BenchmarkResult(scenario: "browse-tmux-first-rows", engineNanoseconds: engine, baselineNanoseconds: baseline,
                                       target: String(format: "ratio <= 3 (start-up included, in tmux; baseline: sqlite3 printing 38 rows; "
                                           + "floor: this binary's start-up alone, --version, %.1f ms, %.2f)", floor / 1e6, floor / baseline),
                                       meetsTarget: engine / baseline <= 3))
        }
        if selection.includes("browse-tmux-end") {
            let (engine, baseline) = (Stopwatch.median(end), Stopwatch.median(pageShell))
            try report(BenchmarkResult(scenario: "browse-tmux-end", engineNanoseconds: engine, baselineNanoseconds: baseline,
                                       target: "frame <= 16 ms (End until the last row shows, in tmux; baseline, reported: "
                                           + "the open shell printing that last page)",
                                       meetsTarget: engine <= 16_000_000))
        }
        if selection.includes("browse-tmux-down") {
            let engine = Stopwatch.median(down)
            try report(BenchmarkResult(scenario: "browse-tmux-down", engineNanoseconds: engine, baselineNanoseconds: engine,
                                       target: "frame <= 16 ms (Down until the cursor shows on the next row, in tmux; no baseline)",
                                       meetsTarget: engine <= 16_000_000))
        }
    }
}
