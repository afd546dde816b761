import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

/// Collects events from a handler.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(DAOEvent, [String: DAOValue])] = []
    func append(_ event: DAOEvent, _ args: [String: DAOValue]) { lock.lock(); items.append((event, args)); lock.unlock() }
    var events: [DAOEvent] { lock.lock(); defer { lock.unlock() }; return items.map(\.0) }
    var arguments: [[String: DAOValue]] { lock.lock(); defer { lock.unlock() }; return items.map(\.1) }
}

private func memoryDAO(_ xml: String, crypt: any DataCrypt = KeyRing.empty) throws -> (DAOObject, DatabaseQueue, EventLog) {
    let queue = DatabaseQueue(database: try Database.inMemory())
    let dao = DAOObject(config: try DAOConfig(xml: xml, file: "t.xml"), queue: queue, crypt: crypt)
    let log = EventLog()
    dao.eventHandler = { _, event, args in log.append(event, args) }
    return (dao, queue, log)
}

private let demoXML = """
    <module name="Demo" initializer="createTable" tableName="demoTable" version="1.0">
      <update id="createTable">
        create table if not exists ${T} (idx integer primary key, content text)
      </update>
      <insert id="insertItem" arguments="content">insert into ${T} (content) values(#{content})</insert>
      <select id="getItem" arguments="idx" result="string">select content from ${T} where idx = #{idx}</select>
      <select id="count" result="long long">select count(*) from ${T}</select>
    </module>
    """

@Test func referenceDemoInsertThenReadByLastInsertRowID() throws {
    let (dao, queue, log) = try memoryDAO(demoXML)
    #expect(!(try dao.tableExists()))
    let inserted = try dao.call("insertItem", ["something"])
    #expect(inserted.changes == 1)
    #expect(dao.lastInsertRowID == 1)
    #expect(dao.lastChanges == 1)
    #expect(try dao.call("getItem", [.integer(dao.lastInsertRowID)]).value == "something")
    #expect(try dao.call("getItem", [99]).value == .nil)
    #expect(log.events == [.tableCreated])
    #expect(try dao.schema()?.contains("content text") == true)
    // Invariant SQL is prepared once: more calls add no statements to the cache.
    let cached = queue.read { $0.cachedStatementCount }
    for i in 0..<5 { try dao.call("insertItem", [.string("n\(i)")]) }
    #expect(queue.read { $0.cachedStatementCount } == cached)
    #expect(try dao.call("count").value == 6)
    let version = try queue.read { try TableVersions.version(of: "demoTable", in: $0) }
    #expect(version == DAOVersion("1.0"))
}

@Test func requiredNilArgumentFailsBeforeAnySQL() throws {
    let (dao, _, log) = try memoryDAO("""
        <module name="m" initializer="create" tableName="t" version="1">
          <update id="create">create table ${T} (id integer)</update>
          <insert id="add" arguments="$id">insert into ${T} values (#{id})</insert>
        </module>
        """)
    #expect(throws: DAOError.self) { try dao.call("add", [nil]) }
    #expect(!(try dao.tableExists()))
    #expect(log.events.isEmpty)
    try dao.call("add", [1])
    #expect(try dao.tableExists())
}

