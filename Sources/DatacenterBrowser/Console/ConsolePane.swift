import DatacenterKit
import Foundation

/// The SQL console on one store: write SQL over one line or several, run it read-only, see
/// the rows; earlier commands come back with ↑ and ↓; several tabs each keep a query and its
/// output (`ConsoleTab`).
///
/// Enter runs what is written, as the sqlite3 shell runs a finished statement; inside an
/// unfinished one (an open quote, comment or trigger body) it starts a new line, as the
/// shell continues one, and Ctrl-J always does.
///
/// A query runs off the input loop (`BrowserCommand.consoleQuery`), so the screen says it is
/// running and keys still work: typing, history, other tabs and scrolling go on, Enter in
/// its tab waits for the query to end, and Esc cancels it (`BrowserCommand.cancelConsoleQuery`)
/// before it closes the console. Its rows come back as `consoleFinished` to the tab that ran it.
struct ConsolePane {
    /// The store it runs on.
    let storePath: String
    /// The store in words, for the title.
    let storeName: String
    /// The tabs, in the order of the tab bar; never empty.
    private(set) var tabs: [ConsoleTab]
    /// The tab shown.
    private(set) var current = 0
    /// The commands run in this session, kept when the console moves to another store.
    var history: LineHistory { tab.input.history ?? LineHistory() }
    /// What Tab completes from: the store's names once read (`BrowserCommand.consoleNames`).
    var completion = SQLCompletion(tables: [:])
    /// The history being searched (`Ctrl-R`), if it is.
    private(set) var historySearch: HistorySearch?
    /// How rows show (`.mode`).
    var mode = ConsoleOutputMode.grid
    /// The favourite queries (`\\fs`, `\\f`): the user's, shared by every console.
    var favourites = ConsoleFavourites()
    /// Whether the `list`, `csv` and `tabs` modes start with the column names (`.headers`).
    var headers = false

    /// The most tabs open at once.
    static let tabLimit = 9

    /// A console on the store at `storePath`, with the commands run before in `history`.
    init(storePath: String, storeName: String, history: LineHistory = LineHistory()) {
        self.storePath = storePath
        self.storeName = storeName
        tabs = [ConsoleTab(history: history)]
    }

    /// The tab shown.
    private var tab: ConsoleTab {
        get { tabs[current] }
        set { tabs[current] = newValue }
    }

    /// The SQL being written in the tab shown, with its cursor.
    var input: QueryEditor {
        get { tab.input }
        set { tab.input = newValue }
    }
    /// The output of the tab shown.
    var output: [String] { tab.output }
    /// True when the tab shown's output is an error.
    var outputIsError: Bool { tab.outputIsError }
    /// The query the tab shown is running, if any.
    var running: ConsoleTab.Running? { tab.running }

    /// One key, in a pane `context.bodyHeight` lines tall: the map of the console's state
    /// (`keyMap`) says what each does; other keys edit the SQL, or the history search.
    mutating func handle(_ key: Key, context: PaneContext) -> [PaneEffect] {
        let width = Self.inputWidth(paneWidth: context.paneWidth)
        defer { tabs[current].input.followCursor(width: width, height: Self.inputHeight(lines: input.lines.count, paneHeight: context.bodyHeight)) }
        // Ctrl-J is Enter in the history search, as everywhere but the editor.
        let key = historySearch != nil && key == .control("j") ? .enter : key
        if let effects = keyMap.run(key, on: &self, context: context) { return effects }
        if historySearch != nil { return searchHistory(key) } else { _ = input.handle(key) }
        return []
    }

    /// True when a paste goes into the SQL being written (not into the history search).
    var takesPaste: Bool { historySearch == nil }

    /// Pasted text, inserted at the cursor whole, its line breaks new lines.
    mutating func paste(_ text: String, context: PaneContext) {
        input.insert(text)
        tabs[current].input.followCursor(width: Self.inputWidth(paneWidth: context.paneWidth),
                                         height: Self.inputHeight(lines: input.lines.count, paneHeight: context.bodyHeight))
    }

    /// The keys of the console's state now.
    var keyMap: KeyMap<ConsolePane> { historySearch == nil ? ConsolePane.editorKeys : ConsolePane.historySearchKeys }

    /// The console's maps, in the order the help lists them.
    static var keyMaps: [KeyMap<ConsolePane>] { [editorKeys, historySearchKeys] }

