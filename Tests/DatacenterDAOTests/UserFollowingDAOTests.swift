import DatacenterKit
import DatacenterTestSupport
import Foundation
import Testing
@testable import DatacenterDAO

/// `DataCenter.makeDAO(configPath:userDependent:)`, `CustomStorage.makeDAO` and
/// `DAOObject.prepareParallelConnection(autoclose:)`.
@Suite struct UserFollowingDAOTests {
    let folder = TemporaryFolder()

    static let xml = """
        <module name="Notes" initializer="createTable" tableName="notes" version="1.0">
          <update id="createTable">create table if not exists ${T} (idx integer primary key, content text)</update>
          <insert id="add" arguments="content">insert into ${T} (content) values(#{content})</insert>
          <select id="all" result="[string]">select content from ${T} order by idx</select>
          <select id="allInParallel" result="[string]" parallel="true">select content from ${T} order by idx</select>
        </module>
        """

    func configPath() throws -> String {
        let path = folder.file("notes.xml")
        try Self.xml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The contents of the `notes` table of `store` (empty when it has none).
    func notes(in store: Store) throws -> [String] {
        try store.queue.read { db in
            guard try Store.tableExists("notes", in: db) else { return [] }
            return try db.query("SELECT content FROM notes ORDER BY idx").compactMap { $0[0].stringValue }
        }
    }

    /// Expects `body` to fail with `DAOError.noCurrentUser` naming the module and `operation`.
    func expectNoCurrentUser(_ operation: String, sourceLocation: Testing.SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("\(operation) ran with no current user", sourceLocation: sourceLocation)
        } catch DAOError.noCurrentUser(let module, let asked) {
            #expect(module == "Notes" && asked == operation, sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(operation): \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func aUserDependentDAOFollowsTheCurrentUserBetweenTwoCalls() throws {
        let center = try DataCenter(rootPath: folder.file("root"))
        let dao = try center.makeDAO(configPath: try configPath(), userDependent: true)
        try center.setCurrentUserId("alice")
        try dao.call("add", ["alice's"])
        try center.setCurrentUserId("bob")
        try dao.call("add", ["bob's"])
        #expect(dao.lastInsertRowID == 1, "bob's table starts at row 1")
        #expect(try dao.call("all").value == .array(["bob's"]))
        #expect(try notes(in: try center.store(forUser: "alice")) == ["alice's"])
        #expect(try notes(in: try center.store(forUser: "bob")) == ["bob's"])
        #expect(try notes(in: try center.commonStore()).isEmpty)
        try center.setCurrentUserId("alice")
        #expect(try dao.fetch("all", as: String.self) == ["alice's"])
    }

    @Test func afterAResetTheDAOWritesToTheNewStoreNotTheDeletedOne() throws {
        let center = try DataCenter(rootPath: folder.file("root"))
        let dao = try center.makeDAO(configPath: try configPath(), userDependent: true)
        try center.setCurrentUserId("alice")
        try dao.call("add", ["before"])
        try center.reset()
        try center.setCurrentUserId("alice")
        try dao.call("add", ["after"])
        // What the DAO wrote is in alice's store as it is now, not in the file reset deleted.
        #expect(try notes(in: try center.store(forUser: "alice")) == ["after"])
        #expect(try dao.call("all").value == .array(["after"]))
    }

    @Test func withNoCurrentUserEveryCallFailsAndWritesNothing() throws {
        let center = try DataCenter(rootPath: folder.file("root"))
        let dao = try center.makeDAO(configPath: try configPath(), userDependent: true)
        expectNoCurrentUser("add") { try dao.call("add", ["lost"]) }
        expectNoCurrentUser("deleteTable") { try dao.deleteTable() }
        try center.setCurrentUserId("alice")
        try dao.call("add", ["kept"])
        try center.setCurrentUserId(nil)
        expectNoCurrentUser("all") { try dao.call("all") }
        #expect(try notes(in: try center.commonStore()).isEmpty, "nothing went to the common store")
        #expect(try notes(in: try center.store(forUser: "alice")) == ["kept"])
        #expect(center.users() == ["alice"], "no other user store was made")
    }

    /// With only the app key given to the data center, a `<crypt>` column is encrypted with
    /// the default key derived from it, and reads back.
    @Test func anAppKeyIsTheDefaultKeyOfCryptColumns() throws {
        let path = folder.file("secret.xml")
        try """
            <module name="Secrets" initializer="createTable" tableName="secrets" version="1.0">
              <crypt class="Secret" property="content"/>
              <update id="createTable">create table if not exists ${T} (id integer primary key, content text)</update>
              <insert id="add" arguments="model">insert into ${T} (content) values(#{model.content})</insert>
              <select id="get" arguments="id" result="Secret">select * from ${T} where id = #{id}</select>
            </module>
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let center = try DataCenter(rootPath: folder.file("root"), appKey: "com.example.app-key")
        let dao = try center.makeDAO(configPath: path, userDependent: false)
        try dao.call("add", [.model("Secret", ["content": "shh"])])
        let stored = try center.commonStore().queue.read { db in try db.scalar("SELECT content FROM secrets") }
        guard case .blob? = stored else { Issue.record("stored as \(String(describing: stored))"); return }
        #expect(try dao.call("get", [1]).value.fields?["content"] == "shh")
    }

    /// `daoWithPath:databasePath:` with a sandbox-relative path: resolved against the root,
    /// folders made, the file recorded so the root's walkers list it; several DAOs share it.
    @Test func aSandboxRelativeDAODatabaseLivesUnderTheRootAndIsListed() throws {
        let root = folder.file("root")
        let key = EncryptionKey.random()
        let center = try DataCenter(rootPath: root, crypt: KeyRing([key]))
        let dao = try center.makeDAO(configPath: try configPath(), databasePath: "Documents/notes/x.db")
        try dao.call("add", ["first"])
        let file = root + "/Documents/notes/x.db"
        #expect(FileManager.default.fileExists(atPath: file))
        let other = try center.makeDAO(configPath: try configPath(), databasePath: "./Documents/notes/../notes/x.db")
        #expect(try other.call("all").value == ["first"], "the same file")
        #expect(center.databaseFilePaths().contains(file))
        let reopened = try DataCenter(rootPath: root, crypt: KeyRing([key]), readOnly: true)
        #expect(reopened.daoDatabasePaths == [file])
        #expect(DataCenter.rekeyTargets(rootPath: root).contains { $0.path == file && $0.name == "DAO database Documents/notes/x.db" })
        #expect(throws: StorageError.self) { try center.makeDAO(configPath: try configPath(), databasePath: "../outside.db") }
        let absolute = folder.file("elsewhere/y.db")
        _ = try center.makeDAO(configPath: try configPath(), databasePath: absolute)
        #expect(FileManager.default.fileExists(atPath: folder.file("elsewhere")))
        #expect(center.daoDatabasePaths == [file], "an absolute path is the app's own, not recorded")
    }

    @Test func aCommonDAOStaysOnTheCommonStore() throws {
        let center = try DataCenter(rootPath: folder.file("root"))
        let dao = try center.makeDAO(configPath: try configPath(), userDependent: false)
        try dao.call("add", ["before"])
        try center.setCurrentUserId("bob")
        try dao.call("add", ["after"])
        #expect(try notes(in: try center.commonStore()) == ["before", "after"])
        #expect(try notes(in: try center.store(forUser: "bob")).isEmpty)
    }

    @Test func settingsMadeOnTheHandleReachEveryUsersObject() throws {
        let center = try DataCenter(rootPath: folder.file("root"))
        let dao = try center.makeDAO(configPath: try configPath(), userDependent: true)
        try center.setCurrentUserId("alice")
        try dao.call("add", ["default table"])
        dao.tableName = "notes_2026"
        try dao.call("add", ["alice 2026"])
        try center.setCurrentUserId("bob")
        try dao.call("add", ["bob 2026"])
        let tables = try center.store(forUser: "bob").queue.read { db in
            try db.query("SELECT name FROM sqlite_master WHERE name LIKE 'notes%' ORDER BY name").compactMap { $0[0].stringValue }
        }
        #expect(tables == ["notes_2026"], "bob's object got the table name set before it was made")
    }

    @Test func aCustomStorageDAOFollowsItsUser() throws {
        let center = try DataCenter(rootPath: folder.file("root"))
        let storage = center.customStorage(atPath: folder.file("custom"))
        let dao = try storage.makeDAO(configPath: try configPath(), userDependent: true)
        expectNoCurrentUser("add") { try dao.call("add", ["nobody"]) }
        try center.setCurrentUserId("ann")
        try dao.call("add", ["ann's"])
        try center.setCurrentUserId("ben")
        try dao.call("add", ["ben's"])
        #expect(storage.users() == ["ann", "ben"])
        try center.setCurrentUserId("ann")
        #expect(try dao.fetch("all", as: String.self) == ["ann's"])
        #expect(try notes(in: try center.store(forUser: "ann")).isEmpty, "the data center's own store is untouched")
    }

    @Test func callsRacingUserSwitchesEachLandWhollyInOneUsersStore() throws {
        let center = try DataCenter(rootPath: folder.file("root"))
        let dao = try center.makeDAO(configPath: try configPath(), userDependent: true)
        try center.setCurrentUserId("u0")
        let errors = LockedState<[String]>([])
        let group = DispatchGroup()
        for thread in 0..<3 {
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                for i in 0..<100 {
                    do { try dao.call("add", [.string("t\(thread)-\(i)")]) } catch { errors.withLock { $0.append("\(error)") } }
                }
            }
        }
        for i in 1...20 { try center.setCurrentUserId("u\(i % 3)") }
        #expect(group.wait(timeout: .now() + 60) == .success)
        let failures = errors.withLock { $0 }
        #expect(failures.isEmpty, "\(failures)")
        let total = try (0..<3).map { try notes(in: try center.store(forUser: "u\($0)")).count }.reduce(0, +)
        #expect(total == 300, "every call landed in exactly one user's store")
    }

    // MARK: prepareParallelConnection

    @Test func preparedParallelConnectionsOpenThenCloseWhenIdle() throws {
        let store = try Store(path: folder.file("p.sqlite"))
        let dao = DAOObject(config: try DAOConfig(xml: Self.xml, file: "notes.xml"), store: store)
        try dao.call("add", ["x"])
        #expect(dao.parallelConnectionCount == 0)
        for expected in 1...3 { #expect(try dao.prepareParallelConnection(autoclose: 0.3) == expected) }
        #expect(dao.parallelConnectionCount == 3, "each call adds one stand-by connection")
        #expect(try dao.call("allInParallel").value == .array(["x"]))
        #expect(dao.parallelConnectionCount == 3, "a parallel select used a prepared connection")
        // Closed by the pool itself, with no read to trigger it: poll with a generous limit.
        let deadline = Date().addingTimeInterval(30)
        while dao.parallelConnectionCount > 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(dao.parallelConnectionCount == 0, "idle connections closed after autoclose")
        #expect(try dao.call("allInParallel").value == .array(["x"]), "a reader opens again on demand")
    }

    @Test func prepareParallelConnectionStopsAtThePoolsLimit() throws {
        let store = try Store(path: folder.file("p.sqlite"))
        let dao = DAOObject(config: try DAOConfig(xml: Self.xml, file: "notes.xml"), store: store)
        for _ in 0..<(store.pool.maximumReaderCount + 2) { try dao.prepareParallelConnection() }
        #expect(dao.parallelConnectionCount == store.pool.maximumReaderCount)
        #expect(store.pool.readerIdleTimeout == 30, "autoclose 0 keeps the pool's own timeout")
    }
}
