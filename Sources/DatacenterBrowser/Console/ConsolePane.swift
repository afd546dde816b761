import DatacenterKit
import Foundation

/// The SQL console on one store: type SQL, run it read-only, see the rows; earlier commands
/// come back with ↑ and ↓.
///
/// A query runs off the input loop (`BrowserCommand.consoleQuery`), so the screen says it is
/// running and keys still work: typing, history and scrolling go on, Enter waits for the
/// query to end, and Esc cancels it (`BrowserCommand.cancelConsoleQuery`) before it closes
/// the console. Its rows come back as `consoleFinished`.
struct ConsolePane {
    /// The query running now, and how many rows it has read.
    struct Running {
        let query: ConsoleQuery
        var rows = 0
    }

    /// The store it runs on.
    let storePath: String
    /// The store in words, for the title.
    let storeName: String
    /// The SQL being typed, with its cursor and the commands run before (↑ ↓).
    var input: LineEditor
    /// The commands run in this session, kept when the console moves to another store.
    var history: LineHistory { input.history ?? LineHistory() }
    /// The last query's output lines (or its error), or the greeting.
    var output: [String] = ["Type SQL and press Enter. It runs read-only; ↑ ↓ history, Esc closes."]
    /// True when `output` is an error, drawn in the error colour.
    var outputIsError = false
    /// The first output line on screen.
    var scroll = 0
    /// The query running in the background, if any.
    var running: Running?
    /// What Tab completes from: the store's names once read (`BrowserCommand.consoleNames`).
    var completion = SQLCompletion(tables: [:])
    /// The output of earlier commands, oldest first, each line with whether it is an error
    /// line: scrolled back to with PgUp, at most `scrollbackLimit` lines.
    private(set) var earlier: [(text: String, isError: Bool)] = []
    /// The most lines of earlier output kept.
    static let scrollbackLimit = 2_000
    /// The history being searched (`Ctrl-R`), if it is.
    private(set) var historySearch: HistorySearch?
    /// How rows show (`.mode`).
    var mode = ConsoleOutputMode.grid
    /// The favourite queries (`\\fs`, `\\f`): the user's, shared by every console.
    var favourites = ConsoleFavourites()
    /// Whether the `list`, `csv` and `tabs` modes start with the column names (`.headers`).
    var headers = false

    /// A console on the store at `storePath`, with the commands run before in `history`.
    init(storePath: String, storeName: String, history: LineHistory = LineHistory()) {
        self.storePath = storePath
        self.storeName = storeName
        self.input = LineEditor(history: history)
    }

    /// One key, in a pane `context.bodyHeight` lines tall.
    mutating func handle(_ key: Key, context: PaneContext) -> [PaneEffect] {
        let height = context.bodyHeight
        if var search = historySearch {
            switch search.handle(key) {
            case .searching: historySearch = search
            case .cancelled: historySearch = nil
            case .chosen(let line):
                historySearch = nil
                input.text = line
                input.followCursor(width: Self.inputWidth(paneWidth: context.paneWidth))
            }
            return []
        }
        switch key {
        case .character("\u{12}"):                           // Ctrl-R: search the history
            historySearch = HistorySearch(entries: history.entries)
            return []
        case .escape:
            guard let current = running else { return [.focus(.grid)] }
            running = nil
            output = ["> " + current.query.sql, "cancelled after \(Browser.grouped(current.rows)) row(s): nothing more is read"]
            outputIsError = true
            scroll = 0
            return [.command(.cancelConsoleQuery(current.query))]
        case .enter:
            if running != nil { return [.message("a query is running: wait for it, or Esc cancels it", isError: true)] }
            return run(context: context)
        case .tab: return complete(width: context.paneWidth)
        case .pageUp: scroll = max(-earlier.count, scroll - (height - 3))
        case .pageDown:
            // Down from the scrollback stops first at the top of the latest output.
            scroll = scroll < 0 ? min(0, scroll + (height - 3)) : min(max(0, output.count - 1), scroll + (height - 3))
        default:
            _ = input.handle(key)
            input.followCursor(width: Self.inputWidth(paneWidth: context.paneWidth))
        }
        return []
    }

