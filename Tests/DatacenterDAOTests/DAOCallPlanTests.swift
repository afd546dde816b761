import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

// Every way a call runs (`DAOCallPlan`) against the general path: the same calls on two
// databases in the same state, one through each method's plan, one through
// `DAOCallPlan.transaction` (render, run every statement in one transaction, map every row),
// must give the same value, objects, changes, row ids, statements and errors, and leave the
// same rows.

/// A config with methods of every plan, and calls that fail in each way.
private let plansXML = """
    <module name="Plans" initializer="create" tableName="items" version="1.0">
      <map id="item" result="Item"><result property="itemId" column="id"/></map>
      <crypt class="Item" property="secret"/>
      <crypt class="Row" property="secret"/>
      <update id="create">
        create table if not exists ${T} (id integer primary key, name text unique, score real, secret blob, tag text)
      </update>

      <insert id="addAll" arguments="rows" foreach="rows.r">
        insert into ${T} (name, score, secret, tag) values (#{r.name}, #{r.score}, #{r.secret}, #{r.tag or ""})
      </insert>
      <select id="scores" arguments="names" foreach="names.n" result="double">select score from ${T} where name = #{n}</select>
      <select id="rowsNamed" arguments="names" foreach="names.n" result="[:item]">select * from ${T} where name = #{n}</select>

      <select id="name" arguments="$id" result="string">select name from ${T} where id = #{id}</select>
      <select id="get" arguments="id" result="{}">select * from ${T} where id = #{$id}</select>
      <select id="item" arguments="id" result=":item">select * from ${T} where id = #{id}</select>
      <select id="model" arguments="id" result="Item">select id as itemId, name, secret from ${T} where id = #{id}</select>
      <select id="firstAbove" arguments="min" result=":item">select * from ${T} where score &gt;= #{min} order by score</select>
      <select id="tagged" arguments="tag" result="int">select count(*) from ${T} where tag = #{tag or ""}</select>

      <select id="list" arguments="tag, limit" result="[:item]">
        select * from ${T} <where><if true="tag != nil">tag = #{tag}</if></where> order by id
        <if true="limit > 0">limit #{limit}</if>
      </select>
      <select id="mine" result="[{}]">select id, name from ${T} where tag = #{owner} order by id</select>
      <select id="count" result="int">select count(*) from ${T}</select>
      <select id="nothing">select name from ${T}</select>
      <update id="rename" arguments="$id, name">update ${T} set name = #{name} where id = #{id}</update>
      <select id="addReturning" arguments="name" result="{}">insert into ${T} (name) values (#{name}) returning id, name</select>
      <update id="setSecret" arguments="m">update ${T} set secret = #{m.secret} where id = #{m.id}</update>
      <update id="retag" arguments="ids, tag">
        update ${T} set tag = #{tag} <where onVoid="quit"><if true="ids.count > 0">id in
        <foreach item="i" collection="ids" open="(" separator="," close=")">#{i}</foreach></if></where>
      </update>

      <update id="twoSteps" arguments="a, b">
        <step>insert into ${T} (name) values (#{a})</step>
        <step resumable="true">insert into ${T} (name) values (#{b})</step>
      </update>
      <update id="upsert" arguments="a">
        <try>insert into ${T} (name) values (#{a})<except>update ${T} set score = -1 where name = #{a}</except></try>
      </update>
      <insert id="addSome" arguments="rows" foreach="rows.r">
        insert into ${T} (name<if true="r.score != nil">, score</if>) values (#{r.name}<if true="r.score != nil">, #{r.score}</if>)
      </insert>

      <select id="parallelList" arguments="tag" result="[:item]" parallel="true">select * from ${T} where tag = #{tag} order by id</select>
      <select id="parallelGet" arguments="id" result="{}" parallel="true">select id, name from ${T} where id = #{id}</select>
    </module>
    """