@Test func foreachStepsAndTryExceptRunInOneTransaction() throws {
    let (dao, _, _) = try memoryDAO("""
        <module name="m" initializer="create" tableName="t" version="1">
          <update id="create">
            <step>create table ${T} (id integer primary key, c text not null)</step>
            <step resumable="true">this is not sql</step>
            <step>create index c_idx on ${T} (c)</step>
          </update>
          <insert id="addAll" arguments="items" foreach="items.m">insert into ${T} (id, c) values (#{m.id}, #{m.c})</insert>
          <insert id="upsert" arguments="items" foreach="items.m">
            <try>insert into ${T} (id, c) values (#{m.id}, #{m.c})<except>update ${T} set c = #{m.c} where id = #{m.id}</except></try>
          </insert>
          <update id="twoSteps" arguments="id">
            <step>insert into ${T} (id, c) values (#{id}, 'x')</step>
            <step>insert into ${T} (id, c) values (#{id}, NULL)</step>
          </update>
          <select id="all" result="[{}]">select id, c from ${T} order by id</select>
          <select id="byIds" arguments="ids" foreach="ids.i" result="string">select c from ${T} where id = #{i}</select>
        </module>
        """)
    try dao.call("addAll", [[["id": 1, "c": "a"], ["id": 2, "c": "b"]]])
    // The second element violates NOT NULL: the whole foreach rolls back.
    #expect(throws: DAOError.self) { try dao.call("addAll", [[["id": 3, "c": "c"], ["id": 4, "c": nil]]]) }
    #expect(try dao.call("all").value.elements?.count == 2)
    // A failing non-resumable step rolls back the step before it.
    #expect(throws: DAOError.self) { try dao.call("twoSteps", [10]) }
    #expect(try dao.call("all").value.elements?.count == 2)
    // try/except: the conflicting insert becomes an update, rowids kept.
    let result = try dao.call("upsert", [[["id": 1, "c": "A"], ["id": 5, "c": "e"]]])
    #expect(result.changes == 2)
    #expect(try dao.call("all").value == [["id": 1, "c": "A"], ["id": 2, "c": "b"], ["id": 5, "c": "e"]])
    // A foreach select returns one result per element.
    #expect(try dao.call("byIds", [[2, 1, 42]]).value == ["b", "A", .nil])
    #expect(try dao.schema()?.isEmpty == false)
    #expect(try dao.executeQuery(sql: "select name from sqlite_master where name = 'c_idx'").count == 1)
}

@Test func onVoidQuitRunsNothingAndSucceeds() throws {
    let (dao, _, _) = try memoryDAO("""
        <module name="m" initializer="create" tableName="t">
          <update id="create">create table ${T} (id integer)</update>
          <delete id="remove" arguments="id">delete from ${T} <where onVoid="quit"><if true="id != nil">id = #{id}</if></where></delete>
        </module>
        """)
    let first = try dao.call("remove", [nil]) // prepares the table, runs nothing
    #expect(first.skipped)
    try dao.executeUpdate(sql: "insert into t values (1), (2)")
    #expect(dao.lastChanges == 2)
    let skipped = try dao.call("remove", [nil])
    #expect(skipped.skipped)
    #expect(skipped.statements.isEmpty)
    #expect(skipped.changes == 0)
    #expect(try dao.executeQuery(sql: "select count(*) as n from t") == [["n": 2]])
    try dao.call("remove", [1])
    #expect(try dao.executeQuery(sql: "select id from t") == [["id": 2]])
}

struct Message: Codable, Equatable, Sendable {
    var msgId: Int
    var content: String
    var read: Bool
}

@Test func resultsMapScalarsModelsMapsAndUnregisteredClasses() throws {
    let (dao, _, _) = try memoryDAO("""
        <module name="m" initializer="create" tableName="msgs">
          <map id="messageMap" result="Message"><result property="msgId" column="id"/></map>
          <update id="create">create table ${T} (id integer primary key, content text, read integer, score real, raw blob)</update>
          <insert id="add" arguments="m">insert into ${T} (id, content, read, score, raw) values (#{m.msgId}, #{m.content}, #{m.read}, 1.5, x'0102')</insert>
          <select id="one" arguments="id" result=":messageMap">select * from ${T} where id = #{id}</select>
          <select id="all" result="[:messageMap]">select * from ${T} order by id</select>
          <select id="unregistered" result="[Ghost]">select id, content from ${T} order by id</select>
          <select id="ids" result="[int]">select id from ${T} order by id</select>
          <select id="flag" arguments="id" result="bool">select read from ${T} where id = #{id}</select>
          <select id="score" result="double">select score from ${T}</select>
          <select id="raw" result="binary">select raw from ${T}</select>
          <select id="row" result="{}">select id, content from ${T} order by id</select>
          <select id="plain">select 1</select>
        </module>
        """)
    dao.models.register(Message.self)
    for m in [Message(msgId: 1, content: "hi", read: true), Message(msgId: 2, content: "yo", read: false)] {
        try dao.call("add", [try DAOValue(encoding: m)])
    }
    let one = try dao.call("one", [2])
    #expect(one.objects.first as? Message == Message(msgId: 2, content: "yo", read: false))
    #expect(one.value.member("msgId") == 2)
    #expect(try dao.fetch("all", as: Message.self) == [Message(msgId: 1, content: "hi", read: true), Message(msgId: 2, content: "yo", read: false)])
    let ghosts = try dao.call("unregistered")
    #expect(ghosts.objects.isEmpty)
    #expect(ghosts.value == .array([.model("Ghost", ["id": 1, "content": "hi"]), .model("Ghost", ["id": 2, "content": "yo"])]))
    #expect(try dao.call("ids").value == [1, 2])
    #expect(try dao.call("flag", [1]).value == .bool(true))
    #expect(try dao.call("score").value == .double(1.5))
    #expect(try dao.call("raw").value == .data(Data([1, 2])))
    #expect(try dao.call("row").value == ["id": 1, "content": "hi"])
    #expect(try dao.call("plain").value == .nil)
}

