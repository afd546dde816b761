import DatacenterDAO
import DatacenterKit
import Foundation
import Testing

/// `datacenter overview` after `datacenter users switch`: a user-dependent DAO's table is
/// listed under the user it was switched to.
@Suite struct UserDependentDAOOverviewTests {
    @Test func overviewListsTheTableUnderTheUserSwitchedTo() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        let config = scratch.file("notes.xml")
        try """
            <module name="Notes" initializer="createTable" tableName="notes" version="1.0">
              <update id="createTable">create table if not exists ${T} (idx integer primary key, content text)</update>
              <insert id="add" arguments="content">insert into ${T} (content) values(#{content})</insert>
            </module>
            """.write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try CLI.run(["users", "switch", "--create", "alice", "--root", root]).status == 0)
        #expect(try CLI.run(["users", "switch", "--create", "bob", "--root", root]).status == 0)
        // The app opens the root the tool switched, and writes through a user-dependent DAO.
        let center = try DataCenter(rootPath: root)
        let dao = try center.makeDAO(configPath: config, userDependent: true)
        try dao.call("add", ["bob's"])
        try dao.call("add", ["bob's too"])

        let overview = try CLI.run(["overview", "--root", root])
        #expect(overview.status == 0, "\(overview.stderr)")
        // The lines of each store, by the store's heading.
        var sections: [String: [String]] = [:]
        var heading = ""
        for line in overview.stdout.split(separator: "\n").map(String.init) {
            if !line.hasPrefix(" "), line.contains(": /") { heading = String(line.prefix { $0 != ":" }) }
            else if !heading.isEmpty { sections[heading, default: []].append(line) }
        }
        #expect(sections["user bob (current)"]?.contains("  table notes: 2 row(s)") == true, "\(overview.stdout)")
        #expect(sections["common"]?.contains { $0.contains("notes") } != true, "\(overview.stdout)")
    }

    /// A DAO database the app keeps in a file of its own under the root (`Documents/x.db`)
    /// is listed by `overview` and the browser's tree, as the stores are.
    @Test func aSandboxRelativeDAODatabaseIsListedWithTheStores() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        let config = scratch.file("notes.xml")
        try """
            <module name="Notes" initializer="createTable" tableName="notes" version="1.0">
              <update id="createTable">create table if not exists ${T} (idx integer primary key, content text)</update>
              <insert id="add" arguments="content">insert into ${T} (content) values(#{content})</insert>
            </module>
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let center = try DataCenter(rootPath: root)
        try center.makeDAO(configPath: config, databasePath: "Documents/x.db").call("add", ["kept apart"])
        let overview = try CLI.run(["overview", "--root", root, "--json"])
        #expect(overview.status == 0, "\(overview.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(overview.stdout.utf8)) as? [String: Any]
        let stores = object?["stores"] as? [[String: Any]] ?? []
        let dao = stores.first { $0["name"] as? String == "DAO database Documents/x.db" }
        #expect(dao?["kind"] as? String == "dao database", "\(overview.stdout)")
        #expect((dao?["tables"] as? [[String: Any]])?.contains { $0["name"] as? String == "notes" && $0["rows"] as? Int == 1 } == true)
    }
}

