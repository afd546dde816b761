import Foundation
import Testing

/// `bench browse`'s terminal scenarios measure in a real tmux pane: first rows and End
/// report a time for the browser and one for the sqlite3 shell, Down the browser's alone (a
/// wait that never ends would fail).
@Suite struct BenchBrowseTmuxTests {
    @Test func theTerminalScenariosMeasureBothSides() throws {
        let scratch = TemporaryFolder()
        // tmux's sockets go here (`TMUX_TMPDIR`), so the test sees what the run leaves: a
        // short path, as a socket's path is limited to 107 bytes.
        let sockets = "/tmp/dc-tmux-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: sockets, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: sockets) }
        let result = try CLI.run(["bench", "browse", "--quick", "--json", "--rows", "3000", "--folder", scratch.file("bench"),
                                  "--scenario", "browse-tmux-first-rows", "--scenario", "browse-tmux-end",
                                  "--scenario", "browse-tmux-down"], environment: ["TMUX_TMPDIR": sockets], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: sockets + "/tmux-\(getuid())")) ?? []
        #expect(left.isEmpty, "the run's tmux socket is removed with its server: \(left)")
        let objects = try result.stdout.split(separator: "\n").map { try #require(try CLI.json(String($0)) as? [String: Any]) }
        #expect(objects.compactMap { $0["scenario"] as? String } == ["browse-tmux-first-rows", "browse-tmux-end", "browse-tmux-down"])
        #expect(objects.allSatisfy { ($0["engine_ns"] as? Double ?? 0) > 0 && ($0["baseline_ns"] as? Double ?? 0) > 0 })
    }

    /// A table too small for what they watch for (row 30, a page of 38) is refused at once,
    /// saying why, instead of waiting 10 s for a row that never shows.
    @Test func aTableTooSmallIsRefusedSayingWhy() throws {
        let scratch = TemporaryFolder()
        let result = try CLI.run(["bench", "browse", "--quick", "--rows", "20", "--folder", scratch.file("bench"),
                                  "--scenario", "browse-tmux-end"], timeout: 60)
        #expect(result.status == 1)
        #expect(result.stderr.contains("the terminal scenarios need a table of at least 38 rows (--rows 20 given)"), "\(result.stderr)")
    }
}
