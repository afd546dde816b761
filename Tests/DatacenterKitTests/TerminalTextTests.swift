import Foundation
import Testing
@testable import DatacenterKit
#if canImport(Glibc)
import Glibc
import DatacenterText
#endif


/// `TerminalText`: widths as ncursesw counts them, and text cut and escaped without losing
/// what is shown.
@Suite struct TerminalTextTests {
    @Test(arguments: ["🚀", "✅", "⌚", "⚡", "🀄"])
    func emojiThatTerminalsDrawWideTakeTwoColumns(_ emoji: String) {
        #expect(TerminalText.width(of: emoji) == 2)
        #expect(TerminalText.width(of: Character(emoji)) == 2)
        #expect(TerminalText.width(of: emoji.unicodeScalars.first!) == 2)
        #expect(TerminalText.width(of: emoji) == LibCWidth.columns(emoji))
    }

    @Test func widthsAreTheLibrarysSumsPerScalar() {
        let cases: [(text: String, columns: Int)] = [
            ("plain ascii", 11),
            ("\u{E9}", 1),                          // é composed
            ("e\u{301}", 1),                        // é decomposed: the mark joins the e
            ("日本語", 6),
            ("한국어", 6),
            ("👨\u{200D}👩\u{200D}👧", 6),            // a ZWJ family: 2 + 0 + 2 + 0 + 2
            ("🇺🇸", LibCWidth.columns("🇺🇸")),       // a flag: two regional indicators
            ("a🚀b✅c⌚d⚡e🀄f", 16),
            ("café 👨\u{200D}👩\u{200D}👧 日本", 16),
        ]
        for (text, columns) in cases {
            #expect(TerminalText.width(of: text) == columns, "\(text.debugDescription)")
            #expect(TerminalText.width(of: text) == LibCWidth.columns(text), "\(text.debugDescription)")
        }
        // The flag and the family are one character each, yet several cells.
        #expect(TerminalText.width(of: Character("👨\u{200D}👩\u{200D}👧")) == 6)
        #expect(TerminalText.width(of: Character("🇺🇸")) == LibCWidth.columns("🇺🇸"))
        #expect(TerminalText.width(of: "🇺🇸") == 2)
    }

    @Test func theProcessLocaleDoesNotChangeWidths() throws {
        // This thread in the POSIX locale, where wcwidth calls every emoji unprintable.
        let posix = try #require(newlocale(LC_CTYPE_MASK, "POSIX", nil))
        defer { freelocale(posix) }
        let previous = uselocale(posix)
        defer { uselocale(previous) }
        #expect(TerminalText.width(of: "🚀⚡") == 4)
        #expect(TerminalText.visible("🚀⚡") == "🚀⚡")
        #expect(uselocale(nil) == posix, "the thread's locale is restored")
    }

    @Test func cellsHoldOneSpacingScalarAndTheZeroWidthOnesAfterIt() {
        var cells: [String] = [], widths: [Int] = []
        TerminalText.forEachCell(in: "👨\u{200D}👩\u{200D}👧e\u{301}") { cell, width in
            cells.append(cell)
            widths.append(width)
            return true
        }
        #expect(cells == ["👨\u{200D}", "👩\u{200D}", "👧", "e\u{301}"])
        #expect(widths == [2, 2, 2, 1])
    }