@Test func cryptColumnsAreEncryptedOnWriteDecryptedOnReadAndRecorded() throws {
    let folder = TemporaryFolder()
    let crypt = KeyRing([EncryptionKey.random()])
    let store = try Store(path: folder.file("user.sqlite"), crypt: crypt)
    let configPath = folder.file("messages.xml")
    try """
        <module name="messages" initializer="create" tableName="msgs" version="2.0">
          <crypt class="Message" property="content"/>
          <update id="create">create table ${T} (msgId integer primary key, content, read integer)</update>
          <insert id="add" arguments="m">insert into ${T} (msgId, content, read) values (#{m.msgId}, #{m.content}, #{m.read})</insert>
          <select id="get" arguments="id" result="Message">select * from ${T} where msgId = #{id}</select>
        </module>
        """.write(toFile: configPath, atomically: true, encoding: .utf8)
    let dao = try store.makeDAO(configPath: configPath)
    dao.models.register(Message.self)
    try dao.call("add", [try DAOValue(encoding: Message(msgId: 7, content: "top secret", read: false))])
    let stored = try dao.executeQuery(sql: "select content from msgs")
    guard case .data(let ciphertext)? = stored.first?["content"] else { Issue.record("expected a blob, got \(stored)"); return }
    #expect(!String(decoding: ciphertext, as: UTF8.self).contains("top secret"))
    #expect(try crypt.decrypt(ciphertext) == Data("top secret".utf8))
    #expect(try dao.call("get", [7]).objects.first as? Message == Message(msgId: 7, content: "top secret", read: false))

    // The metadata lets a browser find and decrypt the table without the config.
    let entries = try store.queue.read { try TableVersions.entries(in: $0) }
    #expect(entries == [TableVersions.Entry(tableName: "msgs", module: "messages", version: "2.0", configPath: configPath,
                                            encryptedColumns: ["content"])])
    // A wrong key fails clearly.
    dao.decryptor = KeyRing([EncryptionKey.random()])
    #expect(throws: DAOError.self) { try dao.call("get", [7]) }
}

/// A versioned module over `items` (create, add, count) with `upgrades`, for the versioning
/// tests here and in `TablePreparationTests`.
func versionedXML(_ version: String, extra: String = "", upgrades: String = "") -> String {
    """
    <module name="v" initializer="create" tableName="items" version="\(version)" \(extra)>
      <update id="create">create table if not exists ${T} (id integer primary key)</update>
      \(upgrades)
      <insert id="add" arguments="id">insert into ${T} (id) values (#{id})</insert>
      <select id="count" result="int">select count(*) from ${T}</select>
    </module>
    """
}

private let upgradeBlocks = """
    <upgrade toVersion="1.1"><step>alter table ${T} add column a text</step></upgrade>
    <upgrade toVersion="1.10"><step>alter table ${T} add column b text</step><step resumable="true">nonsense</step></upgrade>
    <upgrade toVersion="1.2"><step>alter table ${T} add column c text</step></upgrade>
    """

