import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// Each kind of grid drawn as the whole screen, text and colour roles (`assertSnapshot`
/// stores a role letter per cell): a change in what a grid shows, or in how (staged,
/// decrypted, locked, NULL, changed, selected), fails a test. Every role appears in some
/// snapshot.
@Suite struct GridKindSnapshotTests {
    /// A table of colours, one NULL, for the frequency and statistics grids.
    private func colours(_ folder: TemporaryFolder) throws -> (Browser, String) {
        let path = folder.file("colours.db")
        let db = try Database(path: path)
        try db.execute("create table t (id integer primary key, color text, size real)")
        for (index, color) in ["red", "blue", "red", "green", "red", "blue", nil].enumerated() {
            try db.execute("insert into t values (?, ?, ?)", [.integer(Int64(index + 1)), color.map { .text($0) } ?? .null, .real(Double(index) * 1.5)])
        }
        let b = try browser(path, keys: .empty, width: 100, height: 16)
        b.openNodeAndLoad(named: "t")
        b.press(.right)                               // color
        return (b, path)
    }

    @Test func theFrequencyGrid() throws {
        let folder = TemporaryFolder()
        let (b, path) = try colours(folder)
        b.press(.character("F"))
        try assertSnapshot(b.render(), named: "grid-frequency", redact: [path: "<db>"])
    }

    @Test func theStatisticsGrid() throws {
        let folder = TemporaryFolder()
        let (b, path) = try colours(folder)
        b.press(.character("I"))
        b.runCommands()
        try assertSnapshot(b.render(), named: "grid-statistics", redact: [path: "<db>"])
    }

    @Test func aPivotGrid() throws {
        let folder = TemporaryFolder()
        let (b, path) = try colours(folder)
        b.press(.character("W"))
        type("size, count(*)", into: b)
        b.press(.enter)
        b.runCommands()
        try assertSnapshot(b.render(), named: "grid-pivot", redact: [path: "<db>"])
    }

    @Test func aQueryResultGrid() throws {
        let folder = TemporaryFolder()
        let (b, path) = try colours(folder)
        b.press(.character(":"))
        type("SELECT color, count(*) AS n FROM t GROUP BY color ORDER BY n DESC", into: b)
        b.press(.enter)
        b.runCommands()
        try assertSnapshot(b.render(), named: "grid-query-result", redact: [path: "<db>"])
    }

    @Test func aCacheGridAndAKVGridWithoutItsKey() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, width: 100, height: 16)
        b.openNodeAndLoad(named: "recentChats")
        try assertSnapshot(b.render(), named: "grid-cache", redact: [root: "<root>"])
        let locked = try browser(root, keys: .empty, width: 100, height: 16)
        locked.openNodeAndLoad(named: "session")
        try assertSnapshot(locked.render(), named: "grid-kv-locked", redact: [root: "<root>"])
    }

    @Test func aStagedCellInItsGrid() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, width: 100, height: 16)
        b.openNodeAndLoad(named: "notes")
        b.press(.right)                               // the title column
        b.press(.character("e"))
        answer("Hello again", in: b)
        b.press(.down)
        try assertSnapshot(b.render(), named: "grid-staged", redact: [root: "<root>"])
    }

    @Test func theChangesSinceAMark() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, width: 120, height: 16, stateFolder: URL(fileURLWithPath: folder.file("state")))
        b.press(.character("m"))
        b.runCommands()
        let center = try DataCenter(rootPath: root, crypt: KeyRing([DemoStore.key]))
        // Two changes in one business: the row off the cursor shows the changed role.
        try center.commonPreferences.setString("light", forKey: "theme", business: "settings")
        try center.commonPreferences.setString("fr", forKey: "language", business: "settings")
        b.press(.character("M"))
        b.runCommands()
        // The mark's time of day changes from run to run: shown as <time>.
        let text = b.screenText
        let time = try #require(text.range(of: #"\d\d:\d\d:\d\d"#, options: .regularExpression).map { String(text[$0]) })
        let redact = [root: "<root>", time: "<time>"]
        try assertSnapshot(b.render(), named: "grid-changes", redact: redact)
        b.press(.enter)
        b.runCommands()
        try assertSnapshot(b.render(), named: "grid-changed-rows", redact: redact)
    }

    @Test func aDAOFormWithAnArgumentThatIsNotJSON() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let b = try browser(root, width: 120, height: 24)
        b.openNodeAndLoad(named: "messages")
        b.press(.character("d"))
        let index = try #require(b.daoPanel?.config.methods.firstIndex { $0.id == "listMessages" })
        b.press(.down, times: index)
        b.press(.enter)
        type("team", into: b)                         // a bare word: not JSON
        try assertSnapshot(b.render(), named: "grid-dao-form-error", redact: [root: "<root>"])
    }

    /// Every colour role is in some snapshot's roles, so none can change unseen.
    @Test func everyRoleAppearsInSomeSnapshot() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")
        var seen = Set<Character>()
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".txt") {
            let text = try String(contentsOfFile: folder.appendingPathComponent(name).path, encoding: .utf8)
            guard let roles = text.range(of: "\nroles:\n") else { continue }
            seen.formUnion(text[roles.upperBound...].filter { $0 != "\n" })
        }
        for role in StyleRole.allCases {
            #expect(seen.contains(role.snapshotLetter), "no snapshot shows the role \(role.rawValue) ('\(role.snapshotLetter)')")
        }
    }
}
