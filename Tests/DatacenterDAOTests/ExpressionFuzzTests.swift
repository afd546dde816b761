import Foundation
import Testing
@testable import DatacenterDAO

/// Random expressions through the tokenizer, parser and evaluator: token soup, well-formed
/// trees, and pathological shapes (deep prefixes and parentheses, long operator chains, huge
/// literals). Each compiles and evaluates, or fails with an `ExpressionError` whose position
/// lies inside the text and whose message is one short line. Never a crash, never a hang (a
/// watchdog aborts the run, naming the case, past 5 s). Seeded and printed: `FUZZ_CASES` and
/// `FUZZ_SEED` set the run (`make fuzz` runs a long one).
@Suite struct ExpressionFuzzTests {
    static let cases = testCount("FUZZ_CASES", default: 400)
    static let seed = testSeed("FUZZ_SEED", default: 0xE_C0DE)

    static let soup: [String] = [
        "a", "b", "c", "a.b", "c.count", "$a", "x1", "nil", "NIL", "true", "False", "0", "1", "-1", "2.5", "0.0",
        "9223372036854775807", "99999999999999999999", "'s'", "''", "'it\\'s'", "'", "+", "-", "*", "/", "\\", "%",
        "<", ">", "<=", ">=", "==", "!=", "! =", "=", "!", "(", ")", "((", "))", "and", "or", "xor", "not", "AND",
        " ", "\n", "\t", "\0", "\u{1B}", "é", "🚀", ".", "a.", ".b", "#", "&", "\"",
    ]
    static let binary = ["+", "-", "*", "/", "\\", "%", "<", ">", "<=", ">=", "==", "!=", "and", "or", "xor"]
    static let leaves = ["a", "b", "c", "c.count", "nil", "true", "false", "0", "1", "7", "2.5", "'s'", "''", "9223372036854775807"]

    /// One random expression text.
    static func generate(_ random: inout SplitMix64) -> String {
        let big = random.below(40) == 0 // now and then a pathological size
        switch random.below(6) {
        case 0: // token soup
            let count = big ? 5_000 + random.below(20_000) : random.below(30)
            return (0..<count).map { _ in soup[random.below(soup.count)] }.joined(separator: random.below(3) == 0 ? "" : " ")
        case 1: // a well-formed tree
            return tree(depth: 1 + random.below(6), &random)
        case 2: // deep prefixes and parentheses around a tree
            let depth = big ? 50_000 : random.below(2 * DAOLimits.expressionDepth)
            let prefixes = ["not ", "-", "+", "(", "not ("]
            let opens = (0..<depth).map { _ in prefixes[random.below(prefixes.count)] }
            let closes = opens.map { String(repeating: ")", count: $0.filter { $0 == "(" }.count) }
            return opens.joined() + tree(depth: 2, &random) + closes.reversed().joined()
        case 3: // a long chain of one or many operators
            let terms = big ? 100_000 : 1 + random.below(2 * DAOLimits.expressionDepth)
            let one = random.below(2) == 0 ? binary[random.below(binary.count)] : nil
            var text = leaves[random.below(leaves.count)]
            text.reserveCapacity(terms * 6)
            for _ in 1..<terms {
                text += " " + (one ?? binary[random.below(binary.count)]) + " " + leaves[random.below(leaves.count)]
            }
            return text
        case 4: // a huge literal or name
            let size = big ? 1 << 20 : random.below(200)
            let pieces = ["9", "a", "'x", "1.", "\u{1B}"]
            return String(repeating: pieces[random.below(pieces.count)], count: size) + (random.below(2) == 0 ? " + 1" : "")
        default: // a tree with a mutated byte
            var bytes = Array(tree(depth: 4, &random).utf8)
            if !bytes.isEmpty { bytes[random.below(bytes.count)] = UInt8(truncatingIfNeeded: random.next()) }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// A well-formed expression at most `depth` levels of generator recursion deep.
    static func tree(depth: Int, _ random: inout SplitMix64) -> String {
        guard depth > 0, random.below(4) != 0 else { return leaves[random.below(leaves.count)] }
        switch random.below(4) {
        case 0: return "not " + tree(depth: depth - 1, &random)
        case 1: return "-" + tree(depth: depth - 1, &random)
        case 2: return "(" + tree(depth: depth - 1, &random) + ")"
        default:
            return tree(depth: depth - 1, &random) + " " + binary[random.below(binary.count)] + " " + tree(depth: depth - 1, &random)
        }
    }

    static func scope(_ random: inout SplitMix64) -> DAOScope {
        let values: [DAOValue] = [.nil, .bool(true), .integer(0), .integer(3), .integer(.max), .integer(.min), .double(2.5),
                                  .string(""), .string("s"), .array([1, 2]), .dictionary(["count": 2])]
        return DAOScope(["a": values[random.below(values.count)], "b": values[random.below(values.count)],
                         "c": values[random.below(values.count)]])
    }

    /// The error is positioned inside the text (or just past its end) and short.
    static func checkLocated(_ error: ExpressionError, _ text: String, _ label: String) {
        #expect(error.position >= 1 && error.position <= text.count + 1, "\(label): position \(error.position)")
        #expect(!error.message.isEmpty, "\(label)")
        #expect(error.description.count < 400, "\(label): \(error.description.prefix(400))")
        #expect(!error.description.contains("\n"), "\(label)")
    }

    @Test func randomExpressionsCompileAndEvaluateOrFailWithAPosition() {
        var random = SplitMix64(seed: Self.seed)
        let watchdog = Watchdog(limit: 5)
        defer { watchdog.finish() }
        for index in 0..<Self.cases {
            let text = Self.generate(&random)
            let scope = Self.scope(&random)
            let label = "seed \(Self.seed) case \(index)"
            watchdog.start(label)
            defer { watchdog.stop() }
            do {
                let expression = try Expression(compiling: text)
                do { _ = try expression.isTrue(in: scope) } catch let error as ExpressionError {
                    Self.checkLocated(error, text, label)
                } catch {
                    Issue.record("\(label): untyped evaluation error \(error)")
                }
            } catch let error as ExpressionError {
                Self.checkLocated(error, text, label)
            } catch {
                Issue.record("\(label): untyped compile error \(error)")
            }
        }
    }
}
