import DatacenterBrowser
import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation

/// `browse-paste-2000`: a 2,000-character bracketed paste into a DAO form's field, in
/// process, until its frame is drawn: the field takes the text whole, the SQL preview is
/// worked out once (its query plan read) and the screen rendered. The baseline is one typed
/// character's frame in the same field. Target: one frame, ≤ 16 ms (before, a paste was
/// 2,000 keys and 2,000 previews: 3–4.5 s).
enum BrowserPasteBenchmark {
    /// The scenario.
    static let scenarios = ["browse-paste-2000"]

    /// Builds the demo in `scratch`, opens alice's messages' `listMessages` form, and times
    /// `rounds` pastes against as many typed keys.
    static func run(scratch: String, rounds: Int = 7, selection: BenchmarkSelection, report: (BenchmarkResult) throws -> Void) throws {
        guard selection.includes("browse-paste-2000") else { return }
        let root = (scratch as NSString).appendingPathComponent("paste-demo")
        try? FileManager.default.removeItem(atPath: root)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try DemoStore.build(at: root)
        try DAODemo.build(in: DataCenter(rootPath: root, crypt: KeyRing([DemoStore.key])))
        let method = try DAOConfig(xml: DAOExamples.messages).methods.firstIndex { $0.id == "listMessages" } ?? 0
        let text = "\"" + String(repeating: "x", count: 1_998) + "\""
        var pastes: [Double] = [], keys: [Double] = []
        for _ in 0..<rounds {
            let b = Browser(catalog: try BrowserCatalog(path: root, keys: KeyRing([DemoStore.key])), width: 120, height: 40)
            b.openNode(named: "messages")
            BrowserBenchmark.performCommands(of: b)
            BrowserBenchmark.settle(b, .key(.character("d")))
            for _ in 0..<method { BrowserBenchmark.settle(b, .key(.down)) }
            BrowserBenchmark.settle(b, .key(.enter))
            pastes.append(Stopwatch.time {
                BrowserBenchmark.settle(b, .paste(text))
                _ = b.render()
            })
            keys.append(Stopwatch.time {
                BrowserBenchmark.settle(b, .key(.backspace))
                _ = b.render()
            })
        }
        let (paste, key) = (Stopwatch.median(pastes), Stopwatch.median(keys))
        try report(BenchmarkResult(scenario: "browse-paste-2000", engineNanoseconds: paste, baselineNanoseconds: key,
                                   target: "engine_ns <= 16 ms: one frame (baseline: one key typed in the field)",
                                   meetsTarget: paste <= 16_000_000))
    }
}
