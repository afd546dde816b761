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
///
/// Both sides are watched the same way (`capture-pane` every millisecond or so), so what the
/// watching costs is on both; figures are medians of the rounds. Needs tmux and sqlite3.
enum BrowserTerminalBenchmark {
    static let scenarios = ["browse-tmux-first-rows", "browse-tmux-end"]

    /// A tmux server of this run's own.
    struct Tmux {
        let socket = "datacenter-bench-\(getpid())"

        /// Runs `tmux ARGS` on the socket; its output.
        @discardableResult
        func run(_ arguments: [String]) throws -> String {
            let output = NSTemporaryDirectory() + "dc-bench-tmux-\(getpid()).out"
            defer { unlink(output) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
            let argv = (["tmux", "-L", socket] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            guard posix_spawnp(&pid, "tmux", &actions, nil, argv, environ) == 0 else {
                throw DatabaseBenchmark.Failure(description: "cannot start tmux (bench browse's terminal scenarios need it)")
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            return String(decoding: FileManager.default.contents(atPath: output) ?? Data(), as: UTF8.self)
        }

        /// A new pane running `command`; returns its session's name.
        func start(_ command: String) throws -> String {
            let name = "s\(UInt32.random(in: 0...UInt32.max))"
            try run(["new-session", "-d", "-s", name, "-x", "120", "-y", "40", command])
            return name
        }

        /// Nanoseconds from now until the screen of `session` holds a line `until` accepts
        /// (10 s at most).
        func wait(_ session: String, until accepts: (Substring) -> Bool) throws -> Double {
            let start = Stopwatch.now()
            var screen = ""
            while Stopwatch.now() - start < 10_000_000_000 {
                screen = try run(["capture-pane", "-p", "-t", session])
                if screen.split(separator: "\n").contains(where: accepts) { return Double(Stopwatch.now() - start) }
            }
            throw DatabaseBenchmark.Failure(description: "the terminal never showed what was waited for; it showed:\n" + screen)
        }

        func kill(_ session: String) { _ = try? run(["kill-session", "-t", session]) }
        func stop() { _ = try? run(["kill-server"]) }
    }

    /// Runs the selected scenarios on `table` (a `messages` table of `rows` rows, whose row N
    /// reads `message N: …`) of the file at `path`.
    static func run(path: String, table: String, rows: Int, rounds: Int, selection: BenchmarkSelection,
                    report: (BenchmarkResult) throws -> Void) throws {
        guard selection.includesAny("browse-tmux-first-rows", "browse-tmux-end") else { return }
        guard let binary = Bundle.main.executableURL?.resolvingSymlinksInPath().path, binary.hasSuffix("/datacenter"),
              let shell = SQLiteShell.path, BenchChildProcess.tool("tmux") != nil else { return }
        let tmux = Tmux()
        defer { tmux.stop() }
        _ = try tmux.start("sleep 600")               // the server, started before anything is timed
        let state = NSTemporaryDirectory() + "dc-bench-state-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: state) }
        // TERM as tmux sets it in its panes (tmux-256color): the keys it sends are the ones its terminfo names.
        let browse = "XDG_STATE_HOME=\(state) exec \(binary) browse \(path) --table \(table)"
        let firstRow: (Substring) -> Bool = { $0.contains("message 30:") }
        var first: [Double] = [], firstShell: [Double] = [], end: [Double] = [], endShell: [Double] = []
        for _ in 0..<rounds {
            // Start-up included: the command is started, then watched.
            var start = Stopwatch.now()
            let browser = try tmux.start(browse)
            first.append(Double(Stopwatch.now() - start) + (try tmux.wait(browser, until: firstRow)))
            start = Stopwatch.now()
            let printed = try tmux.start("\(shell) \(path) \"SELECT * FROM \(table) LIMIT 38\"; sleep 600")
            firstShell.append(Double(Stopwatch.now() - start) + (try tmux.wait(printed, until: firstRow)))
            tmux.kill(printed)

            try tmux.run(["send-keys", "-t", browser, "End"])
            end.append(try tmux.wait(browser) { $0.contains("message \(rows):") })
            tmux.kill(browser)
            let interactive = try tmux.start("\(shell) \(path)")
            _ = try tmux.wait(interactive) { $0.hasPrefix("sqlite>") }
            let answer = String(Int.random(in: 10_000_000...99_999_999))
            // A ";" ending an argument separates tmux commands: escaped, it is typed.
            try tmux.run(["send-keys", "-t", interactive, "-l", "SELECT \(answer)\\;"])
            _ = try tmux.wait(interactive) { $0.contains("SELECT \(answer);") }
            try tmux.run(["send-keys", "-t", interactive, "Enter"])
            endShell.append(try tmux.wait(interactive) { $0 == Substring(answer) })
            tmux.kill(interactive)
        }
        if selection.includes("browse-tmux-first-rows") {
            let (engine, baseline) = (Stopwatch.median(first), Stopwatch.median(firstShell))
            try report(BenchmarkResult(scenario: "browse-tmux-first-rows", engineNanoseconds: engine, baselineNanoseconds: baseline,
                                       target: "ratio <= 2 (start-up included, in tmux; baseline: sqlite3 printing 38 rows)",
                                       meetsTarget: engine / baseline <= 2))
        }
        if selection.includes("browse-tmux-end") {
            let (engine, baseline) = (Stopwatch.median(end), Stopwatch.median(endShell))
            try report(BenchmarkResult(scenario: "browse-tmux-end", engineNanoseconds: engine, baselineNanoseconds: baseline,
                                       target: "ratio <= 2 (End until the last row shows, in tmux; baseline: the shell's answer to a trivial query)",
                                       meetsTarget: engine / baseline <= 2))
        }
    }
}
