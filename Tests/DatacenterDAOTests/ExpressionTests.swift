import Foundation
import Testing
@testable import DatacenterDAO

private func eval(_ text: String, _ locals: [String: DAOValue] = [:]) throws -> DAOValue {
    try Expression(compiling: text).evaluate(in: DAOScope(locals))
}

@Test(arguments: [
    ("1 + 2 * 3", DAOValue.integer(7)),
    ("(1 + 2) * 3", 9),
    ("7 \\ 2", 3),
    ("7 / 2", 3.5),
    ("8 / 2", 4),
    ("7 % 3", 1),
    ("-2 * -3", 6),
    ("+4 - 1", 3),
    ("1.5 + 1", 2.5),
    ("'a' + 'b'", "ab"),
    ("1 < 2 and 2 < 3", true),
    ("not 1 == 2", true),
    ("NOT true OR false", false),
    ("true xor true", false),
    ("true XOR false", true),
    ("'abc' < 'abd'", true),
    ("'it\\'s' == 'it' + '\\'s'", true),
    ("nil == nil", true),
    ("1 != nil", true),
    ("1 > nil", false),
    ("nil <= 1", false),
    ("nil + 1", .nil),
    ("2 >= 2.0", true),
    ("1 or 1 / 0", true),
    ("0 and 1 / 0", false),
] as [(String, DAOValue)])
func expressionEvaluates(_ text: String, _ expected: DAOValue) throws {
    #expect(try eval(text) == expected)
}

@Test func referenceExampleWithChainedAccessAndCount() throws {
    let e = try Expression(compiling: "(title != nil and year > 2010) or authors.count >= 2")
    #expect(e.referencedNames == ["title", "year", "authors"])
    #expect(try e.isTrue(in: DAOScope(["title": "T", "year": 2011, "authors": []])))
    #expect(try !e.isTrue(in: DAOScope(["title": nil, "year": 2011, "authors": ["a"]])))
    #expect(try e.isTrue(in: DAOScope(["title": nil, "authors": ["a", "b"]])))
    #expect(try e.isTrue(in: DAOScope([:], globals: ["title": "g", "year": 2020])))
}

@Test(arguments: [
    (DAOValue.nil, false), (false, false), (0, false), (0.0, false), ("", false), ([], false), ([:], false),
    (true, true), (1, true), (-1, true), ("0", true), ([nil], true), (["a": 1], true),
] as [(DAOValue, Bool)])
func truthiness(_ value: DAOValue, _ expected: Bool) throws {
    #expect(try Expression(compiling: "x").isTrue(in: DAOScope(["x": value])) == expected)
}

@Test func modelPropertiesReadThroughDots() throws {
    struct Msg: Encodable { var read: Bool; var author: [String: String] }
    let scope = DAOScope(["model": try DAOValue(encoding: Msg(read: false, author: ["name": "ann"])), "onlyRead": false])
    #expect(try Expression(compiling: "model.read or (not onlyRead)").isTrue(in: scope))
    #expect(try Expression(compiling: "model.author.name == 'ann'").isTrue(in: scope))
    #expect(try Expression(compiling: "model.author.missing == nil").isTrue(in: scope))
}

@Test(arguments: [
    ("a >", 4, "expected a value, found the end"),
    ("(a", 3, "expected ')', found the end"),
    ("a b", 3, "expected an operator, found 'b'"),
    ("a = 1", 3, "'=' is not an operator; use '=='"),
    ("'open", 1, "unterminated string"),
    ("", 1, "the expression is empty"),
    ("x # 2", 3, "unexpected character '#'"),
    ("a.", 3, "expected a name after '.'"),
] as [(String, Int, String)])
func compileErrorsCarryPositions(_ text: String, _ position: Int, _ message: String) {
    #expect(throws: ExpressionError(expression: text, position: position, message: message)) {
        try Expression(compiling: text)
    }
}

@Test func evaluationErrorsCarryPositions() {
    #expect(throws: ExpressionError(expression: "n + s", position: 3, message: "cannot apply '+' to an integer and a string")) {
        try eval("n + s", ["n": 1, "s": "x"])
    }
    #expect(throws: ExpressionError(expression: "1 \\ 0", position: 3, message: "division by zero")) {
        try eval("1 \\ 0")
    }
    #expect(throws: ExpressionError(expression: "s < 2", position: 3, message: "cannot compare a string with an integer using '<'")) {
        try eval("s < 2", ["s": "x"])
    }
    let error = ExpressionError(expression: "a >", position: 4, message: "m")
    #expect(error.description == "bad expression \"a >\" at position 4: m")
}
