import DatacenterDAO
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// The tables a user-dependent DAO creates live in each user's store, and the browser's tree
/// shows them under that user.
@Suite struct UserDependentDAOTreeTests {
    let folder = TemporaryFolder()

    static let xml = """
        <module name="Notes" initializer="createTable" tableName="notes" version="1.0">
          <update id="createTable">create table if not exists ${T} (idx integer primary key, content text)</update>
          <insert id="add" arguments="content">insert into ${T} (content) values(#{content})</insert>
        </module>
        """

    /// The DAO tables listed under the store node labelled `label`.
    func daoTables(under label: String, in catalog: BrowserCatalog) -> [TreeNode.Kind] {
        guard let store = catalog.roots.first(where: { $0.label == label }) else { return [] }
        return store.children.first { $0.label == "DAO tables" }?.children.map(\.kind) ?? []
    }

    @Test func aTableMadeAfterASwitchAppearsUnderTheNewUser() throws {
        let root = folder.file("root")
        let config = folder.file("notes.xml")
        try Self.xml.write(toFile: config, atomically: true, encoding: .utf8)
        let center = try DataCenter(rootPath: root)
        let dao = try center.makeDAO(configPath: config, userDependent: true)
        try center.setCurrentUserId("alice")
        try center.commonPreferences.setString("x", forKey: "k", business: "b")   // a common store to list
        try center.setCurrentUserId("bob")
        try dao.call("add", ["bob's"])

        let catalog = try BrowserCatalog(path: root, keys: KeyRing.empty)
        let bobPath = try center.storePath(forUser: "bob")
        #expect(daoTables(under: "user bob (current)", in: catalog)
                == [.daoTable(store: bobPath, table: "notes", encryptedColumns: [], module: "Notes", configPath: config)])
        #expect(daoTables(under: "common", in: catalog).isEmpty, "nothing in the common store")
        #expect(catalog.roots.allSatisfy { !$0.label.hasPrefix("user alice") }, "alice got no store of DAO tables")

        // The screen: bob's store is open on the tree, with the table under it.
        let screen = Browser(catalog: catalog, width: 100, height: 30)
        let visible = { (label: String) in screen.tree.visibleTree.contains { $0.node.label == label } }
        if !visible("DAO tables") { screen.openTreeNode("user bob (current)") }
        if !visible("notes") { screen.openTreeNode("DAO tables") }
        #expect(visible("notes"))
        let text = screen.render().text
        #expect(text.contains("notes"), "\(text)")
    }

    /// The labels of the tree's top-level nodes (the stores), as shown.
    func storeLabels(_ b: Browser) -> [String] { b.tree.roots.map(\.label) }

    @Test func aSwitchMadeElsewhereMovesTheTreeAlongAtTheNextPoll() throws {
        let root = folder.file("root")
        let config = folder.file("notes.xml")
        try Self.xml.write(toFile: config, atomically: true, encoding: .utf8)
        let app = try DataCenter(rootPath: root)
        let dao = try app.makeDAO(configPath: config, userDependent: true)
        try app.setCurrentUserId("alice")
        try dao.call("add", ["alice's"])

        let b = try browser(root, keys: .empty)
        #expect(storeLabels(b).contains("user alice (current)"))
        b.pollForChanges()
        b.runCommands()
        #expect(!b.screenText.contains("tree read again"), "no switch, nothing read again")

        // The app (or `datacenter users switch`) moves to bob, whose DAO table is new.
        try app.setCurrentUserId("bob")
        try dao.call("add", ["bob's"])
        b.pollForChanges()
        b.runCommands()
        #expect(storeLabels(b).contains("user bob (current)"), "\(storeLabels(b))")
        #expect(storeLabels(b).contains("user alice"))
        #expect(b.screenText.contains("the current user is now bob: tree read again"))
        let bobPath = try app.storePath(forUser: "bob")
        #expect(daoTables(under: "user bob (current)", in: b.catalog)
                == [.daoTable(store: bobPath, table: "notes", encryptedColumns: [], module: "Notes", configPath: config)])
    }

    @Test func rReadsTheRootAgainAndTheTreeKeepsItsPlace() throws {
        let root = folder.file("root")
        let app = try DataCenter(rootPath: root)
        try app.setCurrentUserId("alice")
        try app.userPreferences?.setString("x", forKey: "k", business: "first")
        let b = try browser(root, keys: .empty)
        b.tree.cursor = try #require(b.tree.visibleTree.firstIndex { $0.node.label.hasPrefix("first") })
        let selected = try #require(b.tree.selectedNode?.id)
        try app.userPreferences?.setString("y", forKey: "k", business: "second")
        #expect(!b.screenText.contains("second"), "not read yet")
        b.press(.character("R"))
        b.runCommands()
        #expect(b.screenText.contains("second"), "the new business is listed")
        #expect(b.screenText.contains("tree read again"), "the status line says so")
        #expect(b.tree.selectedNode?.id == selected, "the cursor stayed on its node")
    }
}

