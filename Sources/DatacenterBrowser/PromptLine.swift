import DatacenterKit

/// A line typed at the bottom of the screen (`/` search, `e` edit, `o` insert): it takes
/// every key while it is open, and Enter hands the text to the grid that asked for it.
struct PromptLine {
    /// What the text is for.
    enum Purpose { case search, edit, insert }

    /// What became of a key.
    enum Outcome: Equatable {
        /// Still typing.
        case editing
        /// Esc: closed, nothing done.
        case cancelled
        /// Enter: closed with this text.
        case submitted(String)
    }

    let label: String
    var text: String
    let purpose: Purpose

    /// One key: Enter submits, Esc cancels, Backspace deletes the last character, a
    /// printable character is appended; control characters are not taken as text.
    mutating func handle(_ key: Key) -> Outcome {
        switch key {
        case .escape: return .cancelled
        case .enter: return .submitted(text)
        case .backspace: _ = text.popLast()
        case .character(let c) where !c.unicodeScalars.contains(where: { $0.value < 0x20 }): text.append(c)
        default: break
        }
        return .editing
    }

    /// Draws the label, the text and a cursor on line `y`.
    func draw(into screen: inout ScreenGrid, y: Int) {
        screen.fill(x: 0, y: y, count: screen.width, role: .dialog)
        screen.write(label + text + "▏", x: 0, y: y, maxWidth: screen.width, role: .dialog)
    }
}
