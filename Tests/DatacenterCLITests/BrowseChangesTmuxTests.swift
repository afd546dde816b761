import Foundation
import Testing

/// Mark, let another process write, see what changed: `m` in the browser, then `kv set` and
/// `dao call` from outside, then `M` lists both and Enter shows each decrypted. The mark
/// lives in the browser's state folder only, and goes when the browser quits.
extension BrowseTmuxTests {
    @Test func aMarkThenWritesFromAnotherProcessShowDecrypted() throws {
        let (_, root, session) = try Self.demoSession("--key \(Self.demoKey)", width: 140)
        try session.waitFor("KV businesses")
        try session.send("m")
        try session.waitFor("marked at")
        let marks = session.state.file("datacenter/marks")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: marks)) ?? []).count == 1, "the mark is in the state folder")

        // Another process writes: an encrypted KV value, and a DAO row.
        #expect(try CLI.run(["kv", "set", "session", "apiToken", "rotated-by-the-app", "--encrypt", "--root", root,
                             "--key", Self.demoKey]).status == 0)
        let call = try CLI.run(["dao", "call", root + "/examples/messages.xml", "updateFlags", "--args", "[2, true, true]",
                                "--user", "alice", "--root", root, "--key", Self.demoKey])
        #expect(call.status == 0, "\(call.stderr)")

        try session.send("M")
        // The grid's own header: the node's name shows while the diff is still worked out.
        var screen = try session.waitFor("added removed changed")
        #expect(screen.contains("session") && screen.contains("messages"), "\(screen)")
        try session.send("Enter")                        // the first line: session, decrypted on both sides
        screen = try session.waitFor("rotated-by-the-app")
        #expect(screen.contains("sk_live_51Hdemo-secret-token"), "\(screen)")
        try session.send("BSpace")
        try session.waitFor("added removed changed")
        try session.send("j", "Enter")                   // messages: the flags the call set
        screen = try session.waitFor("changes of messages")
        #expect(screen.contains("~ changed"))

        // A write while the list is shown appears by itself.
        try session.send("BSpace")
        try session.waitFor("added removed changed")
        #expect(try CLI.run(["kv", "set", "app", "fresh", "hello", "--root", root]).status == 0)
        // The grid's side of the screen (right of the tree's border) gains the app's line.
        let deadline = Date().addingTimeInterval(10)
        var listed = false
        while !listed, Date() < deadline {
            listed = try session.screen().split(separator: "\n").contains { line in
                let grid = line.split(separator: "│", maxSplits: 1).dropFirst().first ?? ""
                return grid.contains("common.sqlite") && grid.contains(" kv ") && grid.contains(" app ")
            }
            if !listed { Thread.sleep(forTimeInterval: 0.2) }
        }
        #expect(listed, "the list never showed the new write:\n\((try? session.screen()) ?? "")")
        try session.send("q")
        let gone = Date().addingTimeInterval(5)
        var left = ["?"]
        while !left.isEmpty, Date() < gone {
            left = (try? FileManager.default.contentsOfDirectory(atPath: marks)) ?? []
            if !left.isEmpty { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(left.isEmpty, "the mark goes with the browser: \(left)")
    }
}
