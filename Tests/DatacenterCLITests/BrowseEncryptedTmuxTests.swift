import Foundation
import Testing

/// The browser meeting encrypted databases: it asks for the passphrase on a terminal, never
/// echoing it, and says what to pass elsewhere.
extension BrowseTmuxTests {
    @Test func anEncryptedRootAsksForItsPassphraseWithoutEcho() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("demo")
        #expect(try CLI.run(["demo", root, "--encrypt-db"]).status == 0)
        // Cores allowed where it starts (`ulimit -c unlimited`): the browser turns them off itself.
        let session = try Session(command: "ulimit -c unlimited; TERM=xterm-256color exec \(CLI.binaryPath) browse \(root) --table session --key \(Self.demoKey)")
        try session.waitFor("Database passphrase for")
        try session.send("not-the-passphrase", "Enter")
        let retry = try session.waitFor("try again")
        #expect(!retry.contains("not-the-passphrase"), "the passphrase was echoed:\n\(retry)")
        try session.send("datacenter-demo-db", "Enter")
        let grid = try session.waitFor("sk_live_51Hdemo-secret-token")
        #expect(!grid.contains("datacenter-demo-db"))
        // Holding the passphrase and the key, the browser writes no core file.
        let pid = try Session.tmux(["list-panes", "-t", session.name, "-F", "#{pane_pid}"]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        let browser = children.split(separator: " ").first.map(String.init) ?? pid
        let limits = try String(contentsOfFile: "/proc/\(browser)/limits", encoding: .utf8)
        let core = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }.map(String.init) ?? ""
        #expect(core.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).first == "0", "\(core)")
        try session.send("q")
    }

    @Test func escAtThePassphrasePromptOpensNothing() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("demo")
        #expect(try CLI.run(["demo", root, "--encrypt-db"]).status == 0)
        let session = try Session(command: "\(CLI.binaryPath) browse \(root); echo exit=$?; sleep 30")
        try session.waitFor("Database passphrase for")
        try session.send("Escape")
        let screen = try session.waitFor(all: ["exit=1", "no passphrase given"])
        #expect(screen.contains("no passphrase given"))
    }

    @Test func withoutATerminalAnEncryptedFileNamesTheOptionToPass() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("demo")
        #expect(try CLI.run(["demo", root, "--encrypt-db"]).status == 0)
        let result = try CLI.run(["browse", root + "/common.sqlite"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("is encrypted"))
        #expect(result.stderr.contains("--db-key"))
        // With the key, the same file gets as far as needing a terminal.
        let keyed = try CLI.run(["browse", root + "/common.sqlite", "--db-key", "datacenter-demo-db"])
        #expect(keyed.stderr.contains("needs a terminal"), "\(keyed.stderr)")
    }
}