@Test func upgradesRunInOrderAndRecordTheVersion() throws {
    let folder = TemporaryFolder()
    let path = folder.file("db.sqlite")
    let v1 = try DAOObject(config: try DAOConfig(xml: versionedXML("1.0", upgrades: ""), file: "v.xml"), path: path)
    try v1.call("add", [1])

    let log = EventLog()
    let v2 = try DAOObject(config: try DAOConfig(xml: versionedXML("1.10", upgrades: upgradeBlocks), file: "v.xml"), path: path)
    v2.eventHandler = { _, event, args in log.append(event, args) }
    #expect(try v2.call("count").value == 1)
    #expect(log.events == [.shouldUpgrade])
    #expect(log.arguments.first?["fromVersion"] == "1.0")
    #expect(log.arguments.first?["toVersion"] == "1.10")
    let schema = try v2.schema() ?? ""
    #expect(schema.contains("a text") && schema.contains("b text") && schema.contains("c text"))
    #expect(try v2.executeQuery(sql: "select version from TableVersions where tableName = 'items'") == [["version": "1.10"]])

    // A downgrade is an error and nothing is dropped.
    let old = try DAOObject(config: try DAOConfig(xml: versionedXML("1.0", upgrades: ""), file: "v.xml"), path: path)
    do {
        try old.call("count")
        Issue.record("expected a downgrade error")
    } catch DAOError.downgrade(let table, let stored, let config) {
        #expect([table, stored, config] == ["items", "1.10", "1.0"])
    }
    #expect(try v2.call("count").value == 1)
}

@Test func failedUpgradeStopsAtTheLastVersionReached() throws {
    let folder = TemporaryFolder()
    let path = folder.file("db.sqlite")
    try DAOObject(config: try DAOConfig(xml: versionedXML("1.0", upgrades: ""), file: "v.xml"), path: path).call("add", [1])
    let broken = """
        <upgrade toVersion="1.1"><step>alter table ${T} add column a text</step></upgrade>
        <upgrade toVersion="1.2"><step>alter table ${T} add column b text</step><step>broken sql</step></upgrade>
        """
    let log = EventLog()
    let dao = try DAOObject(config: try DAOConfig(xml: versionedXML("1.2", upgrades: broken), file: "v.xml"), path: path)
    dao.eventHandler = { _, event, args in log.append(event, args) }
    #expect(throws: DAOError.self) { try dao.call("count") }
    #expect(log.events == [.shouldUpgrade, .upgradeFailed])
    #expect(log.arguments.last?["fromVersion"] == "1.1")
    #expect(try dao.executeQuery(sql: "select version from TableVersions") == [["version": "1.1"]])
    // The browser's metadata agrees on the version reached.
    #expect(try dao.executeQuery(sql: "select version from datacenter_dao_tables") == [["version": "1.1"]])
    let schema = try dao.schema() ?? ""
    #expect(schema.contains("a text") && !schema.contains("b text"))
}

/// A call reports the rowid of what it inserted, never the engine's own bookkeeping rows.
@Test func aFirstCallThatInsertsNothingReportsNoBookkeepingRowid() throws {
    let folder = TemporaryFolder()
    let xml = """
        <module name="r" initializer="create" tableName="items" version="1.0">
          <update id="create">create table if not exists ${T} (id integer primary key, n integer)</update>
          <update id="bump">update ${T} set n = n + 1</update>
          <insert id="add" arguments="n">insert into ${T} (n) values (#{n})</insert>
        </module>
        """
    let dao = try DAOObject(config: try DAOConfig(xml: xml, file: "r.xml"), path: folder.file("db.sqlite"))
    let first = try dao.call("bump")
    #expect(first.lastInsertRowID == 0)
    #expect(first.changes == 0)
    #expect(try dao.call("add", [5]).lastInsertRowID == 1)
}

