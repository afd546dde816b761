import Foundation
import Testing

/// Drives the real `datacenter browse` in a tmux session, as a person would.
@Suite(.serialized) struct BrowseTmuxTests {
    static let demoKey = "64336d305a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"

    /// A tmux session running one command, killed when released.
    final class Session {
        let name = "dc-test-" + UUID().uuidString.prefix(8)
        init(command: String, width: Int = 120, height: Int = 40) throws {
            let result = try Session.tmux(["new-session", "-d", "-s", name, "-x", "\(width)", "-y", "\(height)", command])
            #expect(result.status == 0, "tmux failed: \(result.output)")
        }
        deinit { _ = try? Session.tmux(["kill-session", "-t", name]) }

        func send(_ keys: String...) throws { _ = try Session.tmux(["send-keys", "-t", name] + keys) }
        func screen() throws -> String { try Session.tmux(["capture-pane", "-p", "-t", name]).output }
        var isRunning: Bool { (try? Session.tmux(["has-session", "-t", name]).status == 0) ?? false }

        /// Waits (up to `seconds`) until the screen contains `text`; returns the last screen.
        @discardableResult
        func waitFor(_ text: String, seconds: Double = 15) throws -> String {
            let deadline = Date().addingTimeInterval(seconds)
            var last = ""
            while Date() < deadline {
                last = try screen()
                if last.contains(text) { return last }
                Thread.sleep(forTimeInterval: 0.1)
            }
            Issue.record("screen never showed \(text):\n\(last)")
            return last
        }

        static func tmux(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["tmux"] + arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }

    @Test func openTheDemoAndSeeAnEncryptedValueDecrypted() throws {
        let scratch = Scratch()
        let root = scratch.file("demo")
        #expect(try CLI.run(["demo", root]).status == 0)
        let session = try Session(command: "TERM=xterm-256color \(CLI.binaryPath) browse \(root) --key \(Self.demoKey)")
        try session.waitFor("KV businesses")
        // common store → KV businesses → app, feed-cache, session.
        try session.send("Down", "Down", "Down", "Down", "Enter")
        let grid = try session.waitFor("sk_live_51Hdemo-secret-token")
        #expect(grid.contains("apiToken"))
        #expect(grid.contains("{\"scope\":\"read write\",\"user\":\"alice\"}"))
        try session.send("Enter")
        let inspector = try session.waitFor("decrypted")
        #expect(inspector.contains("VALUE · string · decrypted"))
        try session.send("Escape", "Tab", "q")
        let deadline = Date().addingTimeInterval(5)
        while session.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(!session.isRunning, "the browser did not quit on q")
    }

    @Test func withoutTheKeyValuesShowLockedAndResizeRedraws() throws {
        let scratch = Scratch()
        let root = scratch.file("demo")
        #expect(try CLI.run(["demo", root]).status == 0)
        let session = try Session(command: "TERM=xterm-256color \(CLI.binaryPath) browse \(root) --table session")
        let screen = try session.waitFor("[locked: no key]")
        #expect(!screen.contains("sk_live"))
        _ = try Session.tmux(["resize-window", "-t", session.name, "-x", "60", "-y", "15"])
        try session.waitFor("apiToken")
        _ = try Session.tmux(["resize-window", "-t", session.name, "-x", "40", "-y", "10"])
        try session.send("q")
    }

    @Test func aFileThatIsNotSQLiteIsRefusedBeforeTheScreenIsTouched() throws {
        let scratch = Scratch()
        let junk = scratch.file("random.bin")
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 73 &+ 11) }).write(to: URL(fileURLWithPath: junk))
        let result = try CLI.run(["browse", junk])
        #expect(result.status == 1)
        #expect(result.stderr.contains("is not a SQLite database"))
        #expect(!result.stdout.contains("\u{1b}["))
        let missing = try CLI.run(["browse", scratch.file("missing.db")])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("does not exist"))
    }

    @Test func browseWithoutATerminalSaysSo() throws {
        let scratch = Scratch()
        let root = scratch.file("demo")
        _ = try CLI.run(["demo", root])
        let result = try CLI.run(["browse", root])
        #expect(result.status == 1)
        #expect(result.stderr.contains("needs a terminal"))
    }
}

extension BrowseTmuxTests {
    @Test func fillADAOMethodFormSeeTheSQLAndRunIt() throws {
        let scratch = Scratch()
        let root = scratch.file("demo")
        #expect(try CLI.run(["demo", root]).status == 0)
        let session = try Session(command: "TERM=xterm-256color \(CLI.binaryPath) browse \(root) --table messages --key \(Self.demoKey)", width: 140)
        try session.waitFor("conversation")
        try session.send("d")
        try session.waitFor("listMessages(")
        // listMessages is the fifth method: createTable, insertMessage, insertMessages, getMessage, listMessages.
        try session.send("Down", "Down", "Down", "Down", "Enter")
        try session.waitFor("conversation :")
        try session.send("\"team\"")
        let preview = try session.waitFor("bindings   'team'")
        #expect(preview.contains("conversation = 'team'"))
        #expect(preview.contains("plan"))
        try session.send("Enter")
        let result = try session.waitFor("row(s)")
        #expect(result.contains("I'll bring the slides"))
        try session.send("Escape", "Escape", "q")
    }
}
