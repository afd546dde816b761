import DatacenterKit
import Foundation
import Testing

/// The README's tour runs as written, top to bottom, in a fresh HOME after the demo is built
/// (what `make run` does first). The `browse` lines need a terminal (the tmux tests drive the
/// browser) and `bench` takes minutes (the bench tests run it), so those two are left out;
/// every other line runs, with the binary under test standing in for `.build/dist/datacenter`.
@Suite struct ReadmeTourTests {
    /// The tour's shell lines, as the README holds them.
    static func tourLines() throws -> [String] {
        let readme = try String(contentsOfFile: SQLCipherReference.packageRoot + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "## A short tour"))
        let open = try #require(readme.range(of: "```sh\n", range: start.upperBound..<readme.endIndex))
        let close = try #require(readme.range(of: "```", range: open.upperBound..<readme.endIndex))
        return readme[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// `line` inside double quotes for `echo`: its quotes and backquotes escaped, so a
    /// comment naming a command (`make run`) is printed, never run.
    static func echoed(_ line: String) -> String {
        line.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "`", with: "\\`")
    }

    @Test func theTourRunsAsWritten() throws {
        let lines = try Self.tourLines()
        #expect(lines.first?.hasPrefix("bin=") == true, "the tour starts by naming the binary")
        #expect(lines.contains { $0.contains(" browse") } && lines.contains { $0.contains("$bin bench") })
        let run = lines.filter { !$0.contains(" browse") && !$0.hasPrefix("$bin bench") }
            .map { $0.hasPrefix("bin=") ? "bin=\(CLI.binaryPath)" : $0 }
        // The demo first, as `make run` builds it; then every line, stopping at the first failure.
        let setup = run.prefix { !$0.hasPrefix("$bin ") }
        let steps = run.drop { !$0.hasPrefix("$bin ") }
        let script = (["set -e"] + setup + ["$bin demo > /dev/null"] + steps.flatMap { ["echo \"+ \(Self.echoed($0))\" >&2", $0] })
            .joined(separator: "\n")
        let home = TemporaryFolder()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = URL(fileURLWithPath: SQLCipherReference.packageRoot)
        var environment = ProcessInfo.processInfo.environment
        for name in ["DATACENTER_KEY", "DATACENTER_ROOT", "DATACENTER_DB_KEY", "DATACENTER_DB_CIPHER", "XDG_DATA_HOME", "XDG_STATE_HOME"] {
            environment[name] = nil
        }
        environment["HOME"] = home.path
        process.environment = environment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "the tour stopped at:\n\(err.suffix(800))")
        #expect(!err.contains("error:"), "\(err.suffix(800))")
        // A few of its promises, checked: values decrypted with the key, the rekeyed root open.
        #expect(out.contains("sk_live_51Hdemo-secret-token"), "\(out.suffix(400))")
        #expect(out.contains("version storage:"))
    }
}
