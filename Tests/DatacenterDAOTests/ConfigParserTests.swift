import Foundation
import Testing
@testable import DatacenterDAO

/// The error a config fails to load with, as printed.
private func loadError(_ xml: String, file: String = "demo.xml") -> String? {
    do {
        _ = try DAOConfig(xml: xml, file: file)
        return nil
    } catch let error as DAOConfigError {
        return error.description
    } catch {
        return "unexpected \(error)"
    }
}

@Test func fullModuleLoads() throws {
    let config = try DAOConfig(xml: """
        <module name="demo" initializer="createTable" tableName="tableDemo" version="1.5"
                resetOnUpgrade = "YES" upgradeMinVersion="1.2">
          <const table_columns="(id, time, content, uin, read)"/>
          <sql id="userColumns"> id, username, password </sql>
          <map id="messageModelMap" result="MessageModel"><result property="msgId" column="id"/></map>
          <crypt class="MessageModel" property="content"/>
          <update id="createTable"><step>create table if not exists ${T} (id integer primary key, content text)</step></update>
          <upgrade toVersion="1.10"><step>alter table ${T} add column c2 text</step></upgrade>
          <upgrade toVersion='1.1'><step resumable="true">alter table ${T} add column c1 text</step></upgrade>
          <select id="find" arguments="id, $ time" result="[:messageModelMap]" parallel="true">
            select *from ${T} where id = #{id} and time &gt; @{time}
          </select>
          <insert id="add" arguments="messages" foreach="messages.model">insert into ${T} ${table_columns} values (1)</insert>
          <delete id="clear">delete from ${T}</delete>
        </module>
        """, file: "demo.xml")
    #expect(config.module == DAOModuleInfo(name: "demo", initializer: "createTable", tableName: "tableDemo",
                                           version: DAOVersion("1.5"), resetOnUpgrade: true, upgradeMinVersion: DAOVersion("1.2")))
    #expect(config.consts == ["table_columns": "(id, time, content, uin, read)"])
    #expect(config.fragments["userColumns"] == " id, username, password ")
    #expect(config.maps["messageModelMap"]?.columnsByProperty == ["msgId": "id"])
    #expect(config.cryptRules == [DAOCryptRule(className: "MessageModel", property: "content")])
    #expect(config.upgrades.map(\.toVersion.text) == ["1.1", "1.10"])
    #expect(config.methodNames == ["createTable", "find", "add", "clear"])
    let find = try config.method("find", arity: 2)
    #expect(find.arguments == [DAOArgumentSpec(name: "id", isRequired: false), DAOArgumentSpec(name: "time", isRequired: true)])
    #expect(find.result == DAOResultType("[:messageModelMap]"))
    #expect(find.result?.isArray == true)
    #expect(find.isParallel)
    #expect(find.location == SourceLocation(file: "demo.xml", line: 10, column: 3))
    #expect(find.signature == "select find(id, $time) -> [:messageModelMap]")
    #expect(try config.method("add", arity: 1).forEach == DAOForEachSpec(collection: "messages", item: "model"))
    #expect(config.encryptedColumns == ["content"])
    let sql = try config.render("find", arguments: [1, 2])
    #expect(sql.statements.first?.sql == "select *from tableDemo where id = ? and time > 2");
}

@Test func versionsCompareNumerically() {
    #expect(DAOVersion("1.10")! > DAOVersion("1.9")!)
    #expect(DAOVersion("1.2")! == DAOVersion("1.2.0")!)
    #expect(DAOVersion("2")! > DAOVersion("1.99")!)
    #expect(DAOVersion("1.x") == nil)
    #expect(DAOVersion("") == nil)
}

@Test(arguments: [
    ("int", DAOResultType.Element.int, false), ("[long long]", .longLong, true), ("[ {} ]", .dictionary, true),
    ("MessageModel", .model("MessageModel"), false), (":m", .map("m"), false), ("[binary]", .binary, true),
] as [(String, DAOResultType.Element, Bool)])
func resultTypesParse(_ text: String, _ element: DAOResultType.Element, _ isArray: Bool) throws {
    let type = try #require(DAOResultType(text))
    #expect(type.element == element)
    #expect(type.isArray == isArray)
}

