import Foundation
import Testing
@testable import DatacenterDAO

/// `Excerpt`: input quoted in an error is at most 60 printed characters, one line.
@Suite struct ExcerptTests {
    @Test func shortTextIsQuotedWhole() {
        #expect(Excerpt.of("createTable") == "createTable")
        #expect(Excerpt.of("") == "")
        let sixty = String(repeating: "a", count: 60)
        #expect(Excerpt.of(sixty) == sixty)
    }

    @Test func longTextIsCutWithAnEllipsis() {
        let text = String(repeating: "b", count: 1 << 20)
        let excerpt = Excerpt.of(text)
        #expect(excerpt.count == 60)
        #expect(excerpt == String(repeating: "b", count: 59) + "…")
        #expect(Excerpt.of(String(repeating: "c", count: 61)) == String(repeating: "c", count: 59) + "…")
    }

    @Test func controlCharactersAreEscapedAndCountTowardTheLimit() {
        #expect(Excerpt.of("a\nb\tc\r\0d\u{1B}[31m") == "a\\nb\\tc\\r\\0d\\u{1B}[31m")
        let escapes = Excerpt.of(String(repeating: "\u{1B}", count: 1000))
        #expect(escapes.count <= 60 && escapes.hasSuffix("…") && !escapes.contains("\u{1B}"))
        #expect(Excerpt.of("é🚀") == "é🚀")
    }

    @Test func aroundKeepsThePositionInView() {
        let text = String(repeating: "x", count: 1000) + "HERE" + String(repeating: "y", count: 1000)
        let excerpt = Excerpt.around(text, position: 1001)
        #expect(excerpt.contains("HERE"))
        #expect(excerpt.hasPrefix("…") && excerpt.hasSuffix("…"))
        #expect(excerpt.count <= 62)
        #expect(Excerpt.around("a > ", position: 5) == "a > ")
        #expect(Excerpt.around(text, position: 1).hasPrefix("xxx"))
        #expect(Excerpt.around(text, position: 2005).hasSuffix("yyy"))
    }

    @Test func errorsQuoteAShortExcerptOfHugeInput() throws {
        let huge = String(repeating: "v", count: 1 << 20) + "&#10;&#9;x"
        let cases = [
            "<module name=\"m\">\n<select id=\"a\" result=\"\(huge)\">select 1</select>\n</module>",
            "<module name=\"m\">\n<select id=\"a\" \(String(repeating: "z", count: 40_000))=\"1\">select 1</select>\n</module>",
            "<module name=\"m\">\n<select id=\"a\">select ${\(String(repeating: "n", count: 100_000))}</select>\n</module>",
            "<module name=\"m\">\n<update id=\"a\" arguments=\"b\"><if true=\"b + '\(huge)\">x</if></update>\n</module>",
            "<module name=\"m\">\n<select id=\"\(huge)\">select 1</select>\n<select id=\"\(huge)\">select 1</select>\n</module>",
        ]
        for xml in cases {
            #expect { try DAOConfig(xml: xml, file: "h.xml") } throws: { error in
                guard let error = error as? DAOConfigError else { return false }
                let text = error.description
                #expect(text.count < 400, "\(text.prefix(500))")
                #expect(!text.contains("\n") && !text.contains("\t"))
                return error.location.line >= 2
            }
        }
        let initializer = "<module name=\"m\" initializer=\"\(String(repeating: "i", count: 100_000))\">\n<update id=\"a\">x</update>\n</module>"
        #expect { try DAOConfig(xml: initializer, file: "h.xml") } throws: { error in
            (error as? DAOConfigError)?.description.count ?? .max < 300
        }
        #expect("\(DAOError.unknownMethod(huge + "\u{1B}", suggestion: nil))".count < 100)
        #expect(!"\(DAOError.unknownMethod("a\u{1B}[31m", suggestion: nil))".contains("\u{1B}"))
    }
}
