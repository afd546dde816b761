import Foundation
import Testing
@testable import DatacenterKit
import DatacenterTestSupport

private struct Address: Codable, Equatable { var city: String; var zip: Int }

private struct User: TableRecord, Equatable {
    static let tableName = "user"
    static let primaryKey = "id"
    static let columns: [RecordColumn] = [
        .init("id", "INTEGER"), .init("name", "TEXT NOT NULL"), .init("age", "INTEGER"),
        .init("score", "REAL"), .init("active", "INTEGER"), .init("seen", "REAL"),
        .init("photo", "BLOB"), .init("address", "TEXT"),
    ]
    var id: Int64?
    var name: String
    var age: Int?
    var score: Double
    var active: Bool
    var seen: Date
    var photo: Data?
    var address: Address?
}

/// Codable records mapped to a table: CRUD, upsert, queries and typed errors.
@Suite struct RecordTests {
    private func sample(_ name: String, age: Int? = 30) -> User {
        User(id: nil, name: name, age: age, score: 1.5, active: true, seen: Date(timeIntervalSince1970: 1_000),
             photo: Data([1, 2]), address: Address(city: "Oslo", zip: 150))
    }

    @Test func insertFindUpdateDeleteRoundTrip() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("s.sqlite"))
        try store.queue.write { db in
            try User.createTable(db)
            let id = try sample("ann").insert(db)
            #expect(id == 1)
            var found = try #require(try User.find(db, key: id))
            var expected = sample("ann"); expected.id = 1
            #expect(found == expected)
            #expect(try db.scalar("SELECT address FROM user")?.stringValue?.contains("Oslo") == true)
            found.age = nil
            try found.update(db)
            #expect(try User.find(db, key: id)?.age == nil)
            #expect(try found.delete(db))
            #expect(try User.find(db, key: id) == nil)
            #expect(throws: RecordError.noSuchRow(table: "user", key: .integer(1))) { try found.update(db) }
        }
    }

    @Test func upsertInsertsThenUpdates() throws {
        let db = try Database.inMemory()
        try User.createTable(db)
        var user = sample("bo"); user.id = 7
        try user.upsert(db)
        user.name = "bob"
        try user.upsert(db)
        #expect(try User.count(db) == 1)
        #expect(try User.find(db, key: 7)?.name == "bob")
    }

    @Test func queriesBindTheirConditionAndOrder() throws {
        let db = try Database.inMemory()
        try User.createTable(db)
        try User.createIndex(db, named: "user_age", on: ["age"])
        for (name, age) in [("c", 40), ("a", 20), ("b", 30)] { try sample(name, age: age).insert(db) }
        let evil = "'; DROP TABLE user; --"
        try sample(evil, age: 50).insert(db)
        let names = try User.fetchAll(db, where: "age >= \(30)", orderBy: "\(identifier: "name")").map(\.name)
        #expect(names == ["'; DROP TABLE user; --", "b", "c"])
        #expect(try User.count(db, where: "name = \(evil)") == 1)
        try User.dropIndex(db, named: "user_age")
        try User.dropTable(db)
        #expect(try db.scalar("SELECT count(*) FROM sqlite_master")?.int64Value == 0)
    }

    @Test func aWrongColumnNamesTheColumnAndTheRecord() throws {
        let db = try Database.inMemory()
        try User.createTable(db)
        try db.execute("INSERT INTO user(name, score, active, seen) VALUES ('x', 'high', 1, 0)")
        #expect(throws: RecordError.typeMismatch(column: "score", record: "User", expected: "a number", found: "text")) {
            try User.fetchAll(db)
        }
        try db.execute("CREATE TABLE thin(id INTEGER PRIMARY KEY)")
        try db.execute("INSERT INTO thin VALUES (1)")
        let row = try #require(try db.queryFirst("SELECT * FROM thin"))
        #expect(throws: RecordError.missingColumn("name", record: "User")) { try RecordDecoder.decode(User.self, from: row) }
    }
}