@Test(arguments: [
    // unknown element, with a suggestion and its exact column
    ("<module name=\"m\">\n  <select id=\"a\">select 1 <fi true=\"1\">x</fi></select>\n</module>",
     "demo.xml:2:27: error: unknown element <fi> (did you mean <if>?)"),
    ("<module name=\"m\">\n  <selcet id=\"a\">select 1</selcet>\n</module>",
     "demo.xml:2:3: error: unknown element <selcet> (did you mean <select>?)"),
    // missing attribute
    ("<module name=\"m\">\n<select>select 1</select>\n</module>",
     "demo.xml:2:1: error: <select> needs the attribute 'id'"),
    ("<module name=\"m\">\n<select id=\"a\"><if>x</if></select>\n</module>",
     "demo.xml:2:16: error: <if> needs the attribute 'true'"),
    // unknown attribute
    ("<module name=\"m\">\n<select id=\"a\"><if ture=\"1\">x</if></select>\n</module>",
     "demo.xml:2:20: error: unknown attribute 'ture' on <if> (did you mean 'true'?)"),
    // unknown ${name}: neither a const, a fragment nor an argument (an argument's loads: ReferenceExamplesTests)
    ("<module name=\"m\">\n<select id=\"a\" arguments=\"name\">\n  select * from t where n = ${nmae}</select>\n</module>",
     "demo.xml:3:29: error: unknown name ${nmae} (did you mean ${name}?)"),
    ("<module name=\"m\">\n<const cols=\"a\"/>\n<select id=\"a\">\n  select ${col}\n from t</select>\n</module>",
     "demo.xml:4:10: error: unknown name ${col} (did you mean ${cols}?)"),
    // bad expression, with its position
    ("<module name=\"m\">\n<select id=\"a\" arguments=\"x\">select 1 <if true=\"x &gt;\">y</if></select>\n</module>",
     "demo.xml:2:43: error: bad expression \"x >\" at position 4: expected a value, found the end"),
    // duplicate method of the same arity
    ("<module name=\"m\">\n<select id=\"a\" arguments=\"x\">1</select>\n<delete id=\"a\" arguments=\"y\">2</delete>\n</module>",
     "demo.xml:3:1: error: duplicate method 'a' with 1 argument(s); the first is at demo.xml:2:1"),
    // step mixed with text, nested step
    ("<module name=\"m\">\n<update id=\"a\">\n  <step>x</step>\n  stray text\n</update>\n</module>",
     "demo.xml:4:3: error: text or elements beside <step>: a body of steps holds only <step> elements"),
    ("<module name=\"m\">\n<update id=\"a\"><step>x <step>y</step></step></update>\n</module>",
     "demo.xml:2:24: error: <step> cannot contain another <step>"),
    // reference cycle
    ("<module name=\"m\">\n<sql id=\"a\">${b}</sql>\n<sql id=\"b\">${a}</sql>\n</module>",
     "demo.xml:3:13: error: reference cycle: ${a} → ${b} → ${a}"),
    // malformed XML
    ("<module name=\"m\">\n<select id=\"a\">select 1</selec>\n</module>",
     "demo.xml:2:32: error: malformed XML: Opening and ending tag mismatch: select line 2 and selec"),
    ("<modul/>", "demo.xml:1:1: error: the root element is <modul>, expected <module>"),
    ("<module name=\"m\">\n<select id=\"a\">select #{}</select>\n</module>",
     "demo.xml:2:23: error: bad reference #{}: no name inside the braces"),
    ("<module name=\"m\">\n<select id=\"a\" arguments=\"x\">select #{x nope}</select>\n</module>",
     "demo.xml:2:37: error: bad reference #{x nope}: expected `or \"\"` or `no \"\"` after the name"),
    ("<module name=\"m\">\n<select id=\"a\"><when true=\"1\">x</when></select>\n</module>",
     "demo.xml:2:16: error: <when> is not allowed outside <choose>"),
    ("<module name=\"m\" initializer=\"create\">\n<update id=\"creat\">x</update>\n</module>",
     "demo.xml:1:18: error: initializer 'create' names no <update> method without arguments (did you mean 'creat'?)"),
    ("<module name=\"m\">\n<insert id=\"a\" arguments=\"list\" foreach=\"list.list\">x</insert>\n</module>",
     "demo.xml:2:33: error: duplicate name 'list': the foreach item may not repeat an argument name"),
    ("<module name=\"m\">\n<update id=\"a\">x <try>y<except>z</except></try></update>\n</module>",
     "demo.xml:2:16: error: bad <try>: <try> must be the only content of <update>"),
    ("<module name=\"m\">\n<select id=\"a\" result=\":nope\">x</select>\n</module>",
     "demo.xml:2:1: error: unknown map ':nope'"),
] as [(String, String)])
func configErrorsNameFileLineColumnAndTheFault(_ xml: String, _ expected: String) {
    #expect(loadError(xml) == expected)
}

@Test func fileLoadingReportsMissingFiles() throws {
    let folder = TemporaryFolder()
    let path = folder.file("c.xml")
    try #"<module name="m" tableName="t"><select id="a">select 1 from ${T}</select></module>"#.write(toFile: path, atomically: true, encoding: .utf8)
    let config = try DAOConfig(contentsOfFile: path)
    #expect(config.path == path)
    #expect(try config.render("a", arguments: []).statements.first?.sql == "select 1 from t")
    #expect(throws: DAOConfigError.self) { try DAOConfig(contentsOfFile: path + ".missing") }
}

@Test func externalEntitiesAreNotLoaded() throws {
    let xml = """
        <?xml version="1.0"?>
        <!DOCTYPE module [<!ENTITY x SYSTEM "file:///etc/passwd">]>
        <module name="m" tableName="t"><select id="a">select '&x;'</select></module>
        """
    // Never read, and refused: a reference to it would otherwise vanish from the SQL.
    do {
        _ = try DAOConfig(xml: xml)
        Issue.record("a config declaring an external entity loaded")
    } catch let error as DAOConfigError {
        #expect(error.location.line == 2)
        #expect(!error.description.contains("root:"))
    }
}
