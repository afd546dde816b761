import Foundation
import Testing
@testable import DatacenterDAO

/// `DAOLimits.expressionDepth`: deeply nested or long chained expressions fail to compile
/// with a positioned error instead of overflowing the stack (of the parser, the evaluator, or
/// the tree's own release); expressions within the limit compile and evaluate.
@Suite struct ExpressionLimitsTests {
    static let limit = DAOLimits.expressionDepth

    /// The compile error of `text`, or nil when it compiles.
    static func compileError(_ text: String) -> ExpressionError? {
        do {
            _ = try Expression(compiling: text)
            return nil
        } catch {
            return error as? ExpressionError
        }
    }

    @Test(arguments: [("not ", ""), ("- ", ""), ("+", ""), ("(", ")")])
    func deepPrefixesAndParenthesesAreRefused(_ open: String, _ close: String) throws {
        for count in [Self.limit + 1, 50_000] {
            let text = String(repeating: open, count: count) + "1" + String(repeating: close, count: count)
            let error = try #require(Self.compileError(text), "\(count) × \(open)")
            #expect(error.message.contains("more than \(Self.limit) levels"))
            // The position is that of the first token past the limit.
            #expect(error.position == Self.limit * open.count + 1, "\(error.position)")
            #expect(error.description.count < 300)
        }
    }

    @Test func mixedNestingIsRefused() throws {
        let text = String(repeating: "not (-(", count: 30_000) + "1" + String(repeating: "))", count: 30_000)
        let error = try #require(Self.compileError(text))
        #expect(error.message.contains("more than \(Self.limit) levels"))
    }

    @Test(arguments: [" + ", " - ", " * ", " and ", " or ", " == ", " < "])
    func longChainsAreRefused(_ op: String) throws {
        for terms in [Self.limit + 1, 100_000] {
            let text = Array(repeating: "1", count: terms).joined(separator: op)
            let error = try #require(Self.compileError(text), "\(terms) terms of \(op)")
            #expect(error.message.contains("more than \(Self.limit) levels"))
            #expect(error.description.count < 300)
        }
    }

    @Test func expressionsAtTheLimitCompileAndEvaluate() throws {
        let scope = DAOScope(["a": 1])
        // A leaf is one level; each prefix operator, parenthesis or chained operator adds one.
        let nots = String(repeating: "not ", count: Self.limit - 1) + "a"
        #expect(try Expression(compiling: nots).evaluate(in: scope) == .bool(false))
        let sum = Array(repeating: "a", count: Self.limit).joined(separator: " + ")
        #expect(try Expression(compiling: sum).evaluate(in: scope) == .integer(Int64(Self.limit)))
        let minus = String(repeating: "-", count: Self.limit - 1) + "a"
        #expect(try Expression(compiling: minus).evaluate(in: scope) == .integer(-1))
        let parens = String(repeating: "(", count: Self.limit - 1) + "a" + String(repeating: ")", count: Self.limit - 1)
        #expect(try Expression(compiling: parens).evaluate(in: scope) == .integer(1))
        // One more level is refused.
        #expect(Self.compileError("not " + nots) != nil)
        #expect(Self.compileError(sum + " + a") != nil)
    }

    @Test func aLongFlatExpressionOfManyShortChainsCompiles() throws {
        // Length alone is no limit: 2,000 terms in 200 groups of 10 is 212 levels deep (the
        // `or` chain's 200, the group's parenthesis, comparison and chain of 10).
        let group = "(" + Array(repeating: "a", count: 10).joined(separator: " + ") + " > 0)"
        let text = Array(repeating: group, count: 200).joined(separator: " or ")
        #expect(try Expression(compiling: text).isTrue(in: DAOScope(["a": 1])))
    }

    @Test func errorsQuoteAnExcerptAroundThePosition() throws {
        let text = String(repeating: "a + ", count: 10_000) + "'unterminated"
        let error = try #require(Self.compileError(text))
        #expect(error.position == 40_001)
        #expect(error.description.hasPrefix("bad expression \"…"))
        #expect(error.description.contains("'unterminated"))
        #expect(error.description.count < 200)
        let control = try #require(Self.compileError("a \u{1B} b"))
        #expect(control.description.contains("\\u{1B}") && !control.description.contains("\u{1B}"))
    }
}
