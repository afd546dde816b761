import DatacenterBrowser
import DatacenterKit
import Foundation

/// `browse-commit-undo` (reported): what keeping a commit's undo costs, on the heaviest
/// commit the browser makes, a console `.import` of a 100,000-row CSV into a new table of a
/// plain file: the commit with a state folder (its undo file written from SQLite's pre-update
/// hook, then turned into the inverse statements) against the same commit without one. No
/// target: the undo is what `Z` needs, and a commit of a few edits pays for a few rows.
enum BrowserCommitUndoBenchmark {
    /// The scenario.
    static let scenarios = ["browse-commit-undo"]

    /// Times `rounds` commits each way, in `scratch`.
    static func run(scratch: String, rounds: Int = 3, selection: BenchmarkSelection, report: (BenchmarkResult) throws -> Void) throws {
        guard selection.includes("browse-commit-undo") else { return }
        let folder = (scratch as NSString).appendingPathComponent("commit-undo")
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let csv = folder + "/rows.csv"
        var text = "id,name,amount\n"
        for i in 0..<100_000 { text += "\(i),customer number \(i),\(Double(i) * 1.25)\n" }
        try text.write(toFile: csv, atomically: true, encoding: .utf8)
        var kept: [Double] = [], plain: [Double] = []
        var undoBytes = 0
        for round in 0..<rounds {
            for keepsUndo in [false, true] {
                let path = folder + "/store-\(round)-\(keepsUndo).sqlite"
                let state = URL(fileURLWithPath: folder + "/state-\(round)")
                try Database(path: path).execute("CREATE TABLE other(x)")
                let b = Browser(catalog: try BrowserCatalog(path: path, keys: .empty), width: 120, height: 40,
                                stateFolder: keepsUndo ? state : nil)
                BrowserBenchmark.settle(b, .key(.character(":")))
                BrowserBenchmark.settle(b, .paste(".import --csv \(csv) rows"))
                BrowserBenchmark.settle(b, .key(.enter))
                BrowserBenchmark.settle(b, .key(.escape))
                BrowserBenchmark.settle(b, .key(.character("w")))
                b.handle(.key(.character("c")))
                let commands = b.takeCommands()
                var event: BrowserEvent?
                let time = Stopwatch.time { event = commands.compactMap { $0.perform() }.first }
                guard case let .commitFinished(_, committed, failure, _)? = event, failure == nil, committed.count == 1 else {
                    throw BrowserWorkflowBenchmark.Failure(description: "browse-commit-undo: the import was not committed (\(String(describing: event)))")
                }
                if keepsUndo {
                    kept.append(time)
                    let undo = try FileManager.default.contentsOfDirectory(atPath: state.path + "/undo")
                    undoBytes = try undo.reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: state.path + "/undo/" + $1)[.size] as? Int) ?? 0) }
                } else {
                    plain.append(time)
                }
            }
        }
        try report(BenchmarkResult(scenario: "browse-commit-undo", engineNanoseconds: Stopwatch.median(kept),
                                   baselineNanoseconds: Stopwatch.median(plain),
                                   target: "reported only: the commit keeping its undo against the same commit keeping none "
                                       + "(CSV \(text.utf8.count / 1_000) KB, undo file \(undoBytes / 1_000) KB)",
                                   meetsTarget: true, isReportedOnly: true))
    }
}
