import DatacenterKit
import DatacenterTestSupport
import Foundation
import Testing
@testable import DatacenterDAO

/// DAO objects on encrypted databases: made on a store of an encrypted root, or opened on a
/// file with a database key, every connection they use (parallel selects too) has the key.
@Suite struct EncryptedStoreDAOTests {
    static let xml = """
        <module name="p" initializer="create" tableName="t">
          <update id="create">create table if not exists ${T} (id integer, note text)</update>
          <insert id="add" arguments="id, note">insert into ${T} values (#{id}, #{note})</insert>
          <select id="count" result="int" parallel="true">select count(*) from ${T}</select>
          <select id="note" arguments="id" result="string" parallel="true">select note from ${T} where id = #{id}</select>
        </module>
        """

    @Test func aDAOOnAStoreOfAnEncryptedRootUsesTheStoresKey() throws {
        let folder = TemporaryFolder()
        let keys = try DatabaseKeyList(sqlcipherKeys: ["dao root passphrase"])
        let root = folder.file("root")
        do {
            let center = try DataCenter(rootPath: root, databaseKeys: keys)
            let dao = DAOObject(config: try DAOConfig(xml: Self.xml, file: "p.xml"), store: try center.commonStore())
            try dao.call("add", [1, "MARKER-dao-note"])
            #expect(try dao.call("count").value == 1, "a parallel select, from a reader of the pool")
            #expect(try dao.call("note", [1]).value == "MARKER-dao-note")
        }
        let common = fileBytes(root + "/common.sqlite") + fileBytes(root + "/common.sqlite-wal")
        #expect(!common.isEmpty)
        #expect(common.range(of: Data("MARKER-dao-note".utf8)) == nil)
        let center = try DataCenter(rootPath: root, databaseKeys: keys)
        let dao = try center.commonStore().makeDAO(configPath: try Self.writeConfig(folder))
        #expect(try dao.call("note", [1]).value == "MARKER-dao-note")
    }

    @Test func aDAOOnAFileTakesADatabaseKey() throws {
        let folder = TemporaryFolder()
        let path = folder.file("p.sqlite")
        let key = try DatabaseKey.passphrase("dao file passphrase")
        do {
            let dao = try DAOObject(config: try DAOConfig(xml: Self.xml, file: "p.xml"), path: path, databaseKey: key)
            try dao.call("add", [7, "MARKER-file-note"])
            #expect(try dao.call("count").value == 1)
        }
        #expect(try DatabaseFileKind.of(path: path) == .encryptedOrNotADatabase)
        #expect(fileBytes(path).range(of: Data("MARKER-file-note".utf8)) == nil)
        let again = try DAOObject(config: try DAOConfig(xml: Self.xml, file: "p.xml"), path: path, databaseKey: key)
        #expect(try again.call("note", [7]).value == "MARKER-file-note")
        #expect(throws: DatabaseError.self) { try DAOObject(config: try DAOConfig(xml: Self.xml, file: "p.xml"), path: path) }
    }

    static func writeConfig(_ folder: TemporaryFolder) throws -> String {
        let path = folder.file("p.xml")
        try Data(xml.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func fileBytes(_ path: String) -> Data { FileManager.default.contents(atPath: path) ?? Data() }
}
