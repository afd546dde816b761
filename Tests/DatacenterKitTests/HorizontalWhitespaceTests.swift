import Foundation
import Testing
import DatacenterText

/// `trimmingHorizontalWhitespace()` trims exactly what Foundation's
/// `trimmingCharacters(in: .whitespaces)` trims (the browser's theme files rely on it).
@Suite struct HorizontalWhitespaceTests {
    /// Every scalar of the first three planes is in the set exactly when it is in
    /// `CharacterSet.whitespaces`.
    @Test func theSetIsFoundationsWhitespaces() {
        var differing: [UInt32] = []
        for value in UInt32(0)...0x2_FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue } // surrogates
            if HorizontalWhitespace.contains(scalar) != CharacterSet.whitespaces.contains(scalar) { differing.append(value) }
        }
        #expect(differing.isEmpty, "scalars judged otherwise than Foundation: \(differing.prefix(10).map { String($0, radix: 16) })")
    }

    @Test(arguments: [
        "", " ", "\t\t", "plain", "  two words  ", "\tbold = red blue\t",
        "\u{A0}nbsp\u{A0}", "\u{3000}ideographic\u{3000}", "\u{2003}em\u{2009}",
        "line\n", "\nline", "cr\r", " \r\n ", "\u{200B}zero width\u{200B}",
        " \u{301}mark after a space", "tail space then mark \u{301}", "\u{85}next line\u{85}", "\u{1680}ogham\u{202F}",
    ])
    func trimsWhatFoundationTrims(_ text: String) {
        #expect(text.trimmingHorizontalWhitespace() == text.trimmingCharacters(in: .whitespaces))
        #expect(text.trimmingHorizontalWhitespace().unicodeScalars.elementsEqual(text.trimmingCharacters(in: .whitespaces).unicodeScalars))
        let sub = Substring(text)
        #expect(sub.trimmingHorizontalWhitespace() == sub.trimmingCharacters(in: .whitespaces))
    }
}
