import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

// MARK: Values only in plain SQL

@Test func atReferenceInsideQuotesOrCommentsIsALoadErrorWithItsLocation() throws {
    let cases: [(String, String, Int, Int)] = [
        (#"<select id="a" arguments="col">select "@{col}" from ${T}</select>"#, "quoted identifier", 3, 40),
        (#"<select id="a" arguments="v">select * from ${T} where name = '@{v}'</select>"#, "string literal", 3, 63),
        ("<select id=\"a\" arguments=\"v\">select 1 -- @{v}\n from ${T}</select>", "-- comment", 3, 42),
        (#"<select id="a" arguments="v">select 1 /* @{v} */</select>"#, "/* */ comment", 3, 42),
        (#"<select id="a" arguments="v">select `@{v}` from ${T}</select>"#, "quoted identifier", 3, 38),
        (#"<select id="a" arguments="v">select [@{v}] from ${T}</select>"#, "quoted identifier", 3, 38),
        (#"<select id="a" arguments="v">select * from ${T} where name = '#{v}'</select>"#, "string literal", 3, 63),
        (#"<select id="a">select '${T}'</select>"#, "string literal", 3, 24),
        // Across nodes: the quote opens before an <if>, the reference stands inside it.
        (#"<select id="a" arguments="v">select 'x <if true="v">@{v}</if>'</select>"#, "string literal", 3, 53),
    ]
    for (body, context, line, column) in cases {
        let error = try #require(contextLoadError("\n" + body), "loaded: \(body)")
        #expect(error.description.contains(context), "\(error)")
        #expect(error.location == SourceLocation(file: "ctx.xml", line: line, column: column), "\(error) for \(body)")
    }
    // Quotes that only look alike: doubled quotes, a quote inside a comment, `--` in a string.
    for body in [#"<select id="a" arguments="v">select 'it''s', "a""b", @{v}</select>"#,
                 "<select id=\"a\" arguments=\"v\">select 1 -- it's\n , @{v}</select>",
                 #"<select id="a" arguments="v">select '--', '/*', @{v} /* ' */, #{v}</select>"#] {
        #expect(contextLoadError(body) == nil, "\(body)")
    }
}

@Test func quotesAndCommentsMustCloseInsideTheElementThatOpensThem() throws {
    for body in [#"<select id="a" arguments="v">select 1 <if true="v">, 'x</if> from t</select>"#,
                 #"<select id="a" arguments="v">select <foreach item="i" collection="v" open="'" close="">x</foreach></select>"#,
                 #"<select id="a" arguments="v">select 1 <choose><when true="v">/*</when><otherwise>x</otherwise></choose></select>"#] {
        let error = try #require(contextLoadError(body), "loaded: \(body)")
        #expect(error.description.contains("must close within the element"), "\(error)")
    }
    #expect(contextLoadError(#"<select id="a" arguments="v">select <if true="v">'x', </if> 1</select>"#) == nil)
}

@Test func lintReportsAValueInsideQuotes() {
    let findings = DAOLinter.lint(xml: """
        <module name="m" tableName="t">
          <select id="a" arguments="col">select "@{col}" from ${T}</select>
        </module>
        """, file: "ctx.xml")
    #expect(findings.count == 1)
    #expect(findings.first?.severity == .error)
    #expect(findings.first?.description.hasPrefix("ctx.xml:2:42: error: @{col} inside a quoted identifier") == true, "\(findings)")
}

@Test func theReportedQuotedIdentifierAttackNoLongerLoads() throws {
    #expect(throws: DAOConfigError.self) {
        _ = try daoWithVictim(#"<select id="pick" arguments="col" result="[{}]">select "@{col}" from ${T}</select>"#)
    }
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