/// The plan each method of `plansXML` must have, so every way is covered.
private let expectedPlans: [String: String] = [
    "create": "oneStatement", "addAll": "staticForEach", "scores": "staticForEach", "rowsNamed": "staticForEach",
    "name": "keptRead", "get": "keptRead", "item": "keptRead", "model": "keptRead", "firstAbove": "keptRead",
    "tagged": "keptRead", "list": "oneStatement", "mine": "oneStatement", "count": "keptRead", "nothing": "oneStatement",
    "rename": "oneStatement", "addReturning": "keptRead", "setSecret": "oneStatement", "retag": "oneStatement",
    "twoSteps": "transaction", "upsert": "transaction", "addSome": "transaction",
    "parallelList": "poolRead", "parallelGet": "poolRead",
]

struct Item: Codable, Sendable, Equatable {
    var itemId: Int
    var name: String?
    var secret: String?
}

/// What a call did, in a form two runs on two databases can be compared by.
private struct CallOutcome: Equatable, CustomStringConvertible {
    var value: DAOValue?
    var objects: [String] = []
    var changes = 0
    var lastInsertRowID: Int64 = 0
    var skipped = false
    var statements: [RenderedSQL] = []
    var error: String?
    /// What the DAO object reports after a call that succeeded (`lastInsertRowID`, `lastChanges`).
    var reported: [Int64] = []

    var description: String {
        error.map { "error: \($0)" } ?? "\(value ?? .nil) objects \(objects) changes \(changes) rowid \(lastInsertRowID) "
            + "skipped \(skipped) statements \(statements.map(\.preview)) reported \(reported)"
    }
}

/// Two DAO objects over two databases in the same state: `planned` runs each call through
/// its method's plan, `general` through the general path.
private struct PlanPair {
    let planned: DAOObject
    let general: DAOObject
    /// Text that differs between the two (their folders), replaced before comparing.
    let folders: [String]

    init(config: DAOConfig, crypt: any DataCrypt, inFiles folder: TemporaryFolder? = nil) throws {
        if let folder {
            try FileManager.default.createDirectory(atPath: folder.file("planned"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: folder.file("general"), withIntermediateDirectories: true)
            planned = try DAOObject(config: config, path: folder.file("planned/db.sqlite"), crypt: crypt)
            general = try DAOObject(config: config, path: folder.file("general/db.sqlite"), crypt: crypt)
            folders = [folder.file("planned"), folder.file("general")]
        } else {
            planned = DAOObject(config: config, queue: DatabaseQueue(database: try Database.inMemory()), crypt: crypt)
            general = DAOObject(config: config, queue: DatabaseQueue(database: try Database.inMemory()), crypt: crypt)
            folders = []
        }
        self.crypt = crypt
        planned.models.register(Item.self)
        general.models.register(Item.self)
    }

    let crypt: any DataCrypt

    /// `value` with every ciphertext replaced by its plaintext: the two databases encrypt
    /// alike but with their own nonces.
    private func decrypted(_ value: DAOValue) -> DAOValue {
        switch value {
        case .data(let bytes):
            guard let plain = try? crypt.decrypt(bytes) else { return value }
            return .string("decrypted " + String(decoding: plain, as: UTF8.self))
        case .array(let values): return .array(values.map(decrypted))
        case .dictionary(let fields): return .dictionary(fields.mapValues(decrypted))
        case .model(let name, let fields): return .model(name, fields.mapValues(decrypted))
        default: return value
        }
    }

    private func outcome(_ body: () throws -> DAOCallResult, on dao: DAOObject, folder: String?, readsOnPool: Bool) -> CallOutcome {
        var outcome = CallOutcome()
        do {
            let result = try body()
            outcome.value = decrypted(result.value)
            outcome.objects = result.objects.map { String(describing: $0) }
            outcome.changes = result.changes
            // A read on a connection of the pool reports that connection's last rowid.
            outcome.lastInsertRowID = readsOnPool ? -1 : result.lastInsertRowID
            outcome.skipped = result.skipped
            outcome.statements = result.statements
            outcome.reported = [readsOnPool ? -1 : dao.lastInsertRowID, Int64(dao.lastChanges)]
        } catch {
            var text = String(describing: error)
            if let folder { text = text.replacingOccurrences(of: folder, with: "<folder>") }
            outcome.error = text
        }
        return outcome
    }

    /// Calls `id` on both and expects the same outcome; returns it.
    @discardableResult
    func expectSame(_ id: String, _ arguments: [DAOValue] = [], _ comment: String = "",
                    sourceLocation: Testing.SourceLocation = #_sourceLocation) -> CallOutcome {
        var readsOnPool = false
        if !folders.isEmpty, let method = try? planned.config.method(id, arity: arguments.count), case .poolRead = method.plan {
            readsOnPool = true
        }
        let a = outcome({ try planned.call(id, arguments) }, on: planned, folder: folders.first, readsOnPool: readsOnPool)
        let b = outcome({ try general.call(id, arguments, as: .transaction) }, on: general, folder: folders.last, readsOnPool: readsOnPool)
        #expect(a == b, "\(id) \(arguments) \(comment)", sourceLocation: sourceLocation)
        return a
    }

    /// Expects both tables to hold the same rows (ciphertexts compared decrypted).
    func expectSameRows(_ table: String = "items", crypt: any DataCrypt, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        func rows(_ dao: DAOObject) throws -> [[String: DAOValue]] {
            try dao.executeQuery(sql: "select * from \(table) order by rowid").map { row in
                row.mapValues { value in
                    guard case .data(let bytes) = value, let plain = try? crypt.decrypt(bytes) else { return value }
                    return .string("decrypted " + String(decoding: plain, as: UTF8.self))
                }
            }
        }
        #expect(try rows(planned) == rows(general), sourceLocation: sourceLocation)
    }
}

@Suite struct DAOCallPlanTests {
    @Test func eachMethodGetsTheExpectedPlan() throws {
        let config = try DAOConfig(xml: plansXML, file: "plans.xml")
        var plans: [String: String] = [:]
        for method in config.methods { plans[method.id] = method.plan.name }
        #expect(plans == expectedPlans)
        #expect(Set(plans.values) == ["keptRead", "oneStatement", "staticForEach", "transaction", "poolRead"])
        guard case .poolRead(let otherwise) = try config.method("parallelGet", arity: 1).plan else { Issue.record("not a pool read"); return }
        #expect(otherwise.name == "oneStatement") // a parallel select is never kept
    }

