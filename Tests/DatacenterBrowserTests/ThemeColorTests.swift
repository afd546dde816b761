import Testing
@testable import DatacenterBrowser

/// An RGB colour is drawn as the nearest of the 16 standard colours, every channel counted.
@Suite struct ThemeColorTests {
    @Test(arguments: [
        (UInt8(0), UInt8(0), UInt8(238), 4),       // blue
        (UInt8(0), UInt8(0), UInt8(230), 4),
        (UInt8(90), UInt8(90), UInt8(250), 12),    // bright blue
        (UInt8(250), UInt8(250), UInt8(250), 15),  // bright white
        (UInt8(200), UInt8(0), UInt8(200), 5),     // magenta
        (UInt8(10), UInt8(10), UInt8(10), 0),      // black
    ])
    func anRGBColourMapsToTheNearestStandardOne(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ expected: Int) {
        #expect(TerminalColor.rgb(r, g, b).standardIndex == expected)
    }

    /// A theme names an RGB colour with exactly six hex digits; anything else is refused
    /// (and reported with its line by the theme loader), never read as some other colour.
    @Test(arguments: ["#+abcde", "#-00001", "#abcdeg", "#abcde", "#abcdef0", "# abcde"])
    func aMalformedHexColourIsRefused(_ name: String) {
        #expect(TerminalColor(name: name) == nil, "\(name) was taken as a colour")
    }

    @Test func aSixDigitHexColourIsRead() {
        #expect(TerminalColor(name: "#0a0B0c") == .rgb(10, 11, 12))
    }
}
