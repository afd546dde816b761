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
              <select id="every" result="[{}]">select * from ${T} order by a</select>
              <update id="addColumn">alter table ${T} add column c text default 'new'</update>
              <update id="rename">alter table ${T} rename column b to bee</update>
            </module>
            """
        let dao = DAOObject(config: try DAOConfig(xml: xml, file: "alter.xml"), queue: DatabaseQueue(database: try Database.inMemory()))
        try dao.call("create")
        try dao.call("add", [1, "one"])
        #expect(try dao.call("all").value == ["a": 1, "b": "one"])
        // A typed list takes the layout kept with the statement too, checked the same way.
        struct AC: DAORowDecodable, Equatable {
            var a: Int64, c: String?
            init(a: Int64, c: String?) { self.a = a; self.c = c }
            init(row: borrowing DAORow) throws { self.init(a: try row["a"], c: try row["c"]) }
        }
        for _ in 0..<2 { #expect(try dao.fetch("every", as: AC.self) == [AC(a: 1, c: nil)]) }
        try dao.call("addColumn")
        #expect(try dao.call("all").value == ["a": 1, "b": "one", "c": "new"])
        #expect(try dao.fetch("every", as: AC.self) == [AC(a: 1, c: "new")])
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

    /// A select by key keeps its statement after the first call and later calls bind their
    /// arguments straight to it: they must read and report what the general path would, for
    /// every argument, and a table that must be set up again (deleted, created in a rolled
    /// back transaction, another table name) is set up before the read.
    @Test func aKeptSelectByKeyReadsWhatTheGeneralPathReads() throws {
        let xml = """
            <module name="Kept" initializer="create" tableName="items" version="1.0">
              <update id="create">create table if not exists ${T} (id integer primary key, name text, tag text)</update>
              <insert id="add" arguments="name, tag">insert into ${T} (name, tag) values (#{name}, #{tag})</insert>
              <select id="name" arguments="$id" result="string">select name from ${T} where id = #{id}</select>
              <select id="get" arguments="id" result="{}">select id, name from ${T} where id = #{$id}</select>
              <select id="tagged" arguments="tag" result="int">select count(*) from ${T} where tag = #{tag or ""}</select>
              <select id="mine" result="string">select name from ${T} where tag = #{owner}</select>
            </module>
            """
        let config = try DAOConfig(xml: xml, file: "kept.xml")
        #expect(try config.method("name", arity: 1).plan.name == "keptRead")
        #expect(try config.method("mine", arity: 0).plan.name == "oneStatement") // reads a global
        let dao = DAOObject(config: config, queue: DatabaseQueue(database: try Database.inMemory()))
        try dao.call("add", ["a", ""])
        try dao.call("add", ["b", "x"])
        for (id, name) in [(1, "a"), (2, "b"), (3, nil), (1, "a")] as [(Int64, String?)] {
            let result = try dao.call("name", [.integer(id)])
            #expect(result.value == (name.map { .string($0) } ?? .nil))
            #expect(result.statements == (try dao.render("name", [.integer(id)])).statements)
            #expect(try dao.call("get", [.integer(id)]).value == (name.map { ["id": .integer(id), "name": .string($0)] } ?? .nil))
        }
        do {
            try dao.call("name", [.nil])
            Issue.record("a nil $ argument must fail")
        } catch DAOError.nilArgument(let method, let argument) {
            #expect(method == "name" && argument == "id")
        }
        #expect(try dao.call("tagged", [.nil]).value == 1) // or "": nil binds ''
        #expect(try dao.call("tagged", ["x"]).value == 1)
        dao.globalArguments = ["owner": "x"]
        #expect(try dao.call("mine").value == "b")
        dao.globalArguments = ["owner": ""]
        #expect(try dao.call("mine").value == "a")

        try dao.deleteTable()
        #expect(try dao.call("name", [1]).value == .nil) // set up again, not "no such table"
        try dao.call("add", ["c", nil])
        dao.tableName = "others"
        #expect(try dao.call("name", [1]).value == .nil)
        try dao.call("add", ["d", nil])
        #expect(try dao.call("name", [1]).value == "d")
        dao.tableName = "items"
        #expect(try dao.call("name", [1]).value == "c")

        let fresh = DAOObject(config: config, queue: DatabaseQueue(database: try Database.inMemory()))
        try fresh.beginTransaction()
        #expect(try fresh.call("name", [1]).value == .nil) // creates the table, inside the transaction
        try fresh.rollback()
        #expect(try fresh.call("name", [1]).value == .nil)
        #expect(try fresh.tableExists())
    }

    /// `Statement.firstRow` binds what it is given, checks the parameter count and stops
    /// at the first row.
    @Test func firstRowBindsAndReadsOneRow() throws {
        let db = try Database.inMemory()
        let statement = try db.cachedStatement("select value from (select ?1 as value union all select ?1 + 1) order by value")
        #expect(throws: DatabaseError.self) { try statement.firstRow(bindingCount: 2, { _ in .integer(1) }, { _ in }) }
        var rows: [DatabaseValue] = []
        #expect(try statement.firstRow(bindingCount: 1, { _ in .integer(7) }, { rows.append($0.value(at: 0)) }))
        #expect(rows == [.integer(7)])
        let none = try db.cachedStatement("select 1 where ? = 0")
        #expect(try !none.firstRow(bindingCount: 1, { _ in .integer(1) }, { _ in Issue.record("no row expected") }))
    }

    /// A static foreach binds each element's members found in one pass over a small
    /// dictionary (hashed lookups for a large one): every element shape must bind what the
    /// general rendering binds (missing members, `count`, `or ""`, models, non-dictionaries,
    /// a name bound twice, an argument beside the members).
    @Test(arguments: [UInt64(11), 12, 13])
    func forEachMembersBindAsRendered(seed: UInt64) throws {
        let xml = """
            <module name="Members" initializer="create" tableName="t" version="1.0">
              <update id="create">create table ${T} (seq integer primary key, a, b, c, g, a2)</update>
              <insert id="addAll" arguments="rows, g" foreach="rows.r">
                insert into ${T} (a, b, c, g, a2) values (#{r.a}, #{r.b or ""}, #{r.count}, #{g}, #{r.a})
              </insert>
            </module>
            """
        let dao = DAOObject(config: try DAOConfig(xml: xml, file: "members.xml"), queue: DatabaseQueue(database: try Database.inMemory()))
        var rng = SplitMix64(seed: seed)
        func scalar() -> DAOValue {
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: return .nil
            case 1: return .integer(Int64.random(in: -9...9, using: &rng))
            case 2: return .double(2.5)
            case 3: return .bool(true)
            default:
                // Short and long texts (one past the batch's text scratch), and non-ASCII.
                return .string(["x", "it's", "", "é日本 \u{1F600}", String(repeating: "long ", count: 20),
                                String(repeating: "z", count: 5000)].randomElement(using: &rng)!)
            }
        }
        var elements: [DAOValue] = []
        for _ in 0..<60 {
            var fields: [String: DAOValue] = [:]
            for name in ["a", "b", "count"] where Bool.random(using: &rng) { fields[name] = scalar() }
            for extra in 0..<[0, 2, 15, 20].randomElement(using: &rng)! { fields["extra\(extra)"] = scalar() }
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: elements.append(.model("Row", fields))
            case 1: elements.append([scalar(), scalar()])
            case 2: elements.append(.nil)
            default: elements.append(.dictionary(fields))
            }
        }
        let result = try dao.call("addAll", [.array(elements), scalar()])
        let rendered = result.statements
        #expect(rendered.count == elements.count)
        let rows = try dao.executeQuery(sql: "select a, b, c, g, a2 from t order by seq")
        #expect(rows.count == elements.count)
        for (index, (row, statement)) in zip(rows, rendered).enumerated() {
            let expected = statement.bindings.map(DAOValue.init)
            let actual = ["a", "b", "c", "g", "a2"].map { row[$0] ?? .nil }
            #expect(actual == expected, "seed \(seed), element \(index): \(elements[index])")
        }
    }
}
