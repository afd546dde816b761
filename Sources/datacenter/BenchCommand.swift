import ArgumentParser
import DatacenterBench
import DatacenterDAO
import DatacenterKit
import Foundation

/// The options every benchmark takes.
struct BenchOptions: ParsableArguments {
    @Flag(help: "One JSON object per scenario per line.") var json = false
    @Flag(help: "Smaller runs, for a smoke test.") var quick = false
    @Option(help: ArgumentHelp("Scratch folder for the benchmark files (removed afterwards).", valueName: "path"))
    var folder: String?
    @Option(name: .customLong("scenario"), help: ArgumentHelp("Measure only this scenario (repeatable); what it reads is still set up, untimed.", valueName: "name"))
    var scenarios: [String] = []

    /// Checks `--scenario` against `scenarios`, prints the table header (without `--json`),
    /// then runs `body` with the scenarios chosen and a reporter that prints each result as
    /// soon as it is measured.
    /// The scratch folder made in the temporary folder (no `--folder`) goes with the command
    /// on Ctrl-C or `SIGTERM`, as it goes when the benchmark ends.
    func measure(_ scenarios: [String], _ body: (BenchmarkSelection, (BenchmarkResult) -> Void) throws -> Void) throws {
        let selection = try selection(of: scenarios)
        let cleanup = folder == nil ? ScratchFolderCleanup(path: scratch) : nil
        defer { cleanup?.disarm() }
        BenchCommand.printHeader(json: json)
        try body(selection) { BenchCommand.print($0, json: json) }
    }

    /// The scenarios chosen with `--scenario`, checked against those `known`.
    func selection(of known: [String]) throws -> BenchmarkSelection {
        let selection = BenchmarkSelection(scenarios)
        let unknown = selection.unknown(among: known)
        guard unknown.isEmpty else {
            throw ValidationError("unknown scenario \(unknown.joined(separator: ", ")); the scenarios are \(known.joined(separator: ", "))")
        }
        return selection
    }

    /// The scratch folder: `--folder`, or a new one under the temporary folder.
    var scratch: String {
        folder.map(expandTilde) ?? NSTemporaryDirectory() + "datacenter-bench-\(ProcessInfo.processInfo.processIdentifier)"
    }
}

/// `datacenter bench`: measure the engine against raw SQLite.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure the engine against a raw-SQLite baseline doing the same work.",
            discussion: ExitStatusHelp.discussion(),
        subcommands: [KV.self, LRU.self, DAO.self, Browse.self, DB.self, Changes.self])

    struct KV: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "kv",
            abstract: "Key-value scenarios: \(KVBenchmark.scenarios.joined(separator: ", ")).",
            discussion: ExitStatusHelp.discussion("With --json, one object per scenario and line: {\"scenario\",\"engine_ns\",\"baseline_ns\",\"ratio\"} (ratio = engine/baseline, nanoseconds per operation). Build with -c release for meaningful figures."))

        @OptionGroup var global: GlobalOptions
        @OptionGroup var options: BenchOptions

        func run() throws {
            try options.measure(KVBenchmark.scenarios) { selection, report in
                try KVBenchmark.run(in: options.scratch, scale: options.quick ? .quick : .standard, selection: selection, report: report)
            }
        }
    }

    struct LRU: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lru",
            abstract: "LRU scenarios: \(LRUBenchmark.scenarios.joined(separator: ", ")).",
            discussion: ExitStatusHelp.discussion("Same output as `bench kv`. Baselines: a dictionary behind a lock (memory), one thread (4 threads), raw SQLite on a table of the same shape (disk)."))

        @OptionGroup var global: GlobalOptions
        @OptionGroup var options: BenchOptions

        func run() throws {
            try options.measure(LRUBenchmark.scenarios) { selection, report in
                try LRUBenchmark.run(in: options.scratch, quick: options.quick, selection: selection, report: report)
            }
        }
    }

    struct DAO: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dao",
            abstract: "DAO scenarios: \(DAOBenchmark.scenarios.joined(separator: ", ")).",
            discussion: ExitStatusHelp.discussion("Same output as `bench kv`. Baselines: raw inserts with a reused statement in one transaction, a raw point select with a reused statement, the same SQL built by hand (render)."))

        @OptionGroup var global: GlobalOptions
        @OptionGroup var options: BenchOptions

        func run() throws {
            try options.measure(DAOBenchmark.scenarios) { selection, report in
                try DAOBenchmark.run(in: options.scratch, scale: options.quick ? .quick : .standard, selection: selection, report: report)
            }
        }
    }

    struct Changes: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "changes",
            abstract: "Snapshot and diff scenarios: \(ChangesBenchmark.scenarios.joined(separator: ", ")).",
            discussion: ExitStatusHelp.discussion("Same output as `bench kv`, in nanoseconds per run: each side is a whole process (start-up included). Baselines: sqldiff (Debian sqlite3-tools), the sqlite3 shell's .backup."))

        @OptionGroup var global: GlobalOptions
        @OptionGroup var options: BenchOptions

        func run() throws {
            try options.measure(ChangesBenchmark.scenarios) { selection, report in
                try ChangesBenchmark.run(in: options.scratch, scale: options.quick ? .quick : .standard, selection: selection, report: report)
            }
        }
    }

    /// The scenario column's width: the longest name (`db-mc-point-read-aes256cbc`) fits.
    static let scenarioColumn = 26

    static func printHeader(json: Bool) {
        if !json { Output.line("SCENARIO".padding(toLength: scenarioColumn, withPad: " ", startingAt: 0) + "  ENGINE ns/op    BASE ns/op    RATIO  TARGET") }
    }

    static func print(_ result: BenchmarkResult, json: Bool) {
        if json {
            try? Output.json(result.jsonObject)
        } else {
            Output.line(result.scenario.padding(toLength: scenarioColumn, withPad: " ", startingAt: 0)
                        + String(format: " %13.0f %13.0f %8.3f  ", result.engineNanoseconds, result.baselineNanoseconds, result.ratio)
                        + result.target + (result.isReportedOnly ? "" : result.meetsTarget ? "  ok" : "  MISSED"))
        }
        fflush(nil)
    }
}