    /// The console's keys while SQL is written.
    static let editorKeys = KeyMap<ConsolePane>("SQL console (: in the tree or grid; read-only)", [
        KeyCommand([.enter], "Enter", "run it (inside an open quote or trigger: a new line);",
                   "a SELECT's rows open in the grid", hint: "Enter run") { console, _, context in
            if Self.isUnfinished(console.input.text) {
                console.input.newLine()
                return []
            }
            if console.tab.running != nil { return [.message("a query is running: wait for it, or Esc cancels it", isError: true)] }
            return console.run(context: context)
        },
        KeyCommand([.control("j")], "Ctrl-J", "a new line", hint: "^J new line") { console, _, _ in
            console.input.newLine()
            return []
        },
        KeyCommand([.tab], "Tab", "complete a table, column or command name", hint: "Tab complete") { console, _, _ in console.complete() },
        KeyCommand([.up, .down], "↑ ↓", "the commands run before (in a query of", "several lines, the line above / below)",
                   hint: "↑↓ history") { console, key, _ in
            _ = console.input.handle(key)
            return []
        },
        KeyCommand([.character("\u{12}")], "Ctrl-R", "search the commands run before", hint: "^R search") { console, _, _ in
            console.historySearch = HistorySearch(entries: console.history.entries)
            return []
        },
        KeyCommand([.control("t")], "Ctrl-T", "a new tab (each keeps a query and its output)", hint: "^T tab") { console, _, _ in
            console.openTab()
        },
        KeyCommand([.control("n"), .control("p")], "Ctrl-N Ctrl-P", "the next / previous tab") { console, key, _ in
            guard console.tabs.count > 1 else { return [.message("one tab: Ctrl-T opens another", isError: false)] }
            console.current = (console.current + (key == .control("n") ? 1 : console.tabs.count - 1)) % console.tabs.count
            return []
        },
        KeyCommand([.control("x")], "Ctrl-X", "close the tab") { console, _, _ in console.closeTab() },
        KeyCommand([.pageUp, .pageDown], "PgUp PgDn", "scroll the output, and the earlier ones", hint: "PgUp PgDn") { console, key, context in
            let inputHeight = Self.inputHeight(lines: console.input.lines.count, paneHeight: context.bodyHeight)
            let page = max(1, context.bodyHeight - 2 - inputHeight)
            if key == .pageUp {
                console.tab.scroll = max(-console.tab.earlier.count, console.tab.scroll - page)
            } else {
                // Down from the scrollback stops first at the top of the latest output.
                console.tab.scroll = console.tab.scroll < 0 ? min(0, console.tab.scroll + page)
                    : min(max(0, console.tab.output.count - 1), console.tab.scroll + page)
            }
            return []
        },
        KeyCommand([.escape], "Esc", "cancel the query running; else back to the grid", hint: "Esc close") { console, _, _ in
            guard let running = console.tab.running else { return [.focus(.grid)] }
            console.tab.show(command: running.query.sql, ["cancelled after \(Browser.grouped(running.rows)) row(s): nothing more is read"], isError: true)
            return [.command(.cancelConsoleQuery(running.query))]
        },
    ], otherKeys: "edit the SQL: ← → Home End, ^A ^E ^U ^K ^W; \\fs NAME SQL keeps a favourite, \\f NAME runs it")

    /// The console's keys while its history is searched (Ctrl-R).
    static let historySearchKeys = KeyMap<ConsolePane>("SQL console: the history search (Ctrl-R)", [
        KeyCommand([.up, .down, .character("\u{12}")], "↑ ↓ Ctrl-R", "choose a command", hint: "↑↓ Ctrl-R choose") { console, key, _ in
            console.searchHistory(key)
        },
        KeyCommand([.enter], "Enter", "take it into the editor", hint: "Enter take") { console, key, _ in console.searchHistory(key) },
        KeyCommand([.escape], "Esc", "cancel the search", hint: "Esc cancel") { console, key, _ in console.searchHistory(key) },
    ], otherKeys: "type to filter")

    /// A key of the history search.
    private mutating func searchHistory(_ key: Key) -> [PaneEffect] {
        guard var search = historySearch else { return [] }
        switch search.handle(key) {
        case .searching: historySearch = search
        case .cancelled: historySearch = nil
        case .chosen(let line):
            historySearch = nil
            input.text = line
        }
        return []
    }

    /// True when `sql` ends inside a statement the shell would go on reading: an open quote,
    /// a comment or a trigger's body (`sqlite3_complete` says so with a `;` after it).
    static func isUnfinished(_ sql: String) -> Bool {
        let trimmed = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !trimmed.hasPrefix("."), !trimmed.hasPrefix("\\") else { return false }
        return !SQLText.isComplete(sql + "\n;")
    }

    /// Ctrl-T: a new tab, shown, after the others.
    private mutating func openTab() -> [PaneEffect] {
        guard tabs.count < Self.tabLimit else { return [.message("\(Self.tabLimit) tabs are open: Ctrl-X closes one", isError: true)] }
        tabs.append(ConsoleTab(history: history))
        current = tabs.count - 1
        return [.message("tab \(tabs.count): Ctrl-N Ctrl-P go from tab to tab, Ctrl-X closes it", isError: false)]
    }