@Test(arguments: [#"resetOnUpgrade="YES""#, #"upgradeMinVersion="1.5""#])
func resetDropsAndRecreatesTheTable(_ attribute: String) throws {
    let folder = TemporaryFolder()
    let path = folder.file("db.sqlite")
    try DAOObject(config: try DAOConfig(xml: versionedXML("1.0", upgrades: ""), file: "v.xml"), path: path).call("add", [1])
    let log = EventLog()
    let dao = try DAOObject(config: try DAOConfig(xml: versionedXML("2.0", extra: attribute, upgrades: upgradeBlocks), file: "v.xml"),
                            path: path)
    dao.eventHandler = { _, event, args in log.append(event, args) }
    #expect(try dao.call("count").value == 0)
    #expect(log.events == [.tableDeleted, .tableCreated])
    #expect(!(try dao.schema() ?? "").contains("a text"))
    #expect(try dao.executeQuery(sql: "select version from TableVersions") == [["version": "2.0"]])
}

@Test func deleteTablesAndRecreateOnNextUse() throws {
    let (dao, _, log) = try memoryDAO(versionedXML("1.0", upgrades: ""))
    for name in ["chat_1", "chat_2", "other"] {
        dao.tableName = name
        try dao.call("add", [1])
    }
    dao.tableName = "chat_1"
    try dao.deleteTable()
    #expect(!(try dao.tableExists("chat_1")))
    #expect(try dao.call("count").value == 0) // re-created by the initializer
    var progress: [Double] = []
    let dropped = try dao.deleteTables(matching: "chat_[0-9]+", vacuum: true) { progress.append($0) }
    #expect(dropped == ["chat_1", "chat_2"])
    #expect(progress == [0.5, 1.0])
    #expect(try dao.tableExists("other"))
    #expect(try !dao.tableExists("chat_2"))
    #expect(log.events.filter { $0 == .tableDeleted }.count == 3)
    #expect(throws: DAOError.self) { try dao.deleteTables(matching: "(") }
}

@Test func transactionsSpanCallsAndRollBack() throws {
    let (dao, _, _) = try memoryDAO(versionedXML("1.0", upgrades: ""))
    try dao.call("add", [1])
    try dao.beginTransaction()
    try dao.call("add", [2])
    try dao.rollback()
    #expect(try dao.call("count").value == 1)
    try dao.beginTransaction()
    try dao.call("add", [2])
    try dao.commit()
    #expect(try dao.call("count").value == 2)
    struct Boom: Error {}
    #expect(throws: Boom.self) {
        try dao.transaction { d in
            try d.call("add", [3])
            throw Boom()
        }
    }
    #expect(try dao.call("count").value == 2)
    let n = try dao.transaction { d in try d.call("add", [4]).changes }
    #expect(n == 1)
    #expect(try dao.call("count").value == 3)
    #expect(dao.withSQLiteHandle { _ in true })
}

@Test func parallelSelectReadsFromAReaderConnection() throws {
    let folder = TemporaryFolder()
    let dao = try DAOObject(config: try DAOConfig(xml: """
        <module name="p" initializer="create" tableName="t">
          <update id="create">create table ${T} (id integer)</update>
          <insert id="add" arguments="id">insert into ${T} values (#{id})</insert>
          <select id="count" result="int" parallel="true">select count(*) from ${T}</select>
        </module>
        """, file: "p.xml"), path: folder.file("p.sqlite"))
    try dao.call("add", [1])
    #expect(try dao.call("count").value == 1)
    dao.globalArguments = ["x": 1]
    #expect(dao.globalArguments == ["x": 1])
    #expect(dao.allMethods.map(\.id) == ["create", "add", "count"])
}

@Test func severalStatementsRunAsStepsAndQuitSkipsOnlyItsStep() throws {
    let (dao, _, _) = try memoryDAO("""
        <module name="m" initializer="create" tableName="t">
          <update id="create">
            <step>create table ${T} (id integer, note text);</step>
            <step>create index t_note on ${T} (note); -- a trailing comment is fine</step>
          </update>
          <update id="steps" arguments="id">
            <step>insert into ${T} (id) values (1)</step>
            <step>delete from ${T} <where onVoid="quit"><if true="id != nil">id = #{id}</if></where></step>
            <step>insert into ${T} (id) values (2)</step>
          </update>
        </module>
        """)
    let result = try dao.call("steps", [nil])
    #expect(result.statements.count == 2)
    #expect(!result.skipped)
    #expect(try dao.executeQuery(sql: "select id from t order by id") == [["id": 1], ["id": 2]])
    #expect(try dao.executeQuery(sql: "select name from sqlite_master where type = 'index' and tbl_name = 't'") == [["name": "t_note"]])
}
