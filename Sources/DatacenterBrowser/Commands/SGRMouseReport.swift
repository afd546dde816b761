/// A mouse report in the SGR encoding (xterm's mode 1006): `ESC [ < button ; x ; y M`
/// for a press, `m` for a release, coordinates counted from 1 in decimal.
///
/// The older encoding puts each coordinate in one byte (32 + position), so a click beyond
/// column 223 cannot be sent at all. Terminals and multiplexers that speak SGR send any
/// column; curses decodes SGR only when the terminal description says so (xterm's does,
/// tmux's and screen's do not), so the terminal edge turns the mode on itself and reads
/// these reports with this type.
package struct SGRMouseReport: Equatable, Sendable {
    /// The button code: 0–2 the buttons, 64/65 the wheel, +4/+8/+16 Shift/Meta/Control,
    /// +32 motion.
    package let button: Int
    /// The column, counted from 0.
    package let x: Int
    /// The line, counted from 0.
    package let y: Int
    /// True for a press (`M`), false for a release (`m`).
    package let isPress: Bool

    /// What reading `input` (the characters after an `ESC`) found.
    package enum Reading: Equatable, Sendable {
        /// A whole report, which took `length` characters.
        case report(SGRMouseReport, length: Int)
        /// The start of a report: more characters are needed.
        case incomplete
        /// Not a mouse report.
        case notAReport
    }

    /// Reads a report from `input`, the characters after an `ESC`.
    package static func read(_ input: some Collection<Character>) -> Reading {
        var iterator = input.makeIterator()
        var length = 0
        func next() -> Character? {
            guard let c = iterator.next() else { return nil }
            length += 1
            return c
        }
        for expected: Character in ["[", "<"] {
            guard let c = next() else { return .incomplete }
            guard c == expected else { return .notAReport }
        }
        var numbers: [Int] = [0]
        var digits = 0
        while let c = next() {
            switch c {
            case "0"..."9":
                guard digits < 6 else { return .notAReport } // no terminal is a million cells wide
                numbers[numbers.count - 1] = numbers[numbers.count - 1] * 10 + Int(c.asciiValue! - 48)
                digits += 1
            case ";":
                guard digits > 0, numbers.count < 3 else { return .notAReport }
                numbers.append(0)
                digits = 0
            case "M", "m":
                guard digits > 0, numbers.count == 3, numbers[1] > 0, numbers[2] > 0 else { return .notAReport }
                return .report(SGRMouseReport(button: numbers[0], x: numbers[1] - 1, y: numbers[2] - 1, isPress: c == "M"),
                               length: length)
            default:
                return .notAReport
            }
        }
        return .incomplete
    }

    /// The browser event the report is: a left press is a click, a wheel notch a scroll;
    /// releases, motion and other buttons are nothing.
    package var event: BrowserEvent? {
        guard isPress, button & 32 == 0 else { return nil }
        switch button & ~(4 | 8 | 16) {
        case 0: return .click(x: x, y: y)
        case 64: return .wheel(x: x, y: y, delta: -1)
        case 65: return .wheel(x: x, y: y, delta: 1)
        default: return nil
        }
    }
}
