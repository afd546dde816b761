import Testing
@testable import DatacenterBrowser

/// A failed snapshot comparison prints the lines that differ, expected and actual, in its own
/// message: a failure that says only "screen differs" sends whoever reads it to re-run the
/// test by hand.
@Suite struct SnapshotMessageTests {
    @Test func aDifferingScreenNamesItsLinesExpectedAndActual() throws {
        var screen = ScreenGrid(width: 12, height: 3)
        _ = screen.write("first line", x: 0, y: 0, maxWidth: 12, role: .grid)
        _ = screen.write("second LINE", x: 0, y: 1, maxWidth: 12, role: .grid)
        _ = screen.write("third line", x: 0, y: 2, maxWidth: 12, role: .grid)
        try withKnownIssue {
            try assertSnapshot(screen, named: "snapshot-message")
        } matching: { issue in
            let message = issue.comments.map(\.rawValue).joined(separator: "\n")
            return message.contains("Snapshots/snapshot-message.txt")
                && message.contains("1 of 8 lines differ")   // 3 of text, a blank, "roles:", 3 of roles
                && message.contains("line 2, from column 8")
                && message.contains("expected: ‹second line›")
                && message.contains("actual:   ‹second LINE›")
                && !message.contains("line 1,") && !message.contains("line 3,")
        }
    }

    @Test func linesMissingOnEitherSideAreNamedAndLongListsCounted() {
        #expect(lineDifference(expected: "a\nb", actual: "a\nb") == "")
        let shorter = lineDifference(expected: "a\nb\nc", actual: "a")
        #expect(shorter.contains("2 of 3 lines differ"))
        #expect(shorter.contains("line 2\n  expected: ‹b›\n  actual:   (no such line)"))
        let many = lineDifference(expected: (1...30).map { "x\($0)" }.joined(separator: "\n"),
                                  actual: (1...30).map { "y\($0)" }.joined(separator: "\n"), limit: 5)
        #expect(many.contains("line 5, from column 1"))
        #expect(!many.contains("line 6,"))
        #expect(many.hasSuffix("… and 25 more differing lines"))
    }
}
