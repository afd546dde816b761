import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

/// The JSON reader behind typed DAO arguments: the same values as Foundation's parser on any
/// JSON, refusals with a place and no quote of the text, and values built at their size.
@Suite struct DAOJSONReaderTests {
    /// A random JSON document, and the value it stands for: nested arrays and objects of
    /// strings (escapes, non-ASCII, astral characters), integers, doubles, booleans and nulls.
    static func randomJSON(_ random: inout SplitMix64, depth: Int = 0) -> (json: Any, value: DAOValue) {
        switch random.below(depth > 3 ? 5 : 7) {
        case 0: return (NSNull(), .nil)
        case 1: let b = random.below(2) == 0; return (b, .bool(b))
        case 2: let i = Int64(bitPattern: random.next()) >> Int64(random.below(64)); return (i, .integer(i))
        case 3:
            // A fraction, so it is written with a decimal point and read as a double.
            let d = (Double(Int64(bitPattern: random.next()) >> 20) + 0.5) / Double(1 << random.below(30))
            return (d, .double(d))
        case 4:
            let alphabet: [String] = ["a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\u{01}", "é", "中", "😀", "\u{7f}", "\u{2028}"]
            let text = (0..<random.below(12)).map { _ in alphabet[random.below(alphabet.count)] }.joined()
            return (text, .string(text))
        case 5:
            let elements = (0..<random.below(5)).map { _ in randomJSON(&random, depth: depth + 1) }
            return (elements.map(\.json), .array(elements.map(\.value)))
        default:
            var object: [String: Any] = [:]
            var fields: [String: DAOValue] = [:]
            for index in 0..<random.below(5) {
                let key = "k\(index)\(["", "é", "\"", "😀"][random.below(4)])"
                (object[key], fields[key]) = randomJSON(&random, depth: depth + 1)
            }
            return (object, .dictionary(fields))
        }
    }

    /// Every value Foundation writes reads back as the value written: 64-bit integers and
    /// doubles exactly (Foundation's own reader rounds integers beyond 2^53 through a double).
    @Test func readsBackWhatFoundationWritesOnRandomDocuments() throws {
        var random = SplitMix64(seed: testSeed("DAO_JSON_SEED", default: 2026_11_26))
        for round in 0..<testCount("DAO_JSON_ROUNDS", default: 400) {
            let (json, value) = Self.randomJSON(&random)
            let pretty = round % 2 == 0 ? JSONSerialization.WritingOptions.prettyPrinted : []
            let text = String(decoding: try JSONSerialization.data(withJSONObject: [json], options: pretty), as: UTF8.self)
            #expect(try DAOValue(parsingJSON: text) == [value], "round \(round): \(text)")
        }
    }

    /// A 64-bit row id passed as an argument is bound as written (it was read through a double).
    @Test func largeIntegersAreExact() throws {
        #expect(try DAOArgumentParser.value("1369525063626712946") == .integer(1_369_525_063_626_712_946))
        #expect(try DAOArgumentParser.arguments("[-9223372036854775807]") == [.integer(-9_223_372_036_854_775_807)])
    }

    @Test(arguments: [
        (#"[1, 2,]"#, "line 1, column 7: unexpected character where a value is expected"),
        (#"{"a": 1,}"#, "line 1, column 9: expected a key in double quotes"),
        ("[\n  01\n]", "line 2, column 4: a number with a leading zero"),
        ("[1.]", "line 1, column 4: digits must follow a decimal point"),
        ("[-]", "line 1, column 3: digits must follow a '-'"),
        ("[1e999]", "line 1, column 2: a number too large for a double"),
        (#"["\ud800"]"#, "a lone surrogate"),
        (#"["\udc00"]"#, "a lone low surrogate"),
        (#"["\x"]"#, "line 1, column 3: an unknown escape"),
        (#"["\u12"]"#, "four hexadecimal digits"),
        ("[\"a\u{01}\"]", "a control character inside a string"),
        ("[nul]", "line 1, column 2: an unknown word"),
        ("[1] 2", "line 1, column 5: unexpected text after the JSON value"),
        (#"{"a" 1}"#, "line 1, column 6: expected ':' after a key"),
        (#"["é", x]"#, "line 1, column 7: unexpected character"),
    ])
    func malformedTextIsRefusedWithItsPlace(_ text: String, _ message: String) {
        #expect {
            _ = try DAOValue(parsingJSON: text)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func nestingIsBoundedSoNoInputExhaustsTheStack() throws {
        let depth = DAOJSONReader.maximumDepth
        #expect(try DAOValue(parsingJSON: String(repeating: "[", count: depth) + String(repeating: "]", count: depth)) != .nil)
        for deep in [depth + 1, 1_000_000] {
            #expect {
                _ = try DAOValue(parsingJSON: String(repeating: "[", count: deep) + String(repeating: "]", count: deep))
            } throws: { "\($0)".contains("nest deeper than \(depth) levels") }
            #expect {
                _ = try DAOValue(parsingJSON: String(repeating: #"{"a":"#, count: deep) + "1" + String(repeating: "}", count: deep))
            } throws: { "\($0)".contains("nest deeper than \(depth) levels") }
        }
    }

    @Test func integersAndOtherNumbersKeepTheirKind() throws {
        #expect(try DAOValue(parsingJSON: "[0, -7, 9223372036854775807, -9223372036854775808]")
            == [0, -7, .integer(.max), .integer(.min)])
        #expect(try DAOValue(parsingJSON: "[1.0, 1e3, 9223372036854775808, -0.5E-2]")
            == [.double(1), .double(1000), .double(9_223_372_036_854_775_808), .double(-0.005)])
    }

    /// Why `--args` of many small objects once took 3.4 KB per element: the Foundation tree's
    /// dictionaries are allocated far beyond their entries, and converting it kept their
    /// capacity. A value read here is built at its size.
    @Test func objectsAreBuiltAtTheirSize() throws {
        let text = "[" + (0..<1000).map { #"{"name": "item \#($0)", "n": \#($0)}"# }.joined(separator: ",") + "]"
        let elements = try #require(try DAOArgumentParser.arguments(text) as [DAOValue]?)
        #expect(elements.count == 1000)
        for element in elements {
            let fields = try #require(element.fields)
            #expect(fields.count == 2 && fields.capacity <= 3, "a 2-field object holds room for \(fields.capacity)")
        }
    }

    @Test func markersAreResolvedWhereTheyStandAndNamedByTheirPlace() throws {
        let arguments = try DAOArgumentParser.arguments(#"[[{"$model": "M", "picture": {"$blob": "aGk="}}], {"when": {"$date": "2026-01-01T00:00:00Z"}}]"#)
        #expect(arguments == [
            [.model("M", ["picture": .data(Data("hi".utf8))])],
            ["when": .date(Date(timeIntervalSince1970: 1_767_225_600))],
        ])
        #expect(throws: DAOArgumentError.badBlob(path: "[0][1].picture")) {
            try DAOArgumentParser.arguments(#"[[{}, {"picture": {"$blob": 5}}]]"#)
        }
        #expect(throws: DAOArgumentError.badDate(path: "since")) {
            try DAOArgumentParser.globals(#"{"since": {"$date": "yesterday"}}"#)
        }
    }

    @Test func errorsNeverQuoteTheText() {
        let secret = "hunter2-secret"
        for text in [#"["\#(secret)", ]"#, #"{"\#(secret)": }"#, #"["\#(secret)\q"]"#] {
            #expect {
                _ = try DAOArgumentParser.value(text)
            } throws: { !"\($0)".contains(secret) }
        }
    }
}
