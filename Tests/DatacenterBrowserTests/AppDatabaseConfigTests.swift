import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// A database pulled off a device has none of this engine's metadata: `browse app.db
/// --config X.xml` attaches each config to the table its `tableName` names, so the table gets
/// its DAO panel and its crypt columns decrypted.
@Suite struct AppDatabaseConfigTests {
    /// A plain SQLite file holding the example's `messages` table as an app wrote it (content
    /// encrypted with the demo key), and the example configs beside it.
    static func appDatabase(_ folder: TemporaryFolder) throws -> (database: String, configs: String) {
        let configs = folder.file("configs")
        try DAODemo.writeExamples(to: configs)
        let path = folder.file("app.db")
        let db = try Database(path: path)
        try db.execute("""
            create table messages (id integer primary key autoincrement, conversation text not null, sender text not null,
              time integer not null, content blob, read integer not null default 0, starred integer not null default 0)
            """)
        let keys = KeyRing([DemoStore.key])
        for (index, text) in ["Lunch tomorrow?", "See you at noon"].enumerated() {
            try db.execute("insert into messages (conversation, sender, time, content) values ('bob', 'bob', ?, ?)",
                           [.integer(1_767_225_600 + Int64(index)), .blob(try keys.encrypt(Data(text.utf8)))])
        }
        db.close()
        return (path, configs)
    }

    @Test func aConfigAttachesToTheTableItNamesAndItsMethodsRun() throws {
        let folder = TemporaryFolder()
        let (database, configs) = try Self.appDatabase(folder)
        let loaded = BrowserCatalog.loadConfigFiles(at: configs)
        #expect(loaded.errors.isEmpty)
        let catalog = try BrowserCatalog(path: database, keys: KeyRing([DemoStore.key]), configFiles: loaded.files)
        let b = Browser(catalog: catalog, width: 120, height: 30)
        #expect(b.screenText.contains("DAO tables"))
        let dao = try #require(catalog.roots.first?.children.first { $0.label == "DAO tables" })
        #expect(dao.children.map(\.detail) == ["Messages (--config) [crypt: content]"])

        // The grid decrypts the crypt column.
        b.openNodeAndLoad(named: "messages")
        #expect(b.screenText.contains("Lunch tomorrow?"))
        #expect(!b.screenText.contains("[locked"))

        // d opens the panel; a select runs and shows the row decrypted.
        b.press(.character("d"))
        #expect(b.focus == .dao)
        let index = try #require(b.daoPanel?.config.methods.firstIndex { $0.id == "getMessage" })
        b.press(.down, times: index)
        b.press(.enter)
        type("2", into: b)
        b.press(.enter)
        let lines = try #require(b.daoPanel?.resultLines).joined(separator: "\n")
        #expect(lines.contains("See you at noon"), "\(lines)")
        // Reading wrote nothing: the file has no table of this engine.
        let tables = try Database(path: database, mode: .readOnly).query("select name from sqlite_master where type = 'table'")
            .compactMap { $0[0].stringValue }
        #expect(tables.filter { !$0.hasPrefix("sqlite_") } == ["messages"])
    }

    @Test func withoutTheConfigTheTableIsAPlainTable() throws {
        let folder = TemporaryFolder()
        let (database, _) = try Self.appDatabase(folder)
        let b = Browser(catalog: try BrowserCatalog(path: database, keys: KeyRing([DemoStore.key])), width: 120, height: 30)
        #expect(!b.screenText.contains("DAO tables"))
        b.openNodeAndLoad(named: "messages")
        b.press(.character("d"))
        #expect(b.focus != .dao)
        #expect(b.screenText.contains("d opens the methods of a DAO table"))
    }

    @Test func twoConfigsNamingOneTableAreBothListed() throws {
        let folder = TemporaryFolder()
        let (database, configs) = try Self.appDatabase(folder)
        let second = """
            <module name="MessagesAudit" tableName="messages" version="1.0">
              <select id="count" result="int">select count(*) from ${T}</select>
            </module>
            """
        try second.write(toFile: configs + "/zz-audit.xml", atomically: true, encoding: .utf8)
        let catalog = try BrowserCatalog(path: database, keys: KeyRing([DemoStore.key]),
                                         configFiles: BrowserCatalog.loadConfigFiles(at: configs).files)
        let dao = try #require(catalog.roots.first?.children.first { $0.label == "DAO tables" })
        #expect(dao.children.map(\.label) == ["messages", "messages"])
        #expect(dao.children.map(\.detail).map { $0.components(separatedBy: " ").first } == ["Messages", "MessagesAudit"])
    }
}

/// A DAO database kept in a file of its own under the root (`daoWithPath:databasePath:`)
/// is in the tree with the stores, its tables browsable.
@Suite struct DAODatabaseTreeTests {
    @Test func theTreeListsASandboxRelativeDAODatabase() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let config = folder.file("notes.xml")
        try """
            <module name="Notes" initializer="createTable" tableName="notes" version="1.0">
              <update id="createTable">create table if not exists ${T} (idx integer primary key, content text)</update>
              <insert id="add" arguments="content">insert into ${T} (content) values(#{content})</insert>
            </module>
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let center = try DataCenter(rootPath: root)
        try center.makeDAO(configPath: config, databasePath: "Library/Movie/x.db").call("add", ["kept apart"])
        let b = try browser(root, keys: .empty)
        #expect(b.screenText.contains("DAO database Library/Movie/x.db"), "\(b.screenText)")
        b.openNodeAndLoad(named: "notes")
        #expect(b.screenText.contains("kept apart"))
    }
}
