import Foundation
import Testing
@testable import DatacenterKit
import DatacenterTestSupport

private struct Boom: Error {}

/// `DatabaseMigrator`: ordered steps keyed by `user_version`, one transaction each.
@Suite struct MigratorTests {
    private func makeMigrator(failingAt failing: Int? = nil) throws -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        try migrator.registerMigration(version: 1) { try $0.execute("CREATE TABLE user(id INTEGER PRIMARY KEY, name TEXT)") }
        try migrator.registerMigration(version: 2) { db in
            try db.execute("ALTER TABLE user ADD COLUMN age INTEGER")
            if failing == 2 { throw Boom() }
        }
        try migrator.registerMigration(version: 3) { try $0.execute("CREATE INDEX user_name ON user(name)") }
        return migrator
    }

    private func columns(_ db: Database) throws -> [String] {
        try db.query("SELECT name FROM pragma_table_info('user')").compactMap { $0[0].stringValue }
    }

    @Test func runsOnlyTheMissingStepsInOrder() throws {
        let db = try Database.inMemory()
        let migrator = try makeMigrator()
        try db.execute("CREATE TABLE user(id INTEGER PRIMARY KEY, name TEXT)")
        try db.setUserVersion(1)
        #expect(try migrator.migrate(db) == [2, 3])
        #expect(try db.userVersion() == 3)
        #expect(try columns(db) == ["id", "name", "age"])
        #expect(try migrator.migrate(db) == [])
    }

    @Test func aFreshDatabaseRunsOnCreateThenStandsAtTheNewest() throws {
        let db = try Database.inMemory()
        var migrator = try makeMigrator()
        migrator.onCreate = { try $0.execute("CREATE TABLE user(id INTEGER PRIMARY KEY, name TEXT, age INTEGER, made INTEGER)") }
        #expect(try migrator.migrate(db) == [3])
        #expect(try db.userVersion() == 3)
        #expect(try columns(db) == ["id", "name", "age", "made"])
    }

    @Test func aFailingStepRollsBackAloneAndKeepsTheLastGoodVersion() throws {
        let db = try Database.inMemory()
        let migrator = try makeMigrator(failingAt: 2)
        let error = #expect(throws: MigrationError.self) { try migrator.migrate(db) }
        guard case .stepFailed(let version, _) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(version == 2)
        #expect(try db.userVersion() == 1)
        #expect(try columns(db) == ["id", "name"])
        #expect(!db.isInTransaction)
    }

    @Test func aNewerDatabaseIsRefusedUnchanged() throws {
        let db = try Database.inMemory()
        try db.setUserVersion(7)
        let error = #expect(throws: MigrationError.self) { try makeMigrator().migrate(db) }
        #expect(error == .databaseIsNewer(version: 7, newest: 3, path: ":memory:"))
        #expect(try db.userVersion() == 7)
        #expect(try db.scalar("SELECT count(*) FROM sqlite_master")?.int64Value == 0)
    }

    @Test func stepsMustBeRegisteredInOrder() throws {
        var migrator = DatabaseMigrator()
        try migrator.registerMigration(version: 2) { _ in }
        #expect(throws: MigrationError.versionOutOfOrder(version: 2, after: 2)) { try migrator.registerMigration(version: 2) { _ in } }
    }
}