    /// A script of calls covering every plan, their errors included, run twice on each side
    /// (a kept read's first and later calls differ).
    @Test(arguments: [false, true])
    func everyPlanGivesTheGeneralPathsResult(inFiles: Bool) throws {
        let folder = TemporaryFolder()
        let crypt = KeyRing([EncryptionKey.random()])
        let pair = try PlanPair(config: try DAOConfig(xml: plansXML, file: "plans.xml"), crypt: crypt, inFiles: inFiles ? folder : nil)
        func row(_ name: String, _ score: DAOValue, _ secret: DAOValue, _ tag: DAOValue = nil, model: Bool = false) -> DAOValue {
            let fields: [String: DAOValue] = ["name": .string(name), "score": score, "secret": secret, "tag": tag]
            return model ? .model("Row", fields) : .dictionary(fields)
        }
        for round in 0..<2 {
            let suffix = "\(round)"
            pair.expectSame("count")
            pair.expectSame("addAll", [[row("a" + suffix, 1.5, "plain", "x"), row("b" + suffix, 2, "hidden", model: true),
                                        row("c" + suffix, nil, nil, "x", model: true), .model("Row", ["name": .string("d" + suffix)])]])
            pair.expectSame("addAll", [[]])
            pair.expectSame("addAll", [nil])
            pair.expectSame("addAll", ["not a list"])
            pair.expectSame("addAll", [[row("e" + suffix, 1, nil), row("a" + suffix, 1, nil)]], "a unique violation mid-batch")
            pair.expectSame("addAll", [[["name": 5, "score": "x"], [1, 2], DAOValue.nil]], "elements that are not rows")
            pair.expectSame("scores", [[.string("a" + suffix), "missing", .string("b" + suffix)]])
            pair.expectSame("rowsNamed", [[.string("b" + suffix), .string("c" + suffix), "none"]])
            for id in [1, 2, 3, 4, 99] as [DAOValue] {
                for method in ["name", "get", "item", "model"] { pair.expectSame(method, [id]) }
            }
            pair.expectSame("name", [nil])
            pair.expectSame("get", [nil])
            pair.expectSame("name", [1, 2])
            pair.expectSame("firstAbove", [1.6])
            pair.expectSame("firstAbove", [100])
            pair.expectSame("tagged", [nil])
            pair.expectSame("tagged", ["x"])
            pair.expectSame("list", [nil, 0])
            pair.expectSame("list", ["x", 1])
            pair.expectSame("list", [["x"], 1], "a list where a value goes")
            pair.expectSame("nothing")
            pair.expectSame("mine")
            pair.planned.globalArguments = ["owner": "x"]
            pair.general.globalArguments = ["owner": "x"]
            pair.expectSame("mine")
            pair.expectSame("rename", [2, .string("renamed" + suffix)])
            pair.expectSame("rename", [nil, "x"])
            pair.expectSame("addReturning", [.string("returned" + suffix)])
            pair.expectSame("addReturning", [.string("returned" + suffix)], "a unique violation")
            pair.expectSame("setSecret", [.model("Item", ["id": 1, "secret": "s1"])])
            pair.expectSame("setSecret", [["id": 2, "secret": "s2"]])
            pair.expectSame("item", [1])
            pair.expectSame("model", [2])
            pair.expectSame("retag", [[], "y"])
            pair.expectSame("retag", [[1, 3], "y"])
            pair.expectSame("twoSteps", [.string("s" + suffix), .string("s" + suffix)])
            pair.expectSame("upsert", [.string("a" + suffix)])
            pair.expectSame("upsert", [.string("u" + suffix)])
            pair.expectSame("addSome", [[["name": .string("d1" + suffix), "score": 1], ["name": .string("d2" + suffix)]]])
            pair.expectSame("parallelList", ["y"])
            pair.expectSame("parallelGet", [1])
            try pair.expectSameRows(crypt: crypt)
        }
        // A decryptor that cannot read the rows fails every way alike.
        pair.planned.decryptor = KeyRing([EncryptionKey.random()])
        pair.general.decryptor = pair.planned.decryptor
        for method in ["item", "model"] { pair.expectSame(method, [1]) }
        pair.expectSame("list", [nil, 0])
        pair.expectSame("rowsNamed", [["a0", "b0"]])
        pair.expectSame("parallelList", ["y"])
        // Another table: set up again, kept reads included.
        pair.planned.tableName = "others"
        pair.general.tableName = "others"
        pair.expectSame("name", [1])
        pair.expectSame("addAll", [[row("z", 1, nil)]])
        pair.expectSame("name", [1])
        try pair.expectSameRows("others", crypt: crypt)
        // No table name: what needs one fails alike.
        pair.planned.tableName = ""
        pair.general.tableName = ""
        for method in ["count", "list", "addAll"] {
            pair.expectSame(method, method == "count" ? [] : method == "list" ? [nil, 0] : [[row("q", 1, nil)]])
        }
    }

