import DatacenterBrowser
import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation

/// One measured scenario: the engine's time per operation against a baseline doing the same
/// logical work (raw SQLite calls in the same process, unless `baselineName` says otherwise).
package struct BenchmarkResult: Sendable, Equatable {
    /// The scenario's name, e.g. `kv-get`.
    package let scenario: String
    /// Engine nanoseconds per operation.
    package let engineNanoseconds: Double
    /// Baseline nanoseconds per operation.
    package let baselineNanoseconds: Double
    /// What the target is, in words (for the human-readable table).
    package let target: String
    /// Whether the measured figures meet the target.
    package let meetsTarget: Bool
    /// True for a figure shown for what it tells, with no target to meet (`target` says why).
    package let isReportedOnly: Bool

    /// A result; `meetsTarget` is decided by the caller, `target` describes it.
    package init(scenario: String, engineNanoseconds: Double, baselineNanoseconds: Double, target: String, meetsTarget: Bool,
                isReportedOnly: Bool = false) {
        self.scenario = scenario
        self.engineNanoseconds = engineNanoseconds
        self.baselineNanoseconds = baselineNanoseconds
        self.target = target
        self.meetsTarget = meetsTarget
        self.isReportedOnly = isReportedOnly
    }

    /// engine / baseline.
    package var ratio: Double { baselineNanoseconds > 0 ? engineNanoseconds / baselineNanoseconds : 0 }

    /// The JSON object of the `bench --json` contract: scenario, engine_ns, baseline_ns, ratio.
    package var jsonObject: [String: Any] {
        ["scenario": scenario, "engine_ns": (engineNanoseconds * 10).rounded() / 10,
         "baseline_ns": (baselineNanoseconds * 10).rounded() / 10, "ratio": (ratio * 1000).rounded() / 1000]
    }
}

/// Timing helpers shared by the benchmarks (`KVBenchmark`, `LRUBenchmark`, the DAO benchmark).
package enum Stopwatch {
    /// Nanoseconds of a monotonic clock.
    package static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Runs `body` and returns nanoseconds elapsed.
    package static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = now()
        try body()
        return Double(now() - start)
    }

    /// The median of `values`.
    package static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Runs `engine` and `baseline` alternately for `rounds` rounds (so drift and noise hit
    /// both alike) and returns the median nanoseconds per operation of each.
    package static func interleaved(rounds: Int, operations: Int, engine: (Int) throws -> Void,
                            baseline: (Int) throws -> Void) rethrows -> (engine: Double, baseline: Double) {
        var e: [Double] = [], b: [Double] = []
        for round in 0..<rounds {
            if round % 2 == 0 {
                e.append(try time { try engine(round) } / Double(operations))
                b.append(try time { try baseline(round) } / Double(operations))
            } else {
                b.append(try time { try baseline(round) } / Double(operations))
                e.append(try time { try engine(round) } / Double(operations))
            }
        }
        return (median(e), median(b))
    }
}
