import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

/// Wraps methods in a module and loads it from memory.
func makeConfig(_ body: String, module: String = #"name="demo" tableName="t""#, file: String = "demo.xml") throws -> DAOConfig {
    try DAOConfig(xml: "<module \(module)>\n\(body)\n</module>\n", file: file)
}

/// Renders a single-statement call.
func renderOne(_ config: DAOConfig, _ id: String, _ args: [DAOValue], globals: [String: DAOValue] = [:],
               table: String? = nil) throws -> RenderedSQL {
    let call = try config.render(id, arguments: args, globals: globals, tableName: table)
    guard case .statement(let s)? = call.runs.first, call.runs.count == 1 else {
        Issue.record("expected one statement, got \(call.runs)")
        return RenderedSQL(sql: "", bindings: [], preview: "")
    }
    return s
}

@Test func dialectEndToEndExample() throws {
    let config = try makeConfig("""
        <update id="proc" arguments="list, prefix">
          select 1 where 'x' in
          <foreach item="it" collection="list" open="(" separator="," close=")">@{prefix} || @{it}</foreach>
        </update>
        """)
    let sql = try renderOne(config, "proc", [["1", "2", "3"], "abc"])
    #expect(sql.sql == "select 1 where 'x' in ('abc' || '1','abc' || '2','abc' || '3')")
    #expect(sql.bindings.isEmpty)
    #expect(sql.preview == "select 1 where 'x' in (⟦'abc'⟧ || ⟦'1'⟧,⟦'abc'⟧ || ⟦'2'⟧,⟦'abc'⟧ || ⟦'3'⟧)")
}