    /// A single-row result reads its statement's first row only, on every plan: an error
    /// SQLite raises only on a later row (an integer overflow on row 2) fails no plan, and
    /// each gives the general path's result, the first row's value.
    @Test(arguments: [false, true])
    func aLaterRowsErrorFailsNoPlanOfASingleRowResult(inFiles: Bool) throws {
        let overflowOnRow2 = "case when id = 2 then abs(-9223372036854775808) else id end"
        let xml = """
            <module name="LaterRow" initializer="create" tableName="t" version="1.0">
              <update id="create">
                <step>create table if not exists ${T} (id integer primary key)</step>
                <step>insert or ignore into ${T} values (1), (2), (3)</step>
              </update>
              <select id="kept" arguments="min" result="int">select \(overflowOnRow2) from ${T} where id >= #{min} order by id</select>
              <select id="one" arguments="min" result="int">select \(overflowOnRow2) from ${T} <where><if true="min != nil">id >= #{min}</if></where> order by id</select>
              <select id="stepped" arguments="min" result="int"><step>select 0 where 0</step><step>select \(overflowOnRow2) from ${T} where id >= #{min} order by id</step></select>
              <select id="each" arguments="mins" foreach="mins.m" result="int">select \(overflowOnRow2) from ${T} where id >= #{m} order by id</select>
              <select id="pooled" arguments="min" result="int" parallel="true">select \(overflowOnRow2) from ${T} where id >= #{min} order by id</select>
              <select id="all" arguments="min" result="[int]">select \(overflowOnRow2) from ${T} where id >= #{min} order by id</select>
            </module>
            """
        let config = try DAOConfig(xml: xml, file: "later.xml")
        var plans: [String: String] = [:]
        for method in config.methods { plans[method.id] = method.plan.name }
        #expect(plans == ["create": "transaction", "kept": "keptRead", "one": "oneStatement", "stepped": "transaction",
                          "each": "staticForEach", "pooled": "poolRead", "all": "oneStatement"], "\(plans)")
        let folder = TemporaryFolder()
        let pair = try PlanPair(config: config, crypt: KeyRing.empty, inFiles: inFiles ? folder : nil)
        for _ in 0..<2 {   // a kept read's first and later calls differ
            for id in ["kept", "one", "stepped", "pooled"] {
                #expect(pair.expectSame(id, [1]).value == 1, "\(id)")
            }
            #expect(pair.expectSame("each", [[1, 3]]).value == [1, 3])
            // An array result reads every row: the overflow fails it, on both paths alike.
            #expect(pair.expectSame("all", [1]).error?.contains("integer overflow") == true)
        }
    }

    /// The project's own example, `examples/messages.xml`, the way an app calls it (and the
    /// shapes `bench dao` measures): a `%{}` foreach insert of models and of dictionaries,
    /// a select into the `:message` map, and `listMessages` with every filter.
    @Test func theMessagesExampleGivesTheGeneralPathsResult() throws {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../examples").standardized
        let config = try DAOConfig(contentsOfFile: examples.appendingPathComponent("messages.xml").path)
        #expect(try config.method("insertMessages", arity: 1).plan.name == "staticForEach")
        #expect(try config.method("getMessage", arity: 1).plan.name == "keptRead")
        #expect(try config.method("listMessages", arity: 4).plan.name == "oneStatement")
        let crypt = KeyRing([EncryptionKey.random()])
        let pair = try PlanPair(config: config, crypt: crypt)
        func message(_ i: Int, model: Bool) -> DAOValue {
            let fields: [String: DAOValue] = ["conversation": .string("c\(i % 3)"), "sender": .string(["ann", "bob"][i % 2]),
                                              "time": .integer(Int64(1000 + i)), "content": .string("message \(i)")]
            return model ? .model("MessageModel", fields) : .dictionary(fields)
        }
        pair.expectSame("insertMessages", [.array((0..<12).map { message($0, model: $0 % 2 == 0) })])
        pair.expectSame("insertMessage", [message(12, model: true)])
        pair.expectSame("insertMessages", [[message(13, model: true), ["conversation": "c0"]]], "a NOT NULL violation")
        for id in [1, 2, 13, 14] as [DAOValue] { pair.expectSame("getMessage", [id]) }
        pair.expectSame("getMessage", [nil])
        for arguments: [DAOValue] in [[nil, [], false, 0], ["c1", [], false, 10], ["c1", ["ann", "bob"], false, 3],
                                      ["c2", ["bob"], true, 10], [nil, ["ann"], nil, -1], ["c0", "ann", false, 1]] {
            pair.expectSame("listMessages", arguments)
        }
        pair.expectSame("markRead", [[1, 2, 3]])
        pair.expectSame("updateFlags", [4, nil, true])
        pair.expectSame("updateFlags", [4, nil, nil])
        pair.expectSame("countUnread", ["c1"])
        pair.expectSame("listMessages", [nil, [], true, 20])
        try pair.expectSameRows("messages", crypt: crypt)
    }

    /// The one-statement ways asked of a method of another shape (a foreach insert, steps)
    /// run it as the general path does, as they always have: not one statement to run alone.
    @Test func aOneStatementWayRunsOtherShapesAsTheGeneralPath() throws {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../examples").standardized
        let config = try DAOConfig(contentsOfFile: examples.appendingPathComponent("messages.xml").path)
        let pair = try PlanPair(config: config, crypt: KeyRing([EncryptionKey.random()]))
        let messages: DAOValue = [["conversation": "c1", "sender": "ann", "time": 1, "content": "hi"],
                                  ["conversation": "c1", "sender": "bob", "time": 2, "content": "yo"]]
        let oneStatement = try pair.planned.call("insertMessages", [messages], as: .oneStatement(nil))
        let general = try pair.general.call("insertMessages", [messages], as: .transaction)
        #expect(oneStatement.changes == 2 && general.changes == 2)
        #expect(oneStatement.statements == general.statements)
        #expect(try pair.planned.call("countUnread", ["c1"]).value == 2)
    }

    /// A table altered between calls of a dynamic select (`list`, `select *`, whose text
    /// the plan keeps per shape): SQLite prepares the statement of the kept text again and
    /// the rows take the new columns, as on the general path, whichever branches the
    /// arguments take.
    @Test func aTableAlteredBetweenCallsGivesTheGeneralPathsResult() throws {
        let crypt = KeyRing([EncryptionKey.random()])
        let pair = try PlanPair(config: try DAOConfig(xml: plansXML, file: "plans.xml"), crypt: crypt)
        pair.expectSame("addAll", [[["name": "a", "tag": "x"], ["name": "b", "tag": "y"], ["name": "c"]]])
        for arguments: [DAOValue] in [[nil, 0], ["x", 1], [nil, 2]] { pair.expectSame("list", arguments) }
        for dao in [pair.planned, pair.general] { try dao.executeUpdate(sql: "alter table items add column extra text default 'e'") }
        for arguments: [DAOValue] in [["x", 1], [nil, 0], [nil, 2], ["y", 0]] {
            let outcome = pair.expectSame("list", arguments)
            #expect(outcome.value?.elements?.first?.fields?["extra"] == "e", "\(arguments)")
        }
        for dao in [pair.planned, pair.general] { try dao.executeUpdate(sql: "alter table items drop column extra") }
        for arguments: [DAOValue] in [[nil, 0], ["x", 1]] {
            let outcome = pair.expectSame("list", arguments)
            #expect(outcome.value?.elements?.first?.fields?["extra"] == nil, "\(arguments)")
        }
        pair.expectSame("retag", [[], "z"])
        pair.expectSame("retag", [[1, 2], "z"])
        pair.expectSame("list", ["z", 0])
        pair.expectSame("list", [["z"], 0], "a list where a value goes")
        try pair.expectSameRows(crypt: crypt)
    }

    /// A batch finds an element's member as the dictionary does: by canonical equivalence,
    /// so a key written with the Kelvin sign is the member `K`, and a composed é is `e` with
    /// its accent.
    @Test func aBatchFindsMembersAsTheDictionaryDoes() throws {
        let xml = """
            <module name="K" initializer="create" tableName="t" version="1.0">
              <update id="create">create table if not exists ${T} (k, e, n)</update>
              <insert id="addAll" arguments="rows" foreach="rows.r">insert into ${T} (k, e, n) values (#{r.K}, #{r.cafe\u{301}}, #{r.n})</insert>
            </module>
            """
        let pair = try PlanPair(config: try DAOConfig(xml: xml, file: "k.xml"), crypt: KeyRing.empty)
        pair.expectSame("addAll", [[["\u{212A}": 1, "caf\u{E9}": 2, "n": 3], ["K": 4, "cafe\u{301}": 5], ["k": 6, "N": 7]]])
        #expect(try pair.planned.executeQuery(sql: "select k, e, n from t") == [["k": 1, "e": 2, "n": 3], ["k": 4, "e": 5, "n": .nil],
                                                                               ["k": .nil, "e": .nil, "n": .nil]])
        try pair.expectSameRows("t", crypt: KeyRing.empty)
    }

    /// Seeded random calls of the plans config, with random arguments, on both sides.
    @Test(arguments: [UInt64(21), 22, 23])
    func randomCallsGiveTheGeneralPathsResult(seed: UInt64) throws {
        let crypt = KeyRing([EncryptionKey.random()])
        let pair = try PlanPair(config: try DAOConfig(xml: plansXML, file: "plans.xml"), crypt: crypt)
        var rng = SplitMix64(seed: seed)
        func scalar() -> DAOValue {
            switch Int.random(in: 0..<7, using: &rng) {
            case 0: return .nil
            case 1: return .integer(Int64.random(in: -3...12, using: &rng))
            case 2: return .double(Double(Int.random(in: 0...8, using: &rng)) / 2)
            case 3: return .bool(Bool.random(using: &rng))
            case 4: return .data(Data([1, 2, 3]))
            default: return .string(["a", "b", "x", "y", "é", "", "it's"].randomElement(using: &rng)!)
            }
        }
        func row() -> DAOValue {
            var fields: [String: DAOValue] = [:]
            for name in ["name", "score", "secret", "tag", "id"] where Int.random(in: 0..<4, using: &rng) > 0 { fields[name] = scalar() }
            switch Int.random(in: 0..<8, using: &rng) {
            case 0: return .model("Row", fields)
            case 1: return .model("Item", fields)
            case 2: return scalar()
            default: return .dictionary(fields)
            }
        }
        func list() -> DAOValue {
            Int.random(in: 0..<10, using: &rng) == 0 ? scalar() : .array((0..<Int.random(in: 0..<5, using: &rng)).map { _ in row() })
        }
        let config = pair.planned.config
        for _ in 0..<300 {
            let method = config.methods.randomElement(using: &rng)!
            var arguments: [DAOValue] = method.arguments.map { _ in Bool.random(using: &rng) ? list() : scalar() }
            if Int.random(in: 0..<20, using: &rng) == 0 { arguments.append(nil) } // a wrong argument count
            pair.expectSame(method.id, arguments, "seed \(seed)")
        }
        try pair.expectSameRows(crypt: crypt)
    }
}

