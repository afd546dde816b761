import Testing
@testable import DatacenterBrowser

/// SGR mouse reports (`ESC [ < b ; x ; y M`), read by the terminal edge where curses reads
/// only the older encoding: any column, the wheel, and whatever is not a report left alone.
@Suite struct SGRMouseReportTests {
    func read(_ text: String) -> SGRMouseReport.Reading { SGRMouseReport.read(Array(text)) }

    @Test func aPressBeyondColumn223IsAClickThere() throws {
        guard case .report(let report, let length) = read("[<0;241;5Mrest") else {
            Issue.record("not read: \(read("[<0;241;5Mrest"))")
            return
        }
        #expect(report == SGRMouseReport(button: 0, x: 240, y: 4, isPress: true))
        #expect(length == 10, "the report's own characters, not what follows")
        guard case .click(let x, let y)? = report.event else { Issue.record("not a click"); return }
        #expect(x == 240 && y == 4)
    }

    @Test func theWheelScrollsAndReleasesMotionAndOtherButtonsAreNothing() throws {
        func event(_ text: String) -> BrowserEvent? {
            guard case .report(let report, _) = read(text) else { return nil }
            return report.event
        }
        guard case .wheel(_, _, let up)? = event("[<64;10;3M"), case .wheel(_, _, let down)? = event("[<65;10;3M") else {
            Issue.record("the wheel was not read")
            return
        }
        #expect(up == -1 && down == 1)
        guard case .click? = event("[<16;10;3M") else { Issue.record("Control-click is a click"); return }
        #expect(event("[<0;10;3m") == nil, "a release")
        #expect(event("[<32;10;3M") == nil, "motion with the button held")
        #expect(event("[<2;10;3M") == nil, "the right button")
    }

    @Test func aReportCutShortWaitsAndAnythingElseIsNotOne() {
        for prefix in ["", "[", "[<", "[<0", "[<0;12", "[<0;12;"] {
            #expect(read(prefix) == .incomplete, "\(prefix)")
        }
        for other in ["x", "[A", "[<a", "[<0;;1M", "[<0;1M", "[<0;1;2;3M", "[<0;0;1M", "[<0;1234567;1M", "O"] {
            #expect(read(other) == .notAReport, "\(other)")
        }
    }
}