    /// Ctrl-X: closes the tab shown (cancelling its query); what it held unrun goes to the
    /// history, so closing loses nothing. The last tab stays: Esc closes the console.
    private mutating func closeTab() -> [PaneEffect] {
        guard tabs.count > 1 else { return [.message("the last tab stays: Esc closes the console", isError: false)] }
        var effects: [PaneEffect] = []
        if let running = tab.running { effects.append(.command(.cancelConsoleQuery(running.query))) }
        let unrun = tab.input.text.trimmingCharacters(in: .whitespacesAndNewlines)
        var history = self.history
        if !unrun.isEmpty { history.record(tab.input.text) }
        let closed = current + 1
        tabs.remove(at: current)
        current = min(current, tabs.count - 1)
        for index in tabs.indices { tabs[index].input.history = history }
        effects.append(.message("tab \(closed) closed" + (unrun.isEmpty ? "" : ": what it held is in the history (↑, Ctrl-R)"), isError: false))
        return effects
    }

    /// Completes the word before the cursor (`SQLCompletion`); several candidates are listed
    /// in the status line.
    private mutating func complete() -> [PaneEffect] {
        guard let result = completion.complete(input.characters, cursor: input.cursor) else { return [] }
        input.replaceBeforeCursor(from: result.start, with: result.replacement)
        guard !result.candidates.isEmpty else { return [] }
        let shown = result.candidates.prefix(12).joined(separator: "  ")
        return [.message(shown + (result.candidates.count > 12 ? "  … (\(result.candidates.count))" : ""), isError: false)]
    }

