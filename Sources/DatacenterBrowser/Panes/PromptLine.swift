import DatacenterKit
import DatacenterText

/// A line typed at the bottom of the screen (`/` `?` search, `f` filter, `e` edit, `o` insert,
/// `Ctrl-G` go to): it takes
/// every key while it is open, and Enter hands the text to the grid that asked for it.
///
/// The text is edited by a `LineEditor` (cursor, Home/End, Ctrl-A/E/U/W/K, sideways
/// scrolling); a search or filter prompt walks the session's earlier ones with ↑ and ↓.
struct PromptLine {
    /// What the text is for: the grid's search (either way), filter, edit or insert, the row
    /// to go to, the file an export writes (`export`; `exportReplace` after it said the file
    /// exists), or the root or file to browse instead (`open`).
    enum Purpose {
        case search, filter, edit, insert, export, exportReplace, open
        /// A search towards the first row (`?`).
        case searchBackward
        /// A row to go to (`Ctrl-G`): a number, or `key VALUE`.
        case goTo
        /// A column to go to by name (`c`).
        case column
        /// The column (and aggregate) of a pivot (`W`).
        case pivot
        /// A column's new name (`^`): shown only, or `=NAME` a rename staged.
        case renameColumn

        /// True for a search either way: both walk the session's searches with ↑ ↓.
        var isSearch: Bool { self == .search || self == .searchBackward }
    }

    /// What became of a key.
    enum Outcome: Equatable {
        /// Still typing.
        case editing
        /// Esc: closed, nothing done.
        case cancelled
        /// Enter: closed with this text.
        case submitted(String)
    }

    /// The text before the input: `/`, or what is edited or inserted.
    private(set) var label: String
    /// The text being typed, with its cursor and history.
    var editor: LineEditor
    /// What Enter does with the text.
    let purpose: Purpose
    /// A search prompt's mode: a regular expression rather than text (`Ctrl-R` switches).
    private(set) var isRegex = false
    /// True while the text the prompt opened with is selected, as a shell's search offers
    /// the last one: typing replaces it, Backspace clears it, a cursor key keeps it.
    private(set) var selectsText = false

    /// A prompt showing `label`, starting with `text` and the cursor at its end.
    init(label: String, text: String, purpose: Purpose) {
        self.label = label
        self.editor = LineEditor(text)
        self.purpose = purpose
    }

    /// The search prompt (`/`, or `?` when `backward`), starting from the last search's
    /// text in its mode.
    init(searching last: SearchNeedle?, backward: Bool) {
        self.init(label: "", text: last?.text ?? "", purpose: backward ? .searchBackward : .search)
        isRegex = last?.isRegex ?? false
        selectsText = !(last?.text.isEmpty ?? true)
        label = searchLabel
    }

    /// A search prompt's label: `/` or `?`, `regex /` or `regex ?` in the regex mode.
    private var searchLabel: String {
        (isRegex ? "regex " : "") + (purpose == .searchBackward ? "?" : "/")
    }

    /// The text typed so far.
    var text: String { editor.text }

    /// One key, edited in a line `screenWidth` columns wide: Enter submits, Esc cancels,
    /// the rest edit the text (keys the editor does not take are ignored).
    mutating func handle(_ key: Key, screenWidth: Int) -> Outcome {
        if purpose.isSearch, key == .character("\u{12}") { // Ctrl-R: text or regular expression
            isRegex.toggle()
            label = searchLabel
            editor.followCursor(width: fieldWidth(screenWidth: screenWidth))
            return .editing
        }
        if selectsText {
            selectsText = false
            switch key {
            case .character(let c) where LineEditor.isTypable(c): editor.text = ""
            case .backspace, .control("d"), .control("u"), .control("k"), .control("w"):
                editor.text = ""
                return .editing
            default: break
            }
        }
        let outcome = editor.handle(key)
        switch outcome {
        case .cancelled: return .cancelled
        case .submitted(let text): return .submitted(text)
        case .edited, .consumed, .ignored:
            editor.followCursor(width: fieldWidth(screenWidth: screenWidth))
            return .editing
        }
    }

    /// Pasted text, inserted at the cursor whole (replacing the text offered selected).
    mutating func paste(_ text: String, screenWidth: Int) {
        if selectsText { editor.text = "" }
        selectsText = false
        editor.insert(text)
        editor.followCursor(width: fieldWidth(screenWidth: screenWidth))
    }

    /// The columns the text has after the label.
    private func fieldWidth(screenWidth: Int) -> Int {
        max(0, screenWidth - TerminalText.width(of: label))
    }

    /// Draws the label and the text on line `y`, the character under the cursor highlighted.
    func draw(into screen: inout ScreenGrid, y: Int) {
        screen.fill(x: 0, y: y, count: screen.width, role: .dialog)
        let labelWidth = screen.write(label, x: 0, y: y, maxWidth: screen.width, role: .dialog)
        editor.draw(into: &screen, x: labelWidth, y: y, width: fieldWidth(screenWidth: screen.width),
                    role: selectsText ? .gridSelected : .dialog, cursorRole: .gridSelected)
    }
}

/// This session's lines typed at the prompt, newest last, walked with ↑ and ↓: the searches
/// (`/`, `?`) and the filters (`f`), each prompt with its own.
struct PromptHistories {
    /// The searches.
    var search = LineHistory()
    /// The filters.
    var filter = LineHistory()

    /// `line` with the history of its kind, if it has one.
    func attached(to line: PromptLine) -> PromptLine {
        var line = line
        if line.purpose.isSearch { line.editor.history = search }
        if line.purpose == .filter { line.editor.history = filter }
        return line
    }

    /// Keeps the history `line` walked and added to.
    mutating func keep(from line: PromptLine) {
        if line.purpose.isSearch, let history = line.editor.history { search = history }
        if line.purpose == .filter, let history = line.editor.history { filter = history }
    }
}