/// The simple mapping a `RowLayout` stands for: each column in turn, its field named by the
/// map (or the column itself), decrypted when a crypt rule covers the class and field. Kept
/// here as the reference the layouts are pinned to.
private func simplyMapped(_ row: Row, _ element: DAOResultType.Element, maps: [String: DAOMap], rules: Set<DAOCryptRule>,
                          decryptor: any DataCrypt) throws -> DAOValue {
    func decrypted(_ value: DatabaseValue, _ className: String, _ property: String) throws -> DAOValue {
        guard rules.contains(DAOCryptRule(className: className, property: property)), case .blob(let c) = value else { return DAOValue(value) }
        return try CryptColumn.decrypt(c, with: decryptor)
    }
    switch element {
    case .model(let className):
        var fields: [String: DAOValue] = [:]
        for (column, value) in zip(row.columnNames, row.values) { fields[column] = try decrypted(value, className, column) }
        return .model(className, fields)
    case .map(let id):
        guard let map = maps[id] else { throw DAOError.resultMapping("no map '\(id)'") }
        var fields: [String: DAOValue] = [:]
        for (column, value) in zip(row.columnNames, row.values) {
            let property = map.property(forColumn: column)
            fields[property] = try decrypted(value, map.className, property)
        }
        return .model(map.className, fields)
    case .dictionary:
        return .dictionary(Dictionary(zip(row.columnNames, row.values.map(DAOValue.init)), uniquingKeysWith: { _, last in last }))
    default:
        return ResultMapper.scalar(row.values.first ?? .null, as: element) ?? .nil
    }
}

