import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// The mark and the changes since (`m`, `M`, Enter): a snapshot kept in the state folder
/// only, what the app wrote since listed by business, table and cache and shown row by row
/// decrypted, the grid following new writes, and the mark gone when it moves or the
/// browser leaves the root.
@Suite struct ChangesViewTests {
    /// The marks the state folder holds.
    func marks(_ state: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: state.appendingPathComponent("marks").path))?
            .filter { $0.hasPrefix("mark-") } ?? []
    }

    /// A browser on a new demo root with a state folder of its own, marked (`m`).
    func marked(_ folder: TemporaryFolder) throws -> (browser: Browser, root: String, state: URL) {
        let root = try makeDemo(folder)
        let state = URL(fileURLWithPath: folder.file("state"))
        let b = try browser(root, width: 140, height: 30, stateFolder: state)
        b.press(.character("m"))
        b.runCommands()
        return (b, root, state)
    }

    @Test func markThenSeeWhatTheAppWroteDecrypted() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let state = URL(fileURLWithPath: folder.file("state"))
        let b = try browser(root, width: 140, height: 30, stateFolder: state)
        b.press(.character("M"))
        #expect(b.message?.text.contains("no mark yet") == true)
        b.press(.character("m"))
        b.runCommands()
        #expect(b.message?.text.contains("marked at") == true, "\(b.message?.text ?? "")")
        #expect(marks(state).count == 1)
        let before = try FileManager.default.contentsOfDirectory(atPath: root).sorted()

        // The app writes: a KV value, an encrypted one, a DAO crypt column.
        let center = try DataCenter(rootPath: root, crypt: KeyRing([DemoStore.key]))
        try center.commonPreferences.setString("light", forKey: "theme", business: "settings")
        try center.commonPreferences.setString("rotated", forKey: "apiToken", business: "session", encryption: .default)
        let user = try Database(path: try center.storePath(forUser: "alice"))
        let secret = try KeyRing([DemoStore.key]).encrypt(Data("edited by the app".utf8))
        try user.execute("UPDATE messages SET content = ? WHERE id = 2", [.blob(secret)])

        b.press(.character("M"))
        b.runCommands()
        let summary = try #require(b.grid?.source as? ChangesSummarySource)
        #expect(summary.entries.map(\.section) == [.kv(business: "session"), .kv(business: "settings"), .dao(table: "messages")])
        #expect(summary.entries.allSatisfy { $0.changed == 1 && $0.added == 0 && $0.removed == 0 })
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).sorted() == before, "nothing written beside the stores")

        // Enter on the DAO line: the row, the mark's value and now's side by side, decrypted.
        b.press(.down, .down, .enter)
        b.runCommands()
        let rows = try #require(b.grid)
        #expect(rows.source is ChangedRowsSource)
        let columns = rows.source.columns
        let was = try #require(columns.firstIndex(of: "content (mark)")), now = try #require(columns.firstIndex(of: "content (now)"))
        #expect(rows.rows.count == 1)
        #expect(rows.rows[0].cells[now].text == "edited by the app" && rows.rows[0].cells[now].role == .changed)
        #expect(rows.rows[0].cells[was].role == .changed && !rows.rows[0].cells[was].text.isEmpty)
        let sender = try #require(columns.firstIndex(of: "sender (now)"))
        #expect(rows.rows[0].cells[sender].role != .changed, "an unchanged column is shown, not highlighted")
        #expect(!b.screenText.contains("⟨"), "no ciphertext shown as a blob")

        // Back to the list, then the KV line: the encrypted value decrypted on both sides.
        b.press(.backspace)
        b.runCommands()
        #expect(b.grid?.source is ChangesSummarySource && b.grid?.cursor == 2, "back on the line left")
        b.press(.character("g"), .enter)
        b.runCommands()
        #expect(b.screenText.contains("sk_live_51Hdemo-secret-token") && b.screenText.contains("rotated"))
    }

    @Test func theListFollowsNewWritesAndTheMarkGoesWhenItMoves() throws {
        let folder = TemporaryFolder()
        let (b, root, state) = try marked(folder)
        let first = marks(state)
        b.press(.character("M"))
        b.runCommands()
        #expect((b.grid?.source as? ChangesSummarySource)?.entries.isEmpty == true, "nothing changed yet")
        // A write right after the grid was read is seen by the first look.
        let center = try DataCenter(rootPath: root, crypt: KeyRing([DemoStore.key]))
        try center.commonPreferences.setString("new", forKey: "fresh", business: "app")
        b.pollForChanges()
        b.runCommands()
        let entries = try #require((b.grid?.source as? ChangesSummarySource)?.entries)
        #expect(entries.map(\.section) == [.kv(business: "app")] && entries.first?.added == 1)
        // Looked at again with nothing new: nothing read; then a write in another store.
        b.pollForChanges()
        b.runCommands()
        try center.preferences(forUser: "alice").setString("x", forKey: "y", business: "chat")
        b.pollForChanges()
        b.runCommands()
        #expect((b.grid?.source as? ChangesSummarySource)?.entries.count == 2, "\(String(describing: b.grid?.dataVersion))")

        b.press(.character("m"))                        // the mark moves to now
        b.runCommands()
        let second = marks(state)
        #expect(second.count == 1 && second != first, "the old mark removed")
        b.discardMark()
        #expect(marks(state).isEmpty, "nothing left in the state folder")
    }

    /// A write by another process (which closes its connection, and would delete the WAL if
    /// it took itself for the last one) is seen: the mark's reading of the files keeps this
    /// process's locks on them.
    @Test func aWriteByAnotherProcessIsFollowed() throws {
        let folder = TemporaryFolder()
        let (b, root, _) = try marked(folder)
        b.press(.character("M"))
        b.runCommands()
        b.pollForChanges()
        b.runCommands()
        let write = try runProcess("/usr/bin/env", ["sqlite3", root + "/common.sqlite",
            "INSERT INTO datacenter_kv VALUES('app', 'byshell', 'x', 'string', 0, 0)"])
        #expect(write.status == 0, "\(write.output)")
        b.pollForChanges()
        b.runCommands()
        #expect((b.grid?.source as? ChangesSummarySource)?.entries.count == 1)
    }

    @Test func withoutAStateFolderNothingIsMarked() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, stateFolder: nil)
        b.press(.character("m"))
        b.runCommands()
        #expect(b.message?.isError == true && b.message?.text.contains("no state folder") == true)
    }
}