@Test func referenceFindExampleBindsHashAndInlinesAt() throws {
    let config = try makeConfig("""
        <select id="find" arguments="id, time" result="{}">
          select * from ${T} where id = #{id} and time > @{time}
        </select>
        """, module: #"name="demo" tableName="tableDemo""#)
    let sql = try renderOne(config, "find", [1234, 2014])
    #expect(sql.sql == "select * from tableDemo where id = ? and time > 2014")
    #expect(sql.bindings == [.integer(1234)])
    #expect(sql.preview == "select * from tableDemo where id = 1234 and time > ⟦2014⟧")
}

@Test func injectionPayloadStaysAQuotedLiteral() throws {
    let config = try makeConfig("""
        <select id="byName" arguments="name">select * from ${T} where name = @{name}</select>
        """)
    let payload: DAOValue = "x'; DROP TABLE t; --"
    let sql = try renderOne(config, "byName", [payload])
    #expect(sql.sql == "select * from t where name = 'x''; DROP TABLE t; --'")

    // And SQLite agrees: it is one literal, the table survives.
    let db = try Database.inMemory()
    try db.execute("create table t(name text)")
    try db.execute("insert into t values ('x''; DROP TABLE t; --')")
    let rows = try db.query(sql.sql)
    #expect(rows.count == 1)
    #expect(try db.scalar("select count(*) from sqlite_master where name = 't'") == .integer(1))
}

@Test func atReferenceFormatsEachKindOfValue() throws {
    #expect(ReferenceNode.inline(.nil, raw: false) == "NULL")
    #expect(ReferenceNode.inline(.bool(true), raw: false) == "1")
    #expect(ReferenceNode.inline(.double(1.5), raw: false) == "1.5")
    #expect(ReferenceNode.inline(.data(Data([0xAB, 1])), raw: false) == "X'AB01'")
    #expect(ReferenceNode.inline(["a"], raw: false) == #"'["a"]'"#)
    #expect(ReferenceNode.inline("it's", raw: true) == "it's")
    #expect(ReferenceNode.inline("it's\nok", raw: false) == "'it''s\nok'")
    #expect(ReferenceNode.inline("a\u{0}b", raw: false) == nil)
    #expect(ReferenceNode.inline("a\u{0}b", raw: true) == nil)
}

@Test func orEmptyAndNilHandling() throws {
    let config = try makeConfig("""
        <select id="a" arguments="x">select #{x}, #{x or ""}, @{x}, @{x or ""}</select>
        """)
    let sql = try renderOne(config, "a", [nil])
    #expect(sql.sql == "select ?, ?, NULL, ''")
    #expect(sql.bindings == [.null, .text("")])
}

@Test func chainedAccessGlobalsAndCount() throws {
    struct Model: Encodable { var content: String; var tags: [String] }
    let config = try makeConfig("""
        <insert id="add" arguments="model, adict">
          insert into ${T} (content, n, k, uid) values (#{model.content}, #{model.tags.count}, #{adict.key}, #{uid})
        </insert>
        """)
    let sql = try renderOne(config, "add", [try DAOValue(encoding: Model(content: "c", tags: ["a", "b"])), ["key": "v"]],
                            globals: ["uid": "u1"])
    #expect(sql.sql == "insert into t (content, n, k, uid) values (?, ?, ?, ?)")
    #expect(sql.bindings == [.text("c"), .integer(2), .text("v"), .text("u1")])
}

@Test func whereStripsLeadingAndOrAndSetStripsTrailingComma() throws {
    let config = try makeConfig("""
        <select id="s" arguments="state, title, author">
          select * from ${T}
          <where>
            <if true="state != nil">state = #{state}</if>
            <if true="title != nil">AND title like #{title}</if>
            <if true="author != nil and author.name != nil">and author_name like #{author.name}</if>
          </where>
          order by id
        </select>
        <update id="u" arguments="username, email">
          update ${T} <set>
            <if true="username != nil">username=#{username},</if>
            <if true="email != nil">email=#{email},</if>
          </set> where id = 1
        </update>
        """)
    #expect(try renderOne(config, "s", [nil, nil, ["name": "ann"]]).sql == "select * from t WHERE author_name like ? order by id")
    #expect(try renderOne(config, "s", [nil, "x", nil]).sql == "select * from t WHERE title like ? order by id")
    #expect(try renderOne(config, "s", ["on", "x", nil]).sql == "select * from t WHERE state = ? AND title like ? order by id")
    #expect(try renderOne(config, "s", [nil, nil, nil]).sql == "select * from t order by id")
    #expect(try renderOne(config, "u", ["bo", "e@x"]).sql == "update t SET username=?, email=? where id = 1")
    #expect(try renderOne(config, "u", ["bo", nil]).sql == "update t SET username=? where id = 1")
    #expect(try renderOne(config, "u", [nil, nil]).sql == "update t where id = 1")
}

@Test func trimWithCustomOverridesAndWordBoundaries() throws {
    let config = try makeConfig("""
        <select id="s" arguments="a">
          select 1 <trim prefix="WHERE" prefixOverrides="AND | OR | and | or "> ORDER_NO = #{a} </trim>
        </select>
        <select id="p" arguments="a">
          select 1 <where> or(a = #{a}) </where>
        </select>
        """)
    // "ORDER_NO" starts with OR but is a column, not the operator.
    #expect(try renderOne(config, "s", [1]).sql == "select 1 WHERE ORDER_NO = ?")
    #expect(try renderOne(config, "p", [1]).sql == "select 1 WHERE (a = ?)")
}

@Test func onVoidQuitSkipsAndIgnoreAfterStops() throws {
    let config = try makeConfig("""
        <delete id="q" arguments="id">delete from ${T} <where onVoid="quit"><if true="id != nil">id = #{id}</if></where></delete>
        <select id="i" arguments="id">select * from ${T} <where onVoid="ignoreAfter"><if true="id != nil">id = #{id}</if></where> limit 1</select>
        """)
    #expect(try renderOne(config, "q", [nil]).skipped)
    #expect(try renderOne(config, "q", [3]).sql == "delete from t WHERE id = ?")
    #expect(try renderOne(config, "i", [nil]).sql == "select * from t")
    #expect(try renderOne(config, "i", [2]).sql == "select * from t WHERE id = ? limit 1")
}

@Test func chooseTakesTheFirstMatch() throws {
    let config = try makeConfig("""
        <select id="c" arguments="title, author">
          select * from ${T} where 1
          <choose>
            <when true="title != nil">AND title like #{title}</when>
            <when false="author == nil">AND author_name like #{author}</when>
            <otherwise>AND featured = 1</otherwise>
          </choose>
        </select>
        """)
    #expect(try renderOne(config, "c", ["a", "b"]).sql == "select * from t where 1 AND title like ?")
    #expect(try renderOne(config, "c", [nil, "b"]).sql == "select * from t where 1 AND author_name like ?")
    #expect(try renderOne(config, "c", [nil, nil]).sql == "select * from t where 1 AND featured = 1")
}

@Test func foreachReverseEmptyAndBinding() throws {
    let config = try makeConfig("""
        <select id="f" arguments="ids">
          select * from ${T} where id in
          <foreach item="id" collection="ids" open="(" separator="," close=")" reverse="yes">
            #{id}
          </foreach>
        </select>
        """)
    let sql = try renderOne(config, "f", [[1, 2, 3]])
    #expect(sql.sql == "select * from t where id in (?,?,?)")
    #expect(sql.bindings == [.integer(3), .integer(2), .integer(1)])
    #expect(try renderOne(config, "f", [[]]).sql == "select * from t where id in")
    #expect(throws: DAOError.self) { try renderOne(config, "f", ["not a list"]) }
}

@Test func formatRendersSortedPairsAndNothingWhenEmpty() throws {
    let config = try makeConfig("""
        <update id="u" arguments="values, id">update ${T} <format prefix="set" pairs="values" join=","/> where id = #{id}</update>
        """)
    let sql = try renderOne(config, "u", [["b": 2, "a": "x"], 9])
    #expect(sql.sql == "update t set a = ?, b = ? where id = ?")
    #expect(sql.bindings == [.text("x"), .integer(2), .integer(9)])
    #expect(try renderOne(config, "u", [[:], 9]).sql == "update t where id = ?")
    #expect(throws: DAOError.self) { try renderOne(config, "u", [["a b": 1], 9]) }
}

@Test func templateExpansionAndConstsHoldingReferences() throws {
    let config = try makeConfig("""
        <const cols="(tplId, data)" vals="%{'#{model.*}', tplId, data}"/>
        <insert id="ins" arguments="model">
          insert into ${T} ${cols} values(${vals})
        </insert>
        <update id="upd" arguments="model">
          update ${t} set %{'* = #{model.*}', data, tag} where tplId = #{model.tplId}
        </update>
        """)
    let model: DAOValue = ["tplId": 1, "data": "d", "tag": "g"]
    let ins = try renderOne(config, "ins", [model])
    #expect(ins.sql == "insert into t (tplId, data) values(?, ?)")
    #expect(ins.bindings == [.integer(1), .text("d")])
    let upd = try renderOne(config, "upd", [model])
    #expect(upd.sql == "update t set data = ?, tag = ? where tplId = ?")
}

@Test func methodLevelForeachStepsAndTryRenderStructure() throws {
    let config = try makeConfig("""
        <insert id="addAll" arguments="messages" foreach="messages.model">
          <try>
            insert into ${T} (id, c) values(#{model.id}, #{model.c})
            <except>update ${T} set c = #{model.c} where id = #{model.id}</except>
          </try>
        </insert>
        <update id="create">
          <step>create table if not exists ${T} (id integer primary key, c text)</step>
          <step resumable="true">create index if not exists c_idx on ${T} (c)</step>
        </update>
        """)
    let call = try config.render("addAll", arguments: [[["id": 1, "c": "a"], ["id": 2, "c": "b"]]])
    #expect(call.isForEach)
    #expect(call.runs.count == 2)
    guard case .tryExcept(.statement(let attempt), .statement(let fallback)) = call.runs[1] else {
        Issue.record("expected try/except"); return
    }
    #expect(attempt.sql == "insert into t (id, c) values(?, ?)")
    #expect(attempt.bindings == [.integer(2), .text("b")])
    #expect(fallback.sql == "update t set c = ? where id = ?")

    let create = try config.render("create", arguments: [])
    guard case .steps(let steps) = create.runs[0] else { Issue.record("expected steps"); return }
    #expect(steps.map(\.resumable) == [false, true])
    #expect(steps[1].statement.sql == "create index if not exists c_idx on t (c)")
}

@Test func requiredArgumentsAndOverloadsAreCheckedBeforeRendering() throws {
    let config = try makeConfig("""
        <select id="get" arguments="$id">select * from ${T} where id = #{id}</select>
        <select id="get" arguments="id, name">select * from ${T} where id = #{id} and name = #{name}</select>
        """)
    #expect(throws: DAOError.self) { try config.render("get", arguments: [nil]) }
    #expect(try renderOne(config, "get", [nil, "n"]).bindings == [.null, .text("n")])
    #expect(try renderOne(config, "get", [1]).sql == "select * from t where id = ?")
    do {
        _ = try config.render("get", arguments: [1, 2, 3])
        Issue.record("expected an arity error")
    } catch let error as DAOError {
        #expect(error.description == "method 'get' takes 1 or 2 argument(s), 3 given")
    }
    do {
        _ = try config.render("gte", arguments: [1])
        Issue.record("expected an unknown method error")
    } catch let error as DAOError {
        #expect(error.description == "unknown method 'gte' (did you mean 'get'?)")
    }
}

@Test func tableNameIsSettableAndQuotedWhenNotAnIdentifier() throws {
    let config = try makeConfig(#"<select id="a">select * from ${T}</select>"#, module: #"name="m" tableName="""#)
    #expect(try renderOne(config, "a", [], table: "chat_42").sql == "select * from chat_42")
    #expect(try renderOne(config, "a", [], table: "x\"; drop").sql == "select * from \"x\"\"; drop\"")
    #expect(throws: DAOError.self) { try renderOne(config, "a", []) }
}

@Test func whitespaceCollapsesOutsideQuotesAndCommentsKeepTheirNewline() throws {
    let config = try makeConfig("""
        <select id="a">
          select   'a   b'  -- note
             from    ${T}
        </select>
        """)
    #expect(try renderOne(config, "a", []).sql == "select 'a   b' -- note\nfrom t")
}

@Test func cryptPropertiesAreMarkedForEncryption() throws {
    struct MessageModel: Encodable { var id: Int; var content: String }
    let config = try makeConfig("""
        <crypt class="MessageModel" property="content"/>
        <insert id="ins" arguments="model">insert into ${T} (id, content) values(#{model.id}, @{model.content})</insert>
        """)
    let sql = try renderOne(config, "ins", [try DAOValue(encoding: MessageModel(id: 1, content: "secret"))])
    #expect(sql.sql == "insert into t (id, content) values(?, ?)")
    #expect(sql.encryptedBindings == [1])
    #expect(sql.preview == "insert into t (id, content) values(1, 'secret'/*encrypted*/)")
    // A dictionary is not of the class: nothing encrypted.
    #expect(try renderOne(config, "ins", [["id": 1, "content": "x"]]).encryptedBindings.isEmpty)
}

@Test func expressionTypeErrorsAtRenderTimeNameTheLocation() throws {
    let config = try makeConfig("""
        <select id="a" arguments="n">select 1 <if true="n + 'x' > 1">where 1</if></select>
        """)
    do {
        _ = try config.render("a", arguments: [1])
        Issue.record("expected an error")
    } catch let error as DAOError {
        #expect(error.description.hasPrefix("demo.xml:2:"))
        #expect(error.description.contains("cannot apply '+' to an integer and a string"))
    }
}

@Test func summariesAreJSONReadyForTheCommandLine() throws {
    let config = try makeConfig("""
        <select id="find" arguments="$id, name" result="[{}]">select * from ${T} where id = #{id} and name = @{name}</select>
        """)
    let call = try config.render("find", arguments: [try DAOValue(parsingJSON: "7"), try DAOValue(parsingJSON: #""ann""#)])
    #expect(call.summary.jsonText == #"{"foreach":false,"kind":"select","method":"find","runs":[{"statement":{"bindings":["7"],"encryptedBindings":[],"location":"demo.xml:2:1","preview":"select * from t where id = 7 and name = ⟦'ann'⟧","skipped":false,"sql":"select * from t where id = ? and name = 'ann'"}}]}"#)
    let method = try config.method("find", arity: 2)
    #expect(method.summary.member("arguments") == [["name": "id", "required": true], ["name": "name", "required": false]])
    #expect(try DAOValue(parsingJSON: #"{"a": [1, 2.5, null, true]}"#) == ["a": [1, 2.5, nil, true]])
}

/// Where one element's text meets the text around it, two tokens never fuse: `1` then `and`
/// (from the next `<if>`) is `1 and`, not `1and`; `?` then `or` is `? or`; a `?` never runs
/// into a number (`?1` is another parameter). Nothing else changes: spaces already there stay
/// one, `${T}_log` stays one name, punctuation needs none. A text cache (what a DAO object's
/// calls use) keeps and gives back the same text.
@Test func adjacentElementsNeverFuseTwoTokens() throws {
    let config = try makeConfig("""
        <select id="ifs" arguments="a,b">select * from ${T} <where><if true="a">a = 1</if><if true="b">and b = 2</if></where></select>
        <select id="after" arguments="a">select * from ${T} where x = 1<if true="a">and a = #{a}</if></select>
        <select id="bound" arguments="a">select * from ${T} where x = #{a}<if true="a">or 1</if></select>
        <select id="number" arguments="a">select #{a}<if true="a">1</if></select>
        <select id="spaced" arguments="a">select * from ${T} where x = 1 <if true="a"> and a = 2 </if> order by x</select>
        <select id="punctuation" arguments="a">select count(*)<if true="a">,max(x)</if> from ${T}_log</select>
        """)
    for _ in 0..<2 {
        #expect(try renderOne(config, "ifs", [1, 1]).sql == "select * from t WHERE a = 1 and b = 2")
        #expect(try renderOne(config, "after", [1]).sql == "select * from t where x = 1 and a = ?")
        #expect(try renderOne(config, "bound", [5]).sql == "select * from t where x = ? or 1")
        #expect(try renderOne(config, "number", [5]).sql == "select ? 1")
        #expect(try renderOne(config, "spaced", [1]).sql == "select * from t where x = 1 and a = 2 order by x")
        #expect(try renderOne(config, "punctuation", [1]).sql == "select count(*),max(x) from t_log")
        #expect(try renderOne(config, "ifs", [0, 1]).sql == "select * from t WHERE b = 2")
    }
    let method = try config.method("ifs", arity: 2)
    guard case .sql(let template) = method.body, let cache = RenderedTextCache(template: template, arguments: method.arguments) else {
        Issue.record("ifs has no text cache")
        return
    }
    for _ in 0..<2 {
        let call = try Renderer.render(method, arguments: [1, 1], globals: [:], tableName: "t", cryptRules: [], textCache: cache)
        guard case .statement(let rendered)? = call.runs.first else { Issue.record("\(call.runs)"); return }
        #expect(rendered.sql == "select * from t WHERE a = 1 and b = 2")
    }
}
