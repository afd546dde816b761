import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// A damaged user store does not stop the browser: its node says damaged, with the reason,
/// and the other stores open.
@Suite struct DamagedStoreTests {
    @Test func aDamagedUserStoreIsLabelledAndTheOthersOpen() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let center = try DataCenter(rootPath: root)
        try center.commonPreferences.setString("x", forKey: "k", business: "common-biz")
        try center.preferences(forUser: "alice").setString("y", forKey: "k", business: "alice-biz")
        _ = try center.preferences(forUser: "bob")
        let bob = try center.storePath(forUser: "bob")
        try Data(String(repeating: "not a database\n", count: 300).utf8).write(to: URL(fileURLWithPath: bob))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: bob + suffix) }

        let catalog = try BrowserCatalog(path: root, keys: .empty)
        #expect(catalog.roots.map(\.label) == ["common", "user alice", "user bob (damaged)"])
        let damaged = try #require(catalog.roots.last)
        #expect(damaged.children.isEmpty)
        #expect(damaged.detail.hasPrefix("not a SQLite database, or damaged"), "\(damaged.detail)")
        #expect(catalog.roots[1].children.first?.children.first?.label == "alice-biz")

        let browser = Browser(catalog: catalog, width: 100, height: 30)
        browser.openTreeNode("user alice")
        #expect(browser.tree.visibleTree.contains { $0.node.label == "KV businesses" })
    }
}
