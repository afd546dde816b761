import Foundation

/// One tab of the SQL console: a query being written, its output and scrollback, and the
/// query it runs. Tabs share the console's store, history, favourites and settings; each
/// keeps its own text and output, so a long query can wait in one while another is tried.
struct ConsoleTab: Sendable {
    /// The query running now, and how many rows it has read.
    struct Running: Sendable {
        let query: ConsoleQuery
        var rows = 0
    }

    /// The SQL being written, with its cursor, over as many lines as it takes.
    var input: QueryEditor
    /// The last query's output lines (or its error), or the greeting.
    var output: [String] = [ConsoleTab.greeting]
    /// True when `output` is an error, drawn in the error colour (after its echo).
    var outputIsError = false
    /// How many of `output`'s first lines echo the command (`echo`).
    var echoLines = 0
    /// The first output line on screen (negative: that far back in `earlier`).
    var scroll = 0
    /// The query running in the background, if any.
    var running: Running?
    /// The output of earlier commands, oldest first, each line with whether it is an error
    /// line: scrolled back to with PgUp, at most `scrollbackLimit` lines.
    private(set) var earlier: [(text: String, isError: Bool)] = []
    /// The most lines of earlier output kept.
    static let scrollbackLimit = 2_000

    /// What a new tab says.
    static let greeting = "Type SQL: Enter runs it (read-only), Ctrl-J adds a line, ↑ ↓ history."

    /// A tab whose editor walks `history`.
    init(history: LineHistory) {
        input = QueryEditor(history: history)
    }

    /// The tab's name in the tab bar: its number and the start of what it holds (the text
    /// being written, else the last command run).
    func label(number: Int) -> String {
        let source = input.isEmpty ? (output.first.flatMap { $0.hasPrefix("> ") ? String($0.dropFirst(2)) : nil } ?? "") : input.text
        let words = source.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return words.isEmpty ? "\(number)" : "\(number) " + (words.count > 14 ? words.prefix(13).trimmingCharacters(in: .whitespaces) + "…" : words)
    }

    /// Moves the output shown to the scrollback, before a new command replaces it.
    mutating func keepEarlierOutput() {
        guard output.first?.hasPrefix("> ") == true else { return }  // the greeting is not kept
        earlier += shownOutput + [("", false)]
        if earlier.count > Self.scrollbackLimit { earlier.removeFirst(earlier.count - Self.scrollbackLimit) }
    }

    /// The output's lines, each with whether it is drawn as an error.
    var shownOutput: [(text: String, isError: Bool)] {
        output.enumerated().map { ($0.element, outputIsError && $0.offset >= echoLines) }
    }

    /// Shows `output` (the command `sql` echoed, then its answer) as a query's end gives it.
    mutating func finish(_ sql: String, output: [String], isError: Bool) {
        running = nil
        self.output = output
        outputIsError = isError
        echoLines = Self.echo(sql).count
        scroll = 0
    }

    /// Shows `lines` after the command `sql`, echoed as the shell echoes it (`> ` before
    /// its first line, its other lines indented); the tab runs nothing then.
    mutating func show(command sql: String, _ lines: [String], isError: Bool) {
        finish(sql, output: Self.echo(sql) + lines, isError: isError)
    }

    /// The output lines that echo `sql`.
    static func echo(_ sql: String) -> [String] {
        sql.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { ($0.offset == 0 ? "> " : "  ") + $0.element }
    }
}
