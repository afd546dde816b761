import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

/// The fast paths of `DAOObject.call`: a static method-level foreach bound element by element,
/// and a sole read-only statement run without a transaction. They must behave as the general path.
private let fastXML = """
    <module name="Fast" initializer="create" tableName="items" version="1.0">
      <update id="create">create table if not exists ${T} (id integer primary key, name text not null unique, score real)</update>
      <insert id="addAll" arguments="rows" foreach="rows.r">insert into ${T} (name, score) values (#{r.name}, #{r.score})</insert>
      <select id="scores" arguments="names" foreach="names.n" result="double">select score from ${T} where name = #{n}</select>
      <select id="get" arguments="id" result="{}">select id, name, score from ${T} where id = #{id}</select>
      <select id="count" result="int">select count(*) from ${T}</select>
    </module>
    """

@Suite struct DAOFastPathTests {
    private func makeDAO() throws -> DAOObject {
        let config = try DAOConfig(xml: fastXML, file: "fast.xml")
        return DAOObject(config: config, queue: DatabaseQueue(database: try Database.inMemory()))
    }

    @Test func aFailingForEachElementRollsBackEveryElement() throws {
        let dao = try makeDAO()
        try dao.call("addAll", [.array([["name": "seed", "score": 1]])])
        let rows: DAOValue = .array([["name": "x", "score": 1], ["name": "y", "score": 2], ["name": "seed", "score": 3], ["name": "z"]])
        #expect(throws: DAOError.self) { try dao.call("addAll", [rows]) }
        #expect(try dao.call("count").value == 1)
        #expect(try dao.call("get", [2]).value == .nil)
    }

    @Test func forEachStatementsAreTheRenderedOnes() throws {
        let dao = try makeDAO()
        let rows: DAOValue = .array([["name": "a", "score": 1.5], ["name": "b"]])
        let result = try dao.call("addAll", [rows])
        #expect(result.changes == 2)
        #expect(result.value == .array([]))
        let rendered = try dao.config.render("addAll", arguments: [rows])
        #expect(result.statements == rendered.statements)
        #expect(result.statements.map(\.bindings) == [[.text("a"), .real(1.5)], [.text("b"), .null]])
        #expect(try dao.call("addAll", [.array([])]).statements.isEmpty)
    }

    @Test func forEachSelectMapsOneResultPerElement() throws {
        let dao = try makeDAO()
        try dao.call("addAll", [.array([["name": "a", "score": 1.5], ["name": "b", "score": 2]])])
        #expect(try dao.call("scores", [.array(["b", "missing", "a"])]).value == .array([2.0, .nil, 1.5]))
    }

    @Test func aSoleSelectRunsWithoutATransactionAndInsideOne() throws {
        let dao = try makeDAO()
        try dao.call("addAll", [.array([["name": "a", "score": 1]])])
        let row = try dao.call("get", [1])
        #expect(row.value == ["id": 1, "name": "a", "score": 1.0])
        #expect(row.statements.count == 1)
        try dao.beginTransaction() // fails if the select left a transaction open
        try dao.call("addAll", [.array([["name": "b", "score": 2]])])
        #expect(try dao.call("get", [2]).value.fields?["name"] == "b") // sees the open transaction
        try dao.rollback()
        #expect(try dao.call("get", [2]).value == .nil)
    }

    /// One scalar or dictionary read straight from the statement equals the general mapping.
    @Test func aSingleRowResultReadFromTheStatementMatchesTheGeneralMapping() throws {
        let xml = """
            <module name="Direct" tableName="t">
              <update id="create">create table ${T} (a integer, b text)</update>
              <insert id="add" arguments="a, b">insert into ${T} (a, b) values (#{a}, #{b})</insert>
              <select id="dup" result="{}">select a as x, b as x from ${T} order by a</select>
              <select id="first" result="string">select b from ${T} order by a</select>
              <select id="none" result="{}">select a from ${T} where a &lt; 0</select>
              <select id="noneInt" result="int">select a from ${T} where a &lt; 0</select>
            </module>
            """
        let config = try DAOConfig(xml: xml, file: "direct.xml")
        let dao = DAOObject(config: config, queue: DatabaseQueue(database: try Database.inMemory()))
        try dao.call("create")
        try dao.call("add", [2, "two"])
        try dao.call("add", [1, "one"])
        #expect(try dao.call("dup").value == ["x": "one"]) // a later duplicate column wins
        #expect(try dao.call("first").value == "one")
        #expect(try dao.call("none").value == .nil)
        #expect(try dao.call("noneInt").value == .nil)
    }

    @Test func bindValuesChecksTheParameterCount() throws {
        let db = try Database.inMemory()
        let statement = try db.cachedStatement("select ? + ?")
        #expect(throws: DatabaseError.self) { try statement.bind(values: [.integer(1)]) }
        var sum: DatabaseValue = .null
        try statement.forEachRow(values: [.integer(1), .integer(2)]) { sum = $0.value(at: 0); return false }
        #expect(sum == .integer(3))
    }

    /// A `{}` row is built from a template kept with the statement: a schema change that
    /// gives `select *` other columns must show in the next row, and a dictionary result of a
    /// renamed column must not keep the old name.
    @Test func aRowTemplateFollowsASchemaChange() throws {
        let xml = """
            <module name="Alter" tableName="t">
              <update id="create">create table ${T} (a integer, b text)</update>
              <insert id="add" arguments="a, b">insert into ${T} (a, b) values (#{a}, #{b})</insert>
              <select id="all" result="{}">select * from ${T} order by a</select>
              <update id="addColumn">alter table ${T} add column c text default 'new'</update>
              <update id="rename">alter table ${T} rename column b to bee</update>
            </module>
            """
        let dao = DAOObject(config: try DAOConfig(xml: xml, file: "alter.xml"), queue: DatabaseQueue(database: try Database.inMemory()))
        try dao.call("create")
        try dao.call("add", [1, "one"])
        #expect(try dao.call("all").value == ["a": 1, "b": "one"])
        try dao.call("addColumn")
        #expect(try dao.call("all").value == ["a": 1, "b": "one", "c": "new"])
        try dao.call("rename")
        #expect(try dao.call("all").value == ["a": 1, "bee": "one", "c": "new"])
    }

    /// A select method whose one static statement writes is not read as a sole read: it runs
    /// in a transaction and reports its changes.
    @Test func aSelectThatWritesRunsAsAWrite() throws {
        let xml = """
            <module name="W" tableName="t">
              <update id="create">create table ${T} (a integer primary key, b text)</update>
              <select id="addReturning" arguments="b" result="{}">insert into ${T} (b) values (#{b}) returning a, b</select>
              <select id="count" result="int">select count(*) from ${T}</select>
            </module>
            """
        let dao = DAOObject(config: try DAOConfig(xml: xml, file: "w.xml"), queue: DatabaseQueue(database: try Database.inMemory()))
        try dao.call("create")
        let added = try dao.call("addReturning", ["x"])
        #expect(added.value == ["a": 1, "b": "x"])
        #expect(added.changes == 1)
        #expect(dao.lastChanges == 1)
        #expect(try dao.call("count").value == 1)
        #expect(dao.lastChanges == 0) // a read changes nothing
        #expect(dao.lastInsertRowID == 1) // and leaves the connection's last rowid as it was
    }
}
