import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

/// `TablePreparation`: what preparing a table runs, known before it runs.
@Suite struct TablePreparationTests {
    static func xml(_ version: String, extra: String = "", upgrades: String = "") -> String {
        versionedXML(version, extra: extra, upgrades: upgrades)
    }

    static let upgrades = """
        <upgrade toVersion="1.1"><step>alter table ${T} add column a text</step></upgrade>
        <upgrade toVersion="1.2"><step>alter table ${T} add column b text</step><step resumable="true">nonsense</step></upgrade>
        """

    /// A file prepared at version 1.0 with one row, in rollback-journal mode.
    static func fileAtVersion1(_ folder: TemporaryFolder, _ name: String) throws -> String {
        let path = folder.file(name)
        let queue = try DatabaseQueue(path: path, wal: false)
        try DAOObject(config: try DAOConfig(xml: xml("1.0"), file: "v.xml"), queue: queue).call("add", [1])
        return path
    }

    /// Every table's schema and the bookkeeping rows: what preparing may change.
    static func dump(_ path: String) throws -> [String] {
        let db = try Database(path: path, mode: .readOnly)
        var lines = try db.query("SELECT type, name, sql FROM sqlite_master ORDER BY name").map { "\($0.values)" }
        for table in [TableVersions.tableName, TableVersions.metadataTableName] where try Store.tableExists(table, in: db) {
            lines += try db.query("SELECT * FROM \(table) ORDER BY 1").map { "\(table): \($0.values)" }
        }
        return lines
    }

    /// Runs a plan's statements by hand, each step in its transaction, resumable steps in a
    /// savepoint whose failure is ignored: the plan read as a script.
    static func runByHand(_ plan: TablePreparation, on path: String) throws {
        let db = try Database(path: path)
        for step in plan.steps {
            try db.inTransaction {
                for part in step.parts {
                    let sql = part.statement
                    if part.label.hasSuffix("resumable step") {
                        try? db.inSavepoint { try db.execute(sql.sql, StatementArguments(sql.bindings)) }
                    } else {
                        try db.execute(sql.sql, StatementArguments(sql.bindings))
                    }
                }
            }
        }
    }

    static func plan(_ config: DAOConfig, _ path: String) throws -> TablePreparation {
        try TablePreparation.plan(config: config, table: "items", in: try Database(path: path, mode: .readOnly))
    }

    @Test(arguments: [
        ("fresh file", "1.2", ""),
        ("upgrade", "1.2", ""),
        ("reset", "2.0", #"resetOnUpgrade="YES""#),
        ("current", "1.0", ""),
    ])
    func thePlanIsWhatPreparingRuns(_ scenario: String, _ version: String, _ extra: String) throws {
        let folder = TemporaryFolder()
        let byHand: String, byEngine: String
        if scenario == "fresh file" {
            byHand = folder.file("a.sqlite")
            byEngine = folder.file("b.sqlite")
            for path in [byHand, byEngine] { try Database(path: path).execute("CREATE TABLE other(x)") }
        } else {
            byHand = try Self.fileAtVersion1(folder, "a.sqlite")
            byEngine = try Self.fileAtVersion1(folder, "b.sqlite")
        }
        let config = try DAOConfig(xml: Self.xml(version, extra: extra, upgrades: Self.upgrades), file: "v.xml")
        let plan = try Self.plan(config, byHand)
        #expect(try Self.plan(config, byEngine) == plan)
        let dao = DAOObject(config: config, queue: try DatabaseQueue(path: byEngine, wal: false))
        #expect(try dao.preparation() == plan)

        try Self.runByHand(plan, on: byHand)
        try dao.prepareTable()
        #expect(try Self.dump(byHand) == Self.dump(byEngine), "\(scenario)")
        #expect(try dao.preparation().isEmpty)
        // Prepared, nothing is left to do: a new object plans nothing either.
        #expect(try Self.plan(config, byEngine).isEmpty, "\(scenario)")
    }

    @Test func anUpgradeIsPlannedBlockByBlockWithItsVersionRecords() throws {
        let folder = TemporaryFolder()
        let path = try Self.fileAtVersion1(folder, "a.sqlite")
        let config = try DAOConfig(xml: Self.xml("1.2", upgrades: Self.upgrades), file: "v.xml")
        let plan = try Self.plan(config, path)
        #expect(plan.steps.map(\.purpose) == [.upgrade(toVersion: "1.1"), .upgrade(toVersion: "1.2"), .finishUpgrade,
                                                .metadata])
        // Each block records the version it reached in TableVersions and in the metadata.
        #expect(plan.parts.map(\.label) == ["upgrade to 1.1: step", "upgrade to 1.1", "upgrade to 1.1", "upgrade to 1.2: step",
                                           "upgrade to 1.2: resumable step", "upgrade to 1.2", "upgrade to 1.2",
                                           "record version 1.2", "record metadata"])
        #expect(plan.parts[2].statement.sql.hasPrefix("INSERT OR REPLACE INTO datacenter_dao_tables"))
        #expect(plan.parts.map(\.statement.sql).first == "alter table items add column a text")
        #expect(plan.parts[1].statement.preview == "INSERT OR REPLACE INTO TableVersions(tableName, version) VALUES ('items', '1.1')")
        // Planning wrote nothing.
        #expect(try Database(path: path, mode: .readOnly).scalar("SELECT version FROM TableVersions")?.stringValue == "1.0")
    }

    @Test func aFreshFilePlansBookkeepingTheInitializerAndTheMetadata() throws {
        let folder = TemporaryFolder()
        let path = folder.file("new.sqlite")
        try Database(path: path).execute("CREATE TABLE other(x)")
        let plan = try Self.plan(try DAOConfig(xml: Self.xml("1.0"), file: "v.xml"), path)
        #expect(plan.steps.map(\.purpose) == [.bookkeeping, .create, .metadata])
        #expect(plan.steps[1].label == "create table (initializer create)")
        #expect(plan.steps[1].parts.first?.statement.sql == "create table if not exists items (id integer primary key)")
    }

    @Test func aNewerStoredVersionIsRefusedWhenPlanning() throws {
        let folder = TemporaryFolder()
        let path = try Self.fileAtVersion1(folder, "a.sqlite")
        #expect(throws: DAOError.self) { try Self.plan(try DAOConfig(xml: Self.xml("0.9"), file: "v.xml"), path) }
    }

    /// A new DAO object on a table already at its version writes nothing before the call: the
    /// metadata row is written only when it differs (SQLite's file change counter, bytes
    /// 24…27 of the header in rollback-journal mode, would move on any write).
    @Test func aCurrentTableIsNotWrittenByPreparation() throws {
        let folder = TemporaryFolder()
        let path = try Self.fileAtVersion1(folder, "a.sqlite")
        func changeCounter() throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))[24..<28]) }
        let before = try changeCounter()
        let dao = DAOObject(config: try DAOConfig(xml: Self.xml("1.0"), file: "v.xml"), queue: try DatabaseQueue(path: path, wal: false))
        #expect(try dao.call("count").value == 1)
        #expect(try changeCounter() == before)
        // A config at another path is recorded: that is a planned write.
        let moved = try DAOConfig(xml: Self.xml("1.0"), file: "moved/v.xml")
        #expect(try Self.plan(moved, path).steps.map(\.purpose) == [.metadata])
    }
}
