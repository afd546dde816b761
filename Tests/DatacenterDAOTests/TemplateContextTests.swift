import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

// MARK: Values only in plain SQL, except @{} inside quotes

@Test func aReferenceInsideACommentOrABoundOneInsideQuotesIsALoadErrorWithItsLocation() throws {
    let cases: [(String, String, Int, Int)] = [
        ("<select id=\"a\" arguments=\"v\">select 1 -- @{v}\n from ${T}</select>", "-- comment", 3, 42),
        (#"<select id="a" arguments="v">select 1 /* @{v} */</select>"#, "/* */ comment", 3, 42),
        (#"<select id="a" arguments="v">select * from ${T} where name = '#{v}'</select>"#, "string literal", 3, 63),
        (##"<select id="a" arguments="v">select "#{v}" from ${T}</select>"##, "quoted identifier", 3, 38),
        (#"<select id="a">select 1 -- ${T}\n</select>"#, "-- comment", 3, 28),
        // Across nodes: the comment opens before an <if>, the reference stands inside it.
        (#"<select id="a" arguments="v">select 1 /* x <if true="v">@{v}</if> */</select>"#, "/* */ comment", 3, 57),
    ]
    for (body, context, line, column) in cases {
        let error = try #require(contextLoadError("\n" + body), "loaded: \(body)")
        #expect(error.description.contains(context), "\(error)")
        #expect(error.location == SourceLocation(file: "ctx.xml", line: line, column: column), "\(error) for \(body)")
        // The fix names the place the reference must leave: a comment is not quotes.
        let place = context.hasSuffix("comment") ? "outside the comment" : "outside the quotes"
        #expect(error.description.contains(place), "\(error)")
        if context.hasSuffix("comment") { #expect(!error.description.contains("quote"), "\(error)") }
    }
    // Quotes that only look alike: doubled quotes, a quote inside a comment, `--` in a string.
    for body in [#"<select id="a" arguments="v">select 'it''s', "a""b", @{v}</select>"#,
                 "<select id=\"a\" arguments=\"v\">select 1 -- it's\n , @{v}</select>",
                 #"<select id="a" arguments="v">select '--', '/*', @{v} /* ' */, #{v}</select>"#] {
        #expect(contextLoadError(body) == nil, "\(body)")
    }
}

/// As the references say: "if the user has added quotes in the configuration file, the
/// underlying layer will not add the quotes again", and `@{x no ""}` adds none. The value's
/// text goes inside the template's quotes with the closing quote doubled.
@Test func anAtReferenceInsideQuotesWritesItsTextWithTheQuoteDoubled() throws {
    let config = try makeConfig(#"""
        <select id="name" arguments="v">select * from ${T} where name = '@{v}'</select>
        <select id="ident" arguments="v">select "@{v}" from ${T}</select>
        <select id="tick" arguments="v">select `@{v}` from ${T}</select>
        <select id="bracket" arguments="v">select [@{v}] from ${T}</select>
        <select id="across" arguments="v">select 'x <if true="v">@{v}</if>'</select>
        <select id="empty" arguments="v">select '@{v or ""}'</select>
        <select id="plain" arguments="v">select '@{v}'</select>
        """#)
    #expect(try renderOne(config, "name", ["O'Brien"]).sql == "select * from t where name = 'O''Brien'")
    #expect(try renderOne(config, "ident", [#"a" from t; drop table t; --"#]).sql == #"select "a"" from t; drop table t; --" from t"#)
    #expect(try renderOne(config, "tick", ["a`b"]).sql == "select `a``b` from t")
    #expect(try renderOne(config, "bracket", ["a b"]).sql == "select [a b] from t")
    #expect(try renderOne(config, "across", ["it's"]).sql == "select 'x it''s'")
    #expect(try renderOne(config, "empty", [nil]).sql == "select ''")
    #expect(try renderOne(config, "plain", [42]).sql == "select '42'")
    #expect(try renderOne(config, "plain", [1.5]).sql == "select '1.5'")
    #expect(try renderOne(config, "plain", [true]).sql == "select '1'")
    #expect(try renderOne(config, "plain", [.array(["a'b"])]).sql == #"select '["a''b"]'"#)
    #expect(try renderOne(config, "name", ["O'Brien"]).preview.contains("O''Brien"))
    for (id, value, reason) in [("bracket", DAOValue.string("a]b"), "]"), ("plain", .nil, "is nil inside a string literal"),
                                ("plain", .string("a\u{0}b"), "NUL")] {
        #expect(throws: DAOError.self, "\(id) \(value)") { _ = try renderOne(config, id, [value]) }
        do { _ = try renderOne(config, id, [value]) } catch { #expect("\(error)".contains(reason), "\(error)") }
    }
}

/// The references' own example (seed 000/001): `'@{prefix no ""}@{it no ""}'` in a foreach.
@Test func theReferencesQuotedForEachExampleRendersAsDocumented() throws {
    let config = try makeConfig("""
        <update id="proc" arguments="list, prefix">
          select 1 where 'x' in
          <foreach item="it" collection="list" open="(" separator="," close=")">'@{prefix no ""}@{it no ""}'</foreach>
        </update>
        """)
    let sql = try renderOne(config, "proc", [["1", "2", "3"], "abc"]).sql
    #expect(sql.hasSuffix("('abc1','abc2','abc3')"), "\(sql)")
    // A quote in a value stays inside the literal even with no "".
    let hostile = try renderOne(config, "proc", [["1') or 1=1; drop table t; --"], "abc"]).sql
    #expect(hostile.hasSuffix("('abc1'') or 1=1; drop table t; --')"), "\(hostile)")
}

@Test func lintWarnsOfAValueInsideQuotesAndRefusesABoundOne() {
    func lint(_ method: String) -> [DAOLintDiagnostic] {
        DAOLinter.lint(xml: "<module name=\"m\" tableName=\"t\">\n  \(method)\n</module>\n", file: "ctx.xml")
    }
    let atInQuotes = lint(#"<select id="a" arguments="col">select "@{col}" from ${T}</select>"#)
    #expect(atInQuotes.contains { $0.severity == .warning
        && $0.description.hasPrefix("ctx.xml:2:42: warning: @{col} inside a quoted identifier (\"…\") writes the value's text") }, "\(atInQuotes)")
    #expect(!atInQuotes.contains { $0.severity == .error }, "\(atInQuotes)")
    let hashInQuotes = lint(##"<select id="b" arguments="col">select "#{col}" from ${T}</select>"##)
    #expect(hashInQuotes.contains { $0.severity == .error && $0.description.contains("#{col} inside a quoted identifier") }, "\(hashInQuotes)")
}

/// The attacks the refusal stopped stay harmless now that the forms load: a stacked DROP
/// through a quoted identifier or a string literal is one identifier or one literal.
@Test func theReportedQuotedIdentifierAttackStaysOneIdentifier() throws {
    let (dao, queue) = try daoWithVictim("""
        <select id="pick" arguments="col" result="[{}]">select "@{col}" from ${T}</select>
        <select id="named" arguments="v" result="[{}]">select * from ${T} where name = '@{v}'</select>
        <select id="ticked" arguments="col" result="[{}]">select `@{col}` from ${T}</select>
        """)
    // SQLite reads a double-quoted name that is no column as a string: the whole payload
    // comes back as one value, nothing after it ran.
    let payload = #"name" from items; drop table victim; --"#
    #expect(try dao.call("pick", [.string(payload)]).value.elements?.first?.fields?.values.first == .string(payload))
    #expect(try victimExists(queue))
    #expect(try dao.call("pick", ["name"]).value == .array([["name": "a"], ["name": "b"]]))
    #expect(try dao.call("named", ["a'; drop table victim; --"]).value == .array([]))
    #expect(try victimExists(queue))
    #expect(throws: DAOError.self) { try dao.call("ticked", ["name` from items; drop table victim; --"]) }
    #expect(try victimExists(queue))
}

// MARK: Inlined values

@Test func aQuoteFollowedByACombiningMarkStaysInsideTheLiteral() throws {
    let (dao, queue) = try daoWithVictim("""
        <select id="echo" arguments="v" result="string">select @{v}</select>
        """)
    for value in ["x'\u{301}", "x'\u{301} || (select 1); drop table victim; --", "a\nb'c\r\n", "\u{1F600}'"] {
        #expect(try dao.call("echo", [.string(value)]).value == .string(value), "\(value.debugDescription)")
    }
    #expect(try victimExists(queue))
}

@Test func aNegativeNumberAfterAMinusIsNotAComment() throws {
    let (dao, _) = try daoWithVictim("""
        <select id="diff" arguments="n" result="long long">select 10 -@{n}</select>
        <select id="half" arguments="n" result="double">select 10 -@{n}</select>
        """)
    #expect(try dao.call("diff", [-5]).value == 15)
    #expect(try dao.call("half", [-2.5]).value == .double(12.5))
}

@Test func aValueHoldingNULIsRefusedNotTruncated() throws {
    let (dao, queue) = try daoWithVictim("""
        <delete id="remove" arguments="id">delete from ${T} where id = @{id no ""} and owner = 'bob'</delete>
        """)
    // Cut at the NUL, this would be `delete from items where id = 1`: ann's row.
    #expect(throws: (any Error).self) { try dao.call("remove", ["1\u{0}"]) }
    #expect(try queue.read { db in try db.scalar("select count(*) from items") } == .integer(2))
}

@Test func aTableNameWithACombiningMarkAfterItsQuoteStaysOneIdentifier() {
    #expect(Database.quoteIdentifier("x\"\u{301}") == "\"x\"\"\u{301}\"")
}

@Test func whitespaceIsKeptInsideEveryQuotedTokenAndComment() throws {
    let config = try makeConfig("""
        <select id="a" arguments="v">select 'a  b' /* it's   x */ , `my  col`, [x  y], "p  q",   'c  d' * 2, @{v}</select>
        <select id="b">select 1 /*/ still  a comment */ ,   2</select>
        """)
    #expect(try renderOne(config, "a", [1]).sql == "select 'a  b' /* it's   x */ , `my  col`, [x  y], \"p  q\", 'c  d' * 2, 1")
    #expect(try renderOne(config, "b", []).sql == "select 1 /*/ still  a comment */ , 2")
}

@Test func aLineCommentInsideATrimmedElementIsALoadError() throws {
    // <where> trims its body's trailing newline: the comment would swallow `and owner = 'bob'`.
    let body = """
        <delete id="a" arguments="id">delete from ${T} <where><if true="id != nil">id = #{id} -- by id
        </if></where> and owner = 'bob'</delete>
        """
    let error = try #require(contextLoadError(body), "loaded: \(body)")
    #expect(error.description.contains("a -- comment inside <where>:"), "\(error)")
    #expect(contextLoadError("""
        <delete id="a" arguments="id">delete from ${T} <where><if true="id != nil">id = #{id} /* by id */</if></where></delete>
        """) == nil)
}

/// `${T}` inside the template's quotes (the common check whether the table exists, `name =
/// '${T}'` against `sqlite_master`) writes the table's name as text with the closing quote
/// doubled, in a static statement and a dynamic one alike; inside `[…]` a name holding `]` is
/// a render error; inside a comment it is still a load error.
@Test func aTableNameInsideQuotesIsWrittenWithItsQuoteDoubled() throws {
    let config = try makeConfig("""
        <select id="exists">select count(*) from sqlite_master where type = 'table' and name = '${T}'</select>
        <select id="dynamic" arguments="v">select count(*) from sqlite_master where name = '${t}'<if true="v"> and #{v}</if></select>
        <select id="ident">select "${T}" from x</select>
        <select id="tick">select `${T}` from x</select>
        <select id="bracket">select [${T}] from x</select>
        """)
    #expect(try renderOne(config, "exists", [], table: "it's").sql
            == "select count(*) from sqlite_master where type = 'table' and name = 'it''s'")
    #expect(try renderOne(config, "exists", [], table: "plain").sql.hasSuffix("name = 'plain'"))
    #expect(try renderOne(config, "dynamic", [1], table: "it's").sql == "select count(*) from sqlite_master where name = 'it''s' and ?")
    #expect(try renderOne(config, "ident", [], table: #"a"b"#).sql == #"select "a""b" from x"#)
    #expect(try renderOne(config, "tick", [], table: "a`b").sql == "select `a``b` from x")
    #expect(try renderOne(config, "bracket", [], table: "a b").sql == "select [a b] from x")
    #expect(throws: DAOError.self) { _ = try renderOne(config, "bracket", [], table: "a]b") }
    // SQLite reads the literal as the name: the table is found, whatever quote it holds.
    let db = try Database.inMemory()
    for name in ["it's", "plain", #"a"b"#] {
        try db.execute("CREATE TABLE \(Database.quoteIdentifier(name)) (x)")
        let sql = try renderOne(config, "exists", [], table: name).sql
        #expect(try db.scalar(sql) == .integer(1), "\(name): \(sql)")
    }
}

/// Consts are spliced verbatim, in quotes too: lint warns when one spliced inside quotes
/// holds the quote that ends them, and only then (outside quotes, or another quote, or no
/// quote in the value, is fine).
@Test func lintWarnsOfAConstHoldingTheQuoteItIsSplicedInside() {
    let xml = """
        <module name="m" tableName="t">
          <const owner="O'Brien"/>
          <const plain="Smith"/>
          <const column="a&quot;b"/>
          <select id="a">select * from ${T} where name = '${owner}'</select>
          <select id="b">select * from ${T} where name = '${plain}' and x = "${owner}"</select>
          <select id="c">select ${owner} from ${T}</select>
          <select id="d">select "${column}" from ${T}</select>
        </module>
        """
    let findings = DAOLinter.lint(xml: xml, file: "q.xml").filter { $0.message.contains("verbatim inside") }
    #expect(findings.map { "\($0.location.line):\($0.location.column)" } == ["5:51", "8:26"], "\(findings)")
    #expect(findings.first?.description.hasPrefix(
        "q.xml:5:51: warning: ${owner} splices the const 'owner' verbatim inside a string literal ('…'), and its value holds the quote that ends it") == true,
            "\(findings)")
    #expect(findings.dropFirst().first?.message.contains("a quoted identifier (\"…\")") == true, "\(findings)")
}