    @Test func aCutFallsBetweenCellsAndKeepsEveryScalarShown() {
        // The family is cut after its second person: both joiners shown stay, then the mark.
        #expect(TerminalText.visible("x👨\u{200D}👩\u{200D}👧y", limit: 5) == "x👨\u{200D}👩\u{200D}…")
        // A wide character that would cross the limit is not shown at all, never halved.
        #expect(TerminalText.visible("ab🚀cd", limit: 3) == "ab…")
        #expect(TerminalText.visible("ab🚀cd", limit: 4) == "ab🚀…")
        // Whatever the limit, what is shown is a scalar prefix of the text, no wider than the
        // limit, and cut only when the next cell would not fit.
        let texts = ["🚀✅⌚⚡🀄", "a👨\u{200D}👩\u{200D}👧b🇺🇸c", "e\u{301}e\u{301}日本語", "mixed 🚀 text ✅ here"]
        for text in texts {
            for limit in 0...(LibCWidth.columns(text) + 1) {
                let visible = TerminalText.visible(text, limit: limit)
                let cut = visible.hasSuffix("…") && !text.hasSuffix("…")
                let shown = cut ? String(visible.unicodeScalars.dropLast()) : visible
                #expect(text.unicodeScalars.starts(with: shown.unicodeScalars), "\(text) at \(limit): \(visible)")
                #expect(LibCWidth.columns(shown) <= limit, "\(text) at \(limit): \(visible)")
                #expect(cut == (LibCWidth.columns(text) > limit), "\(text) at \(limit): \(visible)")
                if cut { #expect(LibCWidth.columns(shown) >= limit - 1, "\(text) at \(limit): \(visible)") }
            }
        }
    }

    @Test func controlAndUnprintableScalarsAreShownEscaped() {
        // Controls keep their escapes, and count as the escape's columns.
        #expect(TerminalText.visible("a\nb\u{1B}[0m") == "a\\nb\\u{1b}[0m")
        #expect(TerminalText.width(of: "a\nb") == 4)
        #expect(TerminalText.isControl("\u{1B}"))
        // A noncharacter is unprintable to wcwidth but no control: escaped, never sent raw.
        #expect(LibCWidth.width("\u{FFFE}") == -1)
        #expect(!TerminalText.isControl("\u{FFFE}"))
        #expect(TerminalText.visible("a\u{FFFE}b") == "a\\u{fffe}b")
        #expect(TerminalText.width(of: "a\u{FFFE}b") == 10)
        #expect(TerminalText.escaped(Character("\u{FFFE}")) == "\\u{fffe}")
        #expect(TerminalText.escaped(Character("🚀")) == nil)
    }

    @Test(arguments: [0x200B, 0x2060, 0xFEFF, 0x200E, 0x200F, 0x202A, 0x202E, 0x2066, 0x2069, 0x061C] as [UInt32])
    func invisibleAndBidirectionalMarksAreShownEscaped(_ value: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(value))
        let text = "a" + String(Character(scalar)) + "b"
        #expect(TerminalText.visible(text) == "a\\u{" + String(value, radix: 16) + "}b")
        #expect(TerminalText.width(of: text) == 2 + "\\u{}".count + String(value, radix: 16).count)
    }

    @Test func joinersInEmojiAndCombiningMarksStayDrawn() {
        let family = "👨\u{200D}👩\u{200D}👧"
        #expect(TerminalText.visible(family) == family)
        #expect(TerminalText.visible("e\u{301}") == "e\u{301}")
    }

    @Test func aZeroWidthScalarWithNothingToJoinIsDrawnOnASpace() {
        #expect(TerminalText.visible("\u{301}a") == " \u{301}a")
        #expect(TerminalText.width(of: "\u{301}a") == 2)
        // After an escape: on a space, not on the escape's last letter.
        #expect(TerminalText.visible("\n\u{301}") == "\\n \u{301}")
    }
}

/// The shortcuts the grid takes every frame give what the cell-by-cell layout gives.
@Suite struct TerminalTextShortcutTests {
    static let texts: [String] = [
        "", "a", "plain ascii", String(repeating: "x", count: 39), String(repeating: "y", count: 40), String(repeating: "z", count: 41),
        "message content number 1 A2F76DC6651D40CE41FE905D4E5D4C2434ED05DF8C875A7A591258ED6F30",
        "日本語のテキスト", "a👨\u{200D}👩\u{200D}👧b", "e\u{301}" + String(repeating: "e\u{301}", count: 30), "tab\there", "line\nbreak",
        "\u{1B}[31mred", String(repeating: "ab", count: 30) + "日本", "\u{301}leading mark", "…already cut", "x\u{202E}y",
    ]

    @Test func widthUpToIsTheWidthCapped() {
        for text in Self.texts {
            for limit in 0...45 {
                #expect(TerminalText.width(of: text, upTo: limit) == min(limit, TerminalText.width(of: text)), "\(text.debugDescription) upTo \(limit)")
                #expect(TerminalText.width(of: text, upTo: limit) == min(limit, TerminalText.width(of: TerminalText.visible(text, limit: limit))),
                        "\(text.debugDescription) upTo \(limit): the width of what a cut to the limit shows")
            }
        }
    }

    @Test func visibleCutsPrintableASCIIAsCharactersWould() {
        for length in 0...50 {
            let text = String((0..<length).map { Character(Unicode.Scalar(UInt8(0x21 + $0 % 90))) })
            for limit in 0...45 {
                let expected = text.count <= limit ? text : String(text.prefix(limit)) + "…"
                #expect(TerminalText.visible(text, limit: limit) == expected, "\(length) bytes cut to \(limit)")
            }
        }
    }
}
