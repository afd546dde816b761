import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

/// The references' own example configs load and run as written, but for one name: their
/// table has a column named `index`, a keyword SQLite refuses as a bare column name
/// (`create table t (index integer …)` is a syntax error in SQLite), so that one name is
/// quoted, `"index"`, and nothing else is changed. Seed 000/001 write method arguments as
/// `#{name}`; seed 002 writes the same methods with `${name}` and `${model.msgId}`, which
/// read the arguments (bound as `#{}` is) when no const or fragment has that name.
@Suite struct ReferenceExamplesTests {
    /// The Demo module of seeds 000 and 001.
    static let demoWithHash = """
        <module name="Demo" initializer="createTable" tableName="demoTable" version="1.0">
        <update id="createTable">
        create table if not exists ${T} ("index" integer primary key, content text)
        </update>
        <insert id="insertItem" arguments="content">
        insert into ${T} (content) values(#{content})
        </insert>
        <select id="getItem" arguments="index" result="string">
        select * from ${T} where "index" = #{index}
        </select>
        </module>
        """

    /// The same module as seed 002 writes it.
    static let demoWithDollar = """
        <module name="Demo" initializer="createTable" tableName="demoTable" version="1.0">
          <update id="createTable">
            create table if not exists ${T} ("index" integer primary key, content text)
          </update>

          <insert id="insertItem" arguments="content">
            insert into ${T} (content) values(${content})
          </insert>

          <select id="getItem" arguments="index" result="string">
            select * from ${T} where "index" = ${index}
          </select>
        </module>
        """

    /// Seed 002's insert, update and delete examples, with its `<crypt>` and model select,
    /// in one module.
    static let messages = """
        <module name="demo" initializer="createTable" tableName="tableDemo" version="1.0">
          <crypt class="MessageModel" property="content"/>
          <insert id="addMessages" arguments="messages" foreach="messages.model">
              insert or replace into ${T} (id, content, uin, read) values(${model.msgId}, ${model.content}, ${model.uin}, ${model.read})
          </insert>
          <update id="createTable">
              <step>
                  create table if not exists ${T} (id integer primary key, content text, uin integer, read boolean)
              </step>
              <step>
                  create index if not exists uin_idx on ${T} (uin)
              </step>
          </update>
          <delete id="remove" arguments="msgId">
              delete from ${T} where id = ${msgId}
          </delete>
          <select id="getMessage" arguments="msgId" result="MessageModel">
              select * from ${T} where id = ${msgId}
          </select>
        </module>
        """

    /// As the examples run it: insert, read the last row id, read the item back. The
    /// `string` result is the first column of the row (`select *`: the index), as the
    /// dialect reads a scalar result.
    @Test(arguments: [demoWithHash, demoWithDollar])
    func theDemoModuleRunsAsTheExampleDoes(xml: String) throws {
        let dao = DAOObject(config: try DAOConfig(xml: xml, file: "demo_config.xml"), queue: DatabaseQueue(database: try Database.inMemory()),
                            crypt: KeyRing.empty)
        try dao.call("insertItem", ["something"])
        let lastIndex = dao.lastInsertRowID
        #expect(lastIndex == 1)
        #expect(try dao.call("getItem", [.integer(lastIndex)]).value == "1")
        // Bound, not spliced: a value with a quote is one value.
        try dao.call("insertItem", ["it's; drop table demoTable; --"])
        #expect(try dao.executeQuery(sql: "select content from demoTable where \"index\" = 2").first?["content"] == "it's; drop table demoTable; --")
        let rendered = try dao.config.render("insertItem", arguments: ["x"], globals: [:], tableName: "demoTable")
        guard case .statement(let sql)? = rendered.runs.first else { Issue.record("not one statement"); return }
        #expect(sql.sql.contains("values(?)") && sql.bindings == [.text("x")])
    }

    @Test func theMessageExamplesRunWithTheirCryptRule() throws {
        let key = try EncryptionKey(parsing: String(repeating: "ab", count: 32))
        let queue = DatabaseQueue(database: try Database.inMemory())
        let dao = DAOObject(config: try DAOConfig(xml: Self.messages, file: "messages.xml"), queue: queue, crypt: KeyRing([key]))
        let models: [DAOValue] = (1...3).map { .model("MessageModel", ["msgId": .integer(Int64($0)), "content": .string("hello \($0)"),
                                                                       "uin": 7, "read": .bool($0 == 2)]) }
        try dao.call("addMessages", [.array(models)])
        let stored = try queue.read { db in try db.scalar("select content from tableDemo where id = 2") }
        guard case .blob? = stored else { Issue.record("content stored as \(String(describing: stored)), not encrypted"); return }
        let message = try dao.call("getMessage", [2]).value
        #expect(message.fields?["content"] == "hello 2")
        #expect(message.fields?["read"] == 1)
        try dao.call("remove", [2])
        #expect(try dao.call("getMessage", [2]).value == .nil)
        #expect(try queue.read { db in try db.scalar("select count(*) from tableDemo") } == .integer(2))
    }

    /// `${name}` that names neither a const, a fragment nor an argument is still a load
    /// error; one naming an argument loads, and lint names the usual spelling.
    @Test func dollarNamesAnArgumentOrIsAnError() throws {
        #expect(throws: DAOConfigError.self) {
            _ = try DAOConfig(xml: #"<module name="m" tableName="t"><select id="s" arguments="a">select ${b}</select></module>"#)
        }
        let findings = DAOLinter.lint(xml: Self.demoWithDollar, file: "demo_config.xml")
        #expect(findings.contains { $0.severity == .warning
            && $0.description.contains("${content} reads the argument 'content' of method 'insertItem', bound as #{content} is") }, "\(findings)")
        #expect(!findings.contains { $0.severity == .error }, "\(findings)")
        // A const of the same name still wins, as it always has.
        let config = try DAOConfig(xml: #"<module name="m" tableName="t"><const a="42"/><select id="s" arguments="a">select ${a}</select></module>"#)
        let rendered = try config.render("s", arguments: [7], globals: [:], tableName: "t")
        guard case .statement(let sql)? = rendered.runs.first else { Issue.record("not one statement"); return }
        #expect(sql.sql == "select 42" && sql.bindings.isEmpty)
    }
}
