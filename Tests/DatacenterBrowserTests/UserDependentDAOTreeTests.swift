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
}