@Suite struct RowLayoutTests {
    /// Rows of random columns (duplicates, names differing in case, mapped and encrypted
    /// ones) map through layouts, from `Row`s and straight from statements, as the simple
    /// mapping maps them, errors included.
    @Test(arguments: [UInt64(31), 32, 33])
    func layoutsMapAsTheSimpleMapping(seed: UInt64) throws {
        let config = try DAOConfig(xml: """
            <module name="L" tableName="t">
              <map id="m" result="M"><result property="ident" column="id"/><result property="Secret" column="s"/></map>
              <crypt class="M" property="Secret"/>
              <crypt class="M" property="s"/>
              <crypt class="K" property="s"/>
            </module>
            """, file: "layouts.xml")
        let crypt = KeyRing([EncryptionKey.random()])
        let otherKey = KeyRing([EncryptionKey.random()])
        let mapper = ResultMapper(config: config, decryptor: crypt, registry: DAOModelRegistry())
        var rng = SplitMix64(seed: seed)
        let names = ["id", "ID", "s", "S", "name", "Secret", "ident", "x"]
        let elements: [DAOResultType.Element] = [.map("m"), .model("K"), .model("M"), .dictionary, .map("missing"), .string, .int]
        let db = try Database.inMemory()
        for round in 0..<200 {
            let columns = (0..<Int.random(in: 1...5, using: &rng)).map { _ in names.randomElement(using: &rng)! }
            var values: [DatabaseValue] = []
            for _ in columns {
                switch Int.random(in: 0..<7, using: &rng) {
                case 0: values.append(.null)
                case 1: values.append(.integer(Int64.random(in: 0...9, using: &rng)))
                case 2: values.append(.text("t\(round)"))
                case 3: values.append(.blob(try crypt.encrypt(Data("secret \(round)".utf8))))
                case 4: values.append(.blob(Data([0, 1, 2])))
                case 5: values.append(.blob(try otherKey.encrypt(Data("not ours \(round)".utf8)))) // fails unlike the line above
                default: values.append(.real(0.5))
                }
            }
            let row = Row(columnNames: columns, values: values)
            for element in elements {
                for isArray in [false, true] {
                    let type = DAOResultType(isArray ? "[\(element.text)]" : element.text)!
                    let expected = Result { () throws -> DAOValue in
                        let value = try simplyMapped(row, element, maps: config.maps, rules: config.cryptRules, decryptor: crypt)
                        return isArray ? .array([value, value]) : value
                    }
                    let fromRows = Result { try mapper.map([row, row], as: type).0 }
                    #expect(same(fromRows, expected), "seed \(seed): \(row) as \(type)")
                    // The same row straight from a statement.
                    let select = "select " + values.indices.map { "?\($0 + 1) as \"\(columns[$0])\"" }.joined(separator: ", ")
                        + " union all select " + values.indices.map { "?\($0 + 1)" }.joined(separator: ", ")
                    let statement = try db.cachedStatement(select)
                    let collector = ResultCollector(type, mapper: mapper)
                    try statement.forEachRow(values: values) { collector.add($0); return true }
                    let fromStatement = Result { try collector.finish().0 }
                    #expect(same(fromStatement, expected), "seed \(seed): \(row) as \(type)")
                }
            }
        }
    }
}

