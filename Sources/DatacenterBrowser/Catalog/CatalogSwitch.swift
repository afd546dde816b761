/// Browsing another root or file (`o`, `O`) or this one again (`R`, a user switch): the one
/// being opened off the input loop (`BrowserCommand.openCatalog`), and the roots and files
/// browsed lately, newest first, kept in the state folder and offered at the `o` prompt.
struct CatalogSwitch {
    /// A root or file being opened off the input loop (`BrowserCommand.openCatalog`).
    struct Opening {
        /// The request's id: only the answer to the latest counts.
        let id: Int
        /// The path as typed.
        let path: String
        /// True when the root browsed is read again (`R`, a user switch) rather than another
        /// opened: the grid, the console and the staged edits stay, and the tree keeps its place.
        var isRefresh = false
    }

    /// The root or file being opened, if any.
    var opening: Opening?
    /// The roots and files browsed lately, newest first.
    var recent = RecentFiles()

    /// `o` (in the tree) or `O`: asks for another root or SQLite file to browse, offering the
    /// recent ones (↑ ↓ at the prompt, listed above it). Refused while `staged` edits wait
    /// (they belong to the files browsed now and are never dropped unasked) or `busy` work
    /// runs (a commit, a DAO method, an export).
    func open(staged: Int, busy: String?) -> [PaneEffect] {
        if staged > 0 {
            let them = staged == 1 ? "it" : "them"
            return [.message("\(staged) edit\(staged == 1 ? " is" : "s are") staged: commit \(them) (w, c) or discard \(them) (w, u) "
                             + "before opening another file", isError: true)]
        }
        if let busy { return [.message(busy + ": open another file when it has ended", isError: true)] }
        return [.prompt(prompt)]
    }

    /// The `o` prompt, the recent files under ↑ and ↓.
    var prompt: PromptLine {
        var line = PromptLine(label: "open (root or SQLite file; ↑↓ recent): ", text: "", purpose: .open)
        line.editor.history = LineHistory(entries: recent.paths.reversed())
        return line
    }

    /// Draws the recent files over `area` while the `o` prompt is open.
    func drawRecent(into screen: inout ScreenGrid, area: PaneArea) {
        for y in area.y..<(area.y + area.height) { screen.fill(x: area.x, y: y, count: area.width, role: .dialog) }
        let heading = recent.paths.isEmpty ? "No recent files yet: type a path." : "Recent files (↑ ↓ at the prompt), newest first:"
        screen.write(heading, x: area.x + 1, y: area.y, maxWidth: area.width - 1, role: .dialog)
        for (line, path) in recent.paths.enumerated() where line + 1 < area.height {
            screen.write("  " + path, x: area.x + 1, y: area.y + 1 + line, maxWidth: area.width - 1, role: .dialog)
        }
    }
}
