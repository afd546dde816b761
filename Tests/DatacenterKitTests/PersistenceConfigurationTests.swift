import Foundation
import Testing
@testable import DatacenterKit

/// CTPersistance's configuration targets: looked up by its naming rule, with the target's
/// path, migrator and keys (oldest first, as CTPersistance takes them), and the default
/// folder for databases no target places.
@Suite struct PersistenceConfigurationTests {
    @Test func theTargetIsTheNameUpToTheFirstUnderscoreOrDot() {
        for name in ["aaa.sqlite", "aaa_bbb.sqlite", "aaa_bbb", "aaa.abc.sqlite", "aaa", "folder/aaa_x.db"] {
            #expect(PersistenceConfigurations.targetName(forDatabase: name) == "aaa", "\(name)")
        }
    }

    struct Messages: PersistenceConfiguration {
        let folder: String
        let keys: [String]
        func filePath(forDatabase databaseName: String) -> String? { folder + "/deep/" + databaseName }
        func migrator(forDatabase databaseName: String) -> DatabaseMigrator? {
            var migrator = DatabaseMigrator()
            try? migrator.registerMigration(version: 1) { db in try db.execute("CREATE TABLE message (id INTEGER PRIMARY KEY, text TEXT)") }
            try? migrator.registerMigration(version: 2) { db in try db.execute("ALTER TABLE message ADD COLUMN read INTEGER") }
            return migrator
        }
        func secretKeys(forDatabase databaseName: String) -> [String] { keys }
    }

    @Test func aTargetPlacesMigratesAndKeysItsDatabases() throws {
        let folder = TemporaryFolder()
        let registry = PersistenceConfigurations(defaultFolder: folder.file("Library"))
        registry.register(Messages(folder: folder.path, keys: ["oldkey"]), forTarget: "messages")
        let path = folder.file("deep/messages_v1.sqlite")
        do {
            let queue = try registry.open("messages_v1.sqlite")
            #expect(queue.path == path)
            try queue.write { db in try db.execute("INSERT INTO message (text, read) VALUES ('hi', 0)") }
            #expect(try queue.read { try $0.userVersion() } == 2)
        }
        #expect(throws: DatabaseError.self) { try Database(path: path, mode: .readOnly).scalar("SELECT count(*) FROM message") }
        // A new key appended (newest last): the file written under the old one still opens.
        registry.register(Messages(folder: folder.path, keys: ["oldkey", "newkey"]), forTarget: "messages")
        #expect(try registry.databaseKeys(forDatabase: "messages_v1.sqlite").keys.count >= 2)
        let again = try registry.open("messages_v1.sqlite")
        #expect(try again.read { try $0.scalar("SELECT text FROM message") } == .text("hi"))
        // New files get the newest key: oldkey alone does not open them.
        _ = try registry.open("messages_v2.sqlite")
        registry.register(Messages(folder: folder.path, keys: ["oldkey"]), forTarget: "messages")
        #expect(throws: DatabaseError.self) { try registry.open("messages_v2.sqlite") }
    }

    @Test func aDatabaseNoTargetPlacesIsPlainInTheDefaultFolderMadeIfMissing() throws {
        let folder = TemporaryFolder()
        let library = folder.file("Library")
        let registry = PersistenceConfigurations(defaultFolder: library)
        #expect(!FileManager.default.fileExists(atPath: library))
        let queue = try registry.open("cache_2.sqlite")
        #expect(queue.path == library + "/cache_2.sqlite")
        try queue.write { db in try db.execute("CREATE TABLE t (x)") }
        #expect(try Database(path: library + "/cache_2.sqlite", mode: .readOnly).scalar("SELECT count(*) FROM t") == .integer(0))
        #expect(registry.configuration(forDatabase: "cache_2.sqlite") == nil)
    }
}