    /// Completes the word before the cursor (`SQLCompletion`); several candidates are listed
    /// in the status line.
    private mutating func complete(width: Int) -> [PaneEffect] {
        guard let result = completion.complete(input.characters, cursor: input.cursor) else { return [] }
        input.replaceBeforeCursor(from: result.start, with: result.replacement)
        input.followCursor(width: Self.inputWidth(paneWidth: width))
        guard !result.candidates.isEmpty else { return [] }
        let shown = result.candidates.prefix(12).joined(separator: "  ")
        return [.message(shown + (result.candidates.count > 12 ? "  … (\(result.candidates.count))" : ""), isError: false)]
    }

    /// Starts the input as a query: every statement in turn, the rows of each shown.
    private mutating func run(context: PaneContext) -> [PaneEffect] {
        var sql = input.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !sql.isEmpty else { return [] }
        // Enter through the editor records the line in the history and ends any walk in it.
        _ = input.handle(.enter)
        input.text = ""
        scroll = 0
        keepEarlierOutput()
        if let answer = setting(sql) {
            output = ["> " + sql] + answer.lines
            outputIsError = answer.isError
            return []
        }
        if let favourite = favourites.handle(sql) {
            switch favourite {
            case .answer(let lines, let isError):
                output = ["> " + sql] + lines
                outputIsError = isError
                return []
            case .run(let query): sql = query
            }
        }
        let query = ConsoleQuery(id: context.ids.next(), storePath: storePath, sql: sql, catalog: context.catalog,
                                 pageLimit: context.visibleRowCount * 2, mode: mode, headers: headers)
        running = Running(query: query)
        output = ["> " + sql, "running…"]
        outputIsError = false
        return [.command(.consoleQuery(query))]
    }

    /// `.mode ?MODE?` and `.headers on|off`, which set how the next queries' rows show and
    /// read nothing: their answer; nil for any other input.
    private mutating func setting(_ line: String) -> (lines: [String], isError: Bool)? {
        let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        switch words.first?.lowercased() {
        case ".mode":
            guard words.count > 1 else { return (["mode: \(mode.rawValue) (\(ConsoleOutputMode.summary))"], false) }
            guard words.count == 2, let chosen = ConsoleOutputMode(rawValue: words[1].lowercased()) else {
                return (["unknown mode \(words.dropFirst().joined(separator: " ")): \(ConsoleOutputMode.summary)"], true)
            }
            mode = chosen
            return (["mode: \(chosen.rawValue)" + (chosen == .grid ? " (a single SELECT opens in the grid)" : "")], false)
        case ".headers":
            guard words.count == 2, ["on", "off"].contains(words[1].lowercased()) else {
                return ([".headers takes on or off: .headers on|off (now \(headers ? "on" : "off"))"], true)
            }
            headers = words[1].lowercased() == "on"
            return (["headers: \(headers ? "on" : "off")"], false)
        default:
            return nil
        }
    }

    /// Moves the output shown to the scrollback, before a new command replaces it.
    private mutating func keepEarlierOutput() {
        guard output.first?.hasPrefix("> ") == true else { return }  // the welcome line is not kept
        earlier += output.enumerated().map { ($0.element, outputIsError && $0.offset > 0) } + [("", false)]
        if earlier.count > Self.scrollbackLimit { earlier.removeFirst(earlier.count - Self.scrollbackLimit) }
    }

    /// A running query read more rows.
    mutating func progressed(id: Int, rows: Int) {
        if running?.query.id == id { running?.rows = rows }
    }

    /// A SELECT's first page is in and goes to the grid: true when it is the query running
    /// (the console then says where its rows are); a cancelled query's page is dropped.
    mutating func showedGrid(id: Int) -> Bool {
        guard let current = running, current.query.id == id else { return false }
        running = nil
        output = ["> " + current.query.sql, "the rows are in the grid: sort, filter, search and export them there; : comes back here"]
        outputIsError = false
        scroll = 0
        return true
    }