extension RowLayoutTests {
    /// Two encrypted columns of a row that fail differently: the first column's error is
    /// reported, whichever order the columns come in.
    @Test func theFirstColumnThatFailsIsReported() throws {
        let config = try DAOConfig(xml: """
            <module name="L" tableName="t"><crypt class="M" property="a"/><crypt class="M" property="b"/></module>
            """, file: "first.xml")
        let crypt = KeyRing([EncryptionKey.random()])
        let mapper = ResultMapper(config: config, decryptor: crypt, registry: DAOModelRegistry())
        let short = DatabaseValue.blob(Data([0, 1, 2]))
        let foreign = DatabaseValue.blob(try KeyRing([EncryptionKey.random()]).encrypt(Data("other key".utf8)))
        func error(_ columns: [String], _ values: [DatabaseValue]) -> String {
            do {
                _ = try mapper.map([Row(columnNames: columns, values: values)], as: DAOResultType("M"))
                return "no error"
            } catch {
                return String(describing: error)
            }
        }
        let shortError = error(["a"], [short])
        let foreignError = error(["b"], [foreign])
        #expect(shortError != foreignError)
        for (first, second) in [("a", "b"), ("b", "a")] {
            #expect(error([first, second], [short, foreign]) == shortError)
            #expect(error([first, second], [foreign, short]) == foreignError)
        }
    }
}

/// True when both mapped the same value, or failed with the same error.
private func same(_ a: Result<DAOValue, any Error>, _ b: Result<DAOValue, any Error>) -> Bool {
    switch (a, b) {
    case (.success(let x), .success(let y)): return x == y
    case (.failure(let x), .failure(let y)): return String(describing: x) == String(describing: y)
    default: return false
    }
}

private extension DAOResultType.Element {
    /// The `result` text of the element.
    var text: String {
        switch self {
        case .int: return "int"
        case .longLong: return "long long"
        case .bool: return "bool"
        case .double: return "double"
        case .string: return "string"
        case .binary: return "binary"
        case .dictionary: return "{}"
        case .model(let name): return name
        case .map(let id): return ":" + id
        }
    }
}
