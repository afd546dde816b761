import ArgumentParser
import DatacenterKit
import Foundation

/// `datacenter bench`: measure the engine against raw SQLite.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure the engine against a raw-SQLite baseline doing the same work.",
        subcommands: [KV.self])

    struct KV: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "kv",
            abstract: "Key-value scenarios: kv-set, kv-set-batch, kv-get, kv-get-cached, kv-set-encrypted, import.",
            discussion: "With --json, one object per scenario and line: {\"scenario\",\"engine_ns\",\"baseline_ns\",\"ratio\"} (ratio = engine/baseline, nanoseconds per operation). Build with -c release for meaningful figures.")

        @OptionGroup var global: GlobalOptions
        @Flag(help: "One JSON object per scenario per line.") var json = false
        @Flag(help: "Smaller runs, for a smoke test.") var quick = false
        @Option(help: ArgumentHelp("Scratch folder for the benchmark files (removed afterwards).", valueName: "path"))
        var folder: String?

        func run() throws {
            let scratch = folder.map(expandTilde) ?? NSTemporaryDirectory() + "datacenter-bench-\(ProcessInfo.processInfo.processIdentifier)"
            if !json { Output.line("SCENARIO".padding(toLength: 18, withPad: " ", startingAt: 0) + "  ENGINE ns/op    BASE ns/op    RATIO  TARGET") }
            try KVBenchmark.run(in: scratch, scale: quick ? .quick : .standard) { result in
                if json {
                    try? Output.json(result.jsonObject)
                } else {
                    Output.line(result.scenario.padding(toLength: 18, withPad: " ", startingAt: 0)
                                + String(format: " %13.0f %13.0f %8.3f  ", result.engineNanoseconds, result.baselineNanoseconds, result.ratio)
                                + result.target + (result.meetsTarget ? "  ok" : "  MISSED"))
                }
                fflush(nil)
            }
        }
    }
}
