import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

/// What a call runs, seen statement by statement through the connection's SQL trace: the
/// fast paths skip exactly what they say they skip, and nothing else runs.
@Suite struct DAOStatementTraceTests {
    static let xml = """
        <module name="T" initializer="create" tableName="items" version="1.0">
          <update id="create">create table if not exists ${T} (id integer primary key, name text)</update>
          <insert id="add" arguments="name">insert into ${T} (name) values (#{name})</insert>
          <insert id="addAll" arguments="names" foreach="names.n">insert into ${T} (name) values (#{n})</insert>
          <select id="get" arguments="id" result="{}">select id, name from ${T} where id = #{id}</select>
          <select id="tried" result="[{}]">
            <try>select name from no_such_table<except>select name from ${T} order by id</except></try>
          </select>
        </module>
        """

    /// A DAO object on a new file, its table prepared, and the trace of its connection.
    static func traced(_ folder: TemporaryFolder) throws -> (DAOObject, DatabaseQueue, SQLTrace) {
        let queue = try DatabaseQueue(path: folder.file("trace.sqlite"))
        let dao = DAOObject(config: try DAOConfig(xml: xml, file: "t.xml"), queue: queue)
        try dao.prepareTable()
        let trace = queue.write { $0.startTracing() }
        return (dao, queue, trace)
    }

    @Test func theTraceRecordsWhatRunsUntilItStops() throws {
        let folder = TemporaryFolder()
        let db = try Database(path: folder.file("plain.sqlite"))
        let trace = db.startTracing()
        try db.execute("create table t (x)")
        try db.execute("insert into t values (?)", [.integer(1)])
        db.stopTracing()
        try db.execute("insert into t values (2)")
        #expect(trace.statements == ["create table t (x)", "insert into t values (?)"])
    }

    @Test func aWriteRunsItsStatementInOneTransaction() throws {
        let folder = TemporaryFolder()
        let (dao, _, trace) = try Self.traced(folder)
        try dao.call("add", ["ann"])
        #expect(trace.statements == ["BEGIN IMMEDIATE TRANSACTION", "insert into items (name) values (?)", "COMMIT TRANSACTION"])
        trace.clear()
        try dao.call("addAll", [["bob", "cy", "dee"]])
        // The static foreach: one statement, prepared once, run per element, in one transaction.
        #expect(trace.statements == ["BEGIN IMMEDIATE TRANSACTION"] + Array(repeating: "insert into items (name) values (?)", count: 3)
            + ["COMMIT TRANSACTION"])
    }

    @Test func aReadByKeyRunsOneStatementAndNoTransaction() throws {
        let folder = TemporaryFolder()
        let (dao, _, trace) = try Self.traced(folder)
        try dao.call("add", ["ann"])
        trace.clear()
        for _ in 0..<3 { #expect(try dao.call("get", [1]).value.fields?["name"] == "ann") }
        #expect(trace.statements == Array(repeating: "select id, name from items where id = ?", count: 3))
    }

    @Test func aTryRunsItsExceptOnlyAfterItFailsInASavepoint() throws {
        let folder = TemporaryFolder()
        let (dao, _, trace) = try Self.traced(folder)
        try dao.call("add", ["ann"])
        trace.clear()
        #expect(try dao.call("tried").value == [["name": "ann"]])
        let statements = trace.statements
        #expect(statements.filter { $0.hasPrefix("select") } == ["select name from items order by id"],
                "the try part fails to prepare, so only the except part's select runs: \(statements)")
        #expect(statements.contains { $0.hasPrefix("ROLLBACK TO SAVEPOINT") })
    }
}
