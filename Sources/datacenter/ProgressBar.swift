import Foundation

/// The progress bar long commands (`clean`, `rekey`) draw on stderr: one line redrawn in
/// place, `label [#####.....] 42%`, shown only when stderr is a terminal (and the command
/// is not writing JSON), and cleared before the command prints its summary.
struct ProgressBar {
    /// False when nothing is drawn (stderr is not a terminal, or JSON was asked for).
    let isShown: Bool
    /// Characters of the bar itself.
    static let width = 30

    /// A bar drawn when stderr is a terminal, unless `json`.
    init(json: Bool = false) { isShown = !json && isatty(2) == 1 }

    /// Redraws the line: `label` (padded or cut to `labelWidth`) then the bar at `fraction`.
    func show(_ label: String, fraction: Double, labelWidth: Int = 16) {
        guard isShown else { return }
        let fraction = min(1, max(0, fraction))
        let filled = Int((fraction * Double(Self.width)).rounded())
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: Self.width - filled)
        let text = Output.safe(label, limit: labelWidth).padding(toLength: labelWidth, withPad: " ", startingAt: 0)
        FileHandle.standardError.write(Data("\r\(text) [\(bar)] \(Int(fraction * 100))%\u{1b}[K".utf8))
    }

    /// Erases the line, so what follows starts on a clean one.
    func clear() {
        guard isShown else { return }
        FileHandle.standardError.write(Data("\r\u{1b}[K".utf8))
    }
}
