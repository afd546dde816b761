import Foundation

/// A `datacenter` command run as a child of the benchmark, for what only a whole process can
/// show: its peak resident memory (`wait4`'s `ru_maxrss`), and its time start to end.
enum BenchChildProcess {
    /// What one run measured.
    struct Measurement {
        /// Wall-clock nanoseconds from spawn to exit.
        let nanoseconds: Double
        /// Peak resident memory, in bytes.
        let peakBytes: Int
    }

    /// The program called `name` on `PATH`, if installed (a baseline tool: the sqlite3
    /// shell, `sqldiff`, tmux).
    static func tool(_ name: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `datacenter ARGUMENTS` (output thrown away); nil when this process is not the
    /// `datacenter` binary (a test runner), which has no binary to run.
    /// - throws: `DatabaseBenchmark.Failure` when the command fails.
    static func run(_ arguments: [String], exitCodes: Set<Int32> = [0]) throws -> Measurement? {
        guard let binary = Bundle.main.executableURL?.resolvingSymlinksInPath().path, binary.hasSuffix("/datacenter") else { return nil }
        return try spawn(binary, arguments, exitCodes: exitCodes)
    }

    /// Runs the program at `executable` with `arguments` (output thrown away), as `run` runs
    /// `datacenter`: a baseline tool (`sqldiff`, the sqlite3 shell) measured the same way.
    /// Exiting with a code outside `exitCodes` is a failure.
    /// - throws: `DatabaseBenchmark.Failure` when it cannot start or fails.
    static func spawn(_ executable: String, _ arguments: [String], exitCodes: Set<Int32> = [0]) throws -> Measurement {
        let binary = executable
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([binary] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let start = Stopwatch.now()
        var pid: pid_t = 0
        guard posix_spawn(&pid, binary, &actions, nil, argv, environ) == 0 else {
            throw DatabaseBenchmark.Failure(description: "cannot start \(binary)")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
        let elapsed = Double(Stopwatch.now() - start)
        // Exited (no signal), with one of the codes expected.
        guard status & 0x7F == 0, exitCodes.contains((status >> 8) & 0xFF) else {
            throw DatabaseBenchmark.Failure(description: "\((binary as NSString).lastPathComponent) \(arguments.prefix(2).joined(separator: " ")) failed (status \(status))")
        }
        return Measurement(nanoseconds: elapsed, peakBytes: Int(usage.ru_maxrss) * 1024)  // kilobytes on Linux
    }
}