    /// A query ended; a result of a query that is no longer running (cancelled) is dropped.
    mutating func finished(id: Int, output: [String], isError: Bool) {
        guard running?.query.id == id else { return }
        running = nil
        self.output = output
        outputIsError = isError
        scroll = 0
    }

    /// The prompt before the input line.
    static let promptLabel = "sql> "

    /// The columns the input has after its prompt in a pane `paneWidth` wide.
    static func inputWidth(paneWidth: Int) -> Int { max(0, paneWidth - promptLabel.count) }

    /// The status line's key hints.
    var hints: String {
        if historySearch != nil { return " type to filter  ↑↓ Ctrl-R choose  Enter take  Esc cancel" }
        return running == nil ? " Enter run  Tab complete  ↑↓ history  ^R search  PgUp PgDn scroll  .help  Esc close"
            : " running… Esc cancels  ↑↓ history  PgUp PgDn scroll"
    }

    /// Draws the title, the output from `scroll` and the input line at the bottom of `area`.
    func draw(into screen: inout ScreenGrid, area: PaneArea, focused: Bool) {
        screen.fill(x: area.x, y: area.y, count: area.width, role: .gridHeader)
        var title = "SQL · " + storeName + " (read-only)"
        if let running { title += " · running… \(Browser.grouped(running.rows)) row(s) read · Esc cancels" }
        screen.write(title, x: area.x, y: area.y, maxWidth: area.width, role: .gridHeader)
        let inputLine = area.y + area.height - 1
        if let search = historySearch {
            drawHistorySearch(search, into: &screen, area: area)
            return
        }
        // The earlier output above the latest, which starts at the top until PgUp scrolls back.
        let document = earlier + output.enumerated().map { ($0.element, outputIsError && $0.offset > 0) }
        let start = max(0, earlier.count + scroll)
        let outputLines = document.dropFirst(start).flatMap { line in Inspector.wrap(line.text, width: area.width).map { ($0, line.isError) } }
        for (offset, line) in outputLines.prefix(max(0, area.height - 2)).enumerated() {
            screen.write(line.0, x: area.x, y: area.y + 1 + offset, maxWidth: area.width, role: line.1 ? .error : .grid)
        }
        screen.fill(x: area.x, y: inputLine, count: area.width, role: .dialog)
        let labelWidth = screen.write(Self.promptLabel, x: area.x, y: inputLine, maxWidth: area.width, role: .dialog)
        input.draw(into: &screen, x: area.x + labelWidth, y: inputLine, width: Self.inputWidth(paneWidth: area.width),
                   role: .dialog, cursorRole: .gridSelected)
    }
}

extension ConsolePane {
    /// The history search: the lines that match, newest first, the chosen one highlighted,
    /// and what is typed on the input line.
    func drawHistorySearch(_ search: HistorySearch, into screen: inout ScreenGrid, area: PaneArea) {
        let matches = search.matches
        let room = max(0, area.height - 2)
        let first = max(0, search.selected - room + 1)
        for (offset, line) in matches.dropFirst(first).prefix(room).enumerated() {
            let role: StyleRole = first + offset == search.selected ? .gridSelected : .grid
            screen.fill(x: area.x, y: area.y + 1 + offset, count: area.width, role: role)
            screen.write(line, x: area.x, y: area.y + 1 + offset, maxWidth: area.width, role: role)
        }
        if matches.isEmpty { screen.write("(no earlier command holds that)", x: area.x, y: area.y + 1, maxWidth: area.width, role: .null) }
        let inputLine = area.y + area.height - 1
        screen.fill(x: area.x, y: inputLine, count: area.width, role: .dialog)
        screen.write("history search: " + search.query, x: area.x, y: inputLine, maxWidth: area.width, role: .dialog)
    }
}

extension ConsolePane: Pane {
    static let keyHelp = [
        "  :              SQL console on the current store (read-only)",
        "                 a SELECT's rows open in the grid; Tab completes;",
        "                 Ctrl-R searches the history; \\fs NAME SQL, \\f NAME",
    ]
}