    /// Starts the input as a query: every statement in turn, the rows of each shown.
    private mutating func run(context: PaneContext) -> [PaneEffect] {
        var sql = input.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !sql.isEmpty else { return [] }
        let statements = SQLText.statements(in: input.text)
        if statements.count > 1, input.cursor < input.characters.count, !sql.hasPrefix("."), !sql.hasPrefix("\\") {
            // Several statements and the cursor inside them, not at the end (where Enter runs
            // them all): the one under the cursor runs (harlequin's run-selection), and the
            // buffer stays, to run another.
            let chosen = statements.first { $0.range.upperBound >= input.cursor } ?? statements[statements.count - 1]
            sql = chosen.text.trimmingCharacters(in: .whitespacesAndNewlines)
            input.history?.record(sql)
        } else {
            // Enter through the editor records the text in the history and ends any walk in it.
            _ = input.handle(.enter)
            input.text = ""
        }
        tab.keepEarlierOutput()
        // Every tab walks the same history: the one this Enter recorded in.
        let history = self.history
        for index in tabs.indices { tabs[index].input.history = history }
        if let answer = setting(sql) {
            tab.show(command: sql, answer.lines, isError: answer.isError)
            return []
        }
        let words = sql.split(whereSeparator: \.isWhitespace).map(String.init)
        if words.first?.lowercased() == ".import" {
            switch ConsoleImport.staged(Array(words.dropFirst()), storePath: storePath, catalog: context.catalog) {
            case .success(let edit):
                tab.show(command: sql, ["staged: \(edit.preview)", "nothing is written until the commit: w reviews it, c commits"], isError: false)
                return [.stage(edit)]
            case .failure(let refusal):
                tab.show(command: sql, [refusal.message], isError: true)
                return []
            }
        }
        if let favourite = favourites.handle(sql) {
            switch favourite {
            case .answer(let lines, let isError):
                tab.show(command: sql, lines, isError: isError)
                return []
            case .run(let query): sql = query
            }
        }
        let query = ConsoleQuery(id: context.ids.next(), storePath: storePath, sql: sql, catalog: context.catalog,
                                 pageLimit: context.visibleRowCount * 2, mode: mode, headers: headers)
        tab.show(command: sql, ["running…"], isError: false)
        tab.running = ConsoleTab.Running(query: query)
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

    /// The tab running query `id`, if one is.
    private func tabRunning(_ id: Int) -> Int? {
        tabs.firstIndex { $0.running?.query.id == id }
    }

    /// A running query read more rows.
    mutating func progressed(id: Int, rows: Int) {
        if let index = tabRunning(id) { tabs[index].running?.rows = rows }
    }

    /// A SELECT's first page is in and goes to the grid: true when a tab is running it (the
    /// console then says where its rows are, in that tab, and `note` if any); a cancelled
    /// query's page is dropped.
    mutating func showedGrid(id: Int, note: String? = nil) -> Bool {
        guard let index = tabRunning(id), let running = tabs[index].running else { return false }
        tabs[index].show(command: running.query.sql,
                         ["the rows are in the grid: sort, filter, search and export them there; : comes back here"] + (note.map { [$0] } ?? []),
                         isError: false)
        return true
    }

    /// A query ended; a result of a query no tab is running (cancelled) is dropped.
    mutating func finished(id: Int, output: [String], isError: Bool) {
        guard let index = tabRunning(id), let running = tabs[index].running else { return }
        tabs[index].finish(running.query.sql, output: output, isError: isError)
    }

    /// The prompt before the first line of the input, and before the others.
    static let promptLabel = "sql> "
    static let continuationLabel = "...> "

    /// The columns the input has after its prompt in a pane `paneWidth` wide.
    static func inputWidth(paneWidth: Int) -> Int { max(0, paneWidth - promptLabel.count) }

    /// The lines the input takes for a text of `lines` lines: all of them, up to a third of
    /// the pane (at least one, at most 10).
    static func inputHeight(lines: Int, paneHeight: Int) -> Int {
        max(1, min(lines, min(10, (paneHeight - 1) / 3)))
    }

    /// The status line's hints: the map's, or, while a query runs, what can be done meanwhile.
    var statusHints: [String] {
        guard historySearch == nil, tab.running != nil else { return keyMap.hints }
        return ["running… Esc cancels", "^T another tab", "↑↓ history", "PgUp PgDn scroll"]
    }

    /// Draws the title and tab bar, the output from the tab's scroll, and the input at the
    /// bottom of `area`.
    func draw(into screen: inout ScreenGrid, area: PaneArea, focused: Bool) {
        screen.fill(x: area.x, y: area.y, count: area.width, role: .gridHeader)
        var title = "SQL · " + storeName + " (read-only)"
        if let running = tab.running { title += " · running… \(Browser.grouped(running.rows)) row(s) read · Esc cancels" }
        let titleWidth = screen.write(title, x: area.x, y: area.y, maxWidth: area.width, role: .gridHeader)
        if tabs.count > 1 { drawTabBar(into: &screen, x: area.x + titleWidth + 2, y: area.y, maxX: area.x + area.width) }
        if let search = historySearch {
            drawHistorySearch(search, into: &screen, area: area)
            return
        }
        let width = Self.inputWidth(paneWidth: area.width)
        let inputHeight = Self.inputHeight(lines: input.lines.count, paneHeight: area.height)
        // The earlier output above the latest, which starts at the top until PgUp scrolls back.
        let document = tab.earlier + tab.shownOutput
        let start = max(0, tab.earlier.count + tab.scroll)
        let outputLines = document.dropFirst(start).flatMap { line in Inspector.wrap(line.text, width: area.width).map { ($0, line.isError) } }
        for (offset, line) in outputLines.prefix(max(0, area.height - 1 - inputHeight)).enumerated() {
            screen.write(line.0, x: area.x, y: area.y + 1 + offset, maxWidth: area.width, role: line.1 ? .error : .grid)
        }
        let layout = input.layout(width: width, height: inputHeight)
        let top = area.y + area.height - inputHeight
        for (offset, line) in layout.lines.enumerated() {
            let y = top + offset
            screen.fill(x: area.x, y: y, count: area.width, role: .dialog)
            let label = layout.firstLine + offset == 0 ? Self.promptLabel : Self.continuationLabel
            let labelWidth = screen.write(label, x: area.x, y: y, maxWidth: area.width, role: .dialog)
            line.draw(into: &screen, x: area.x + labelWidth, y: y, role: .dialog,
                      cursorRole: offset == layout.cursorLine ? .gridSelected : nil)
        }
    }

    /// The tabs' labels from (`x`, `y`), the one shown highlighted, as far as `maxX`.
    private func drawTabBar(into screen: inout ScreenGrid, x: Int, y: Int, maxX: Int) {
        var x = x
        for (index, tab) in tabs.enumerated() where x < maxX {
            let label = " " + tab.label(number: index + 1) + (tab.running == nil ? "" : " …") + " "
            x += screen.write(label, x: x, y: y, maxWidth: maxX - x, role: index == current ? .gridSelected : .gridHeader) + 1
        }
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
            screen.write(line.replacingOccurrences(of: "\n", with: " ↵ "), x: area.x, y: area.y + 1 + offset, maxWidth: area.width, role: role)
        }
        if matches.isEmpty { screen.write("(no earlier command holds that)", x: area.x, y: area.y + 1, maxWidth: area.width, role: .null) }
        let inputLine = area.y + area.height - 1
        screen.fill(x: area.x, y: inputLine, count: area.width, role: .dialog)
        screen.write("history search: " + search.query, x: area.x, y: inputLine, maxWidth: area.width, role: .dialog)
    }
}

extension ConsolePane: Pane {
    /// The console's commands, listed after its keys.
    static var helpAfterKeys: [String] {
        ["  console commands, as in the sqlite3 shell:"] + ConsoleDotCommand.helpLines.map { "    " + $0 }
    }
}
