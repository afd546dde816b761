import DatacenterBrowser
import DatacenterKit
import Foundation

/// The browser's slow paths, each against the sqlite3 shell doing the same query on the
/// same file: the console's first rows and its Esc, search, sort by an unindexed column,
/// filter with its count, and export to CSV. Run by `datacenter bench browse` after the
/// opening scenarios (`BrowserBenchmark`).
///
/// The browser is driven as a user drives it (keys, then the reads they ask for, done at
/// once on this thread as the command runner would), off-terminal, on a 120 × 40 screen.
enum BrowserWorkflowBenchmark {
    /// The scenarios, in the order they run (the console first, so the peak memory it
    /// reports is not that of an export or a sort).
    static let scenarios = ["console-first-rows", "console-cancel", "browse-search", "browse-sort", "browse-filter", "browse-export-csv"]

    /// Why a scenario could not measure what it measures.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What the scenarios read: the table, its first text column and a needle from its last row.
    struct Subject {
        let path: String
        let table: String
        let column: String
        /// Every column of the table.
        let columns: [String]
        /// The columns of text affinity (declared `TEXT`, `CHAR`, `CLOB`…, or no type): what
        /// a sqlite3 user searches with `LIKE`.
        let textColumns: [String]
        /// Text of the last row (by rowid), up to 40 characters: a search for it scans the table.
        let needle: String
        /// A word of the needle: a filter on it keeps a share of the rows.
        let word: String
        var quotedTable: String { Database.quoteIdentifier(table) }
        var quotedColumn: String { Database.quoteIdentifier(column) }

        init(path: String, table: String) throws {
            self.path = path
            self.table = table
            let db = try Database(path: path, mode: .readOnly)
            let names = try db.makeStatement("SELECT * FROM \(Database.quoteIdentifier(table)) LIMIT 0").columnNames
            guard let last = try db.queryFirst("SELECT * FROM \(Database.quoteIdentifier(table)) ORDER BY rowid DESC LIMIT 1"),
                  let index = last.values.firstIndex(where: { ($0.stringValue?.count ?? 0) >= 8 }),
                  let text = last.values[index].stringValue else {
                throw Failure(description: "\(table) in \(path) has no text column to search, sort and filter by")
            }
            column = names[index]
            columns = names
            // SQLite's affinity rule: a declared type holding CHAR, CLOB or TEXT is text.
            let declared = try db.query("SELECT name, upper(type) FROM pragma_table_info(?)", [.text(table)])
                .compactMap { row -> String? in
                    guard let name = row[0].stringValue, let type = row[1].stringValue else { return nil }
                    return ["CHAR", "CLOB", "TEXT"].contains(where: type.contains) ? name : nil
                }
            textColumns = declared.isEmpty ? [column] : declared
            needle = String(text.prefix(40)).trimmingCharacters(in: .whitespaces)
            let words = needle.components(separatedBy: " ").filter { $0.count >= 4 }
            word = words.dropFirst().first ?? words.first ?? String(needle.prefix(4) as Substring)
        }
    }

    /// A SQL string literal of `text`.
    static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    /// Runs the selected scenarios and reports each; `scratch` is a folder for the exports.
    static func run(path: String, table: String, scratch: String, rounds: Int = 3, selection: BenchmarkSelection,
                    report: (BenchmarkResult) throws -> Void) throws {
        guard scenarios.contains(where: selection.includes) else { return }
        let subject = try Subject(path: path, table: table)
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let shellNote = SQLiteShell.path == nil ? " (sqlite3 not installed: no baseline)" : ""
        /// The shell's time for `sql`, or 0 when it is not installed.
        func shell(_ sql: String, options: [String] = [], output: String? = nil) throws -> Double {
            SQLiteShell.path == nil ? 0 : try SQLiteShell.time(database: path, sql: sql, options: options, output: output)
        }
        let page = (40 - 3) * 2

        if selection.includes("console-first-rows") {
            var engine: [Double] = [], baseline: [Double] = []
            for _ in 0..<rounds {
                let b = try browser(subject)
                engine.append(try Stopwatch.time {
                    try console("SELECT * FROM \(subject.quotedTable)", in: b)
                    _ = b.render()
                })
                guard b.focus == .grid, screen(of: b).contains("row 1 of") else { throw Failure(description: "the console's SELECT showed no grid") }
                // To the end of the result and back: the rows read stay one window.
                BrowserBenchmark.settle(b, .key(.end))
                BrowserBenchmark.settle(b, .key(.home))
                baseline.append(try shell("SELECT * FROM \(subject.quotedTable) LIMIT \(page)"))
            }
            let rss = peakResidentMegabytes()
            let first = Stopwatch.median(engine)
            try report(BenchmarkResult(scenario: "console-first-rows", engineNanoseconds: first, baselineNanoseconds: Stopwatch.median(baseline),
                                       target: String(format: "engine_ns <= 200 ms, peak RSS <= 40 MB (%.0f MB)%@", rss, shellNote),
                                       meetsTarget: first <= 200_000_000 && rss <= 40))
        }

        if selection.includes("console-cancel") {
            var engine: [Double] = [], baseline: [Double] = []
            let sorted = "SELECT * FROM \(subject.quotedTable) ORDER BY \(subject.quotedColumn) DESC"
            for _ in 0..<rounds {
                // A small table sorts within the 300 ms: its rows crossed with themselves do not.
                let crossed = "SELECT * FROM \(subject.quotedTable) AS a, \(subject.quotedTable) AS b ORDER BY a.\(subject.quotedColumn) DESC"
                engine.append(try cancelTime(of: sorted, subject: subject) ?? cancelTime(of: crossed, subject: subject)
                              ?? { throw Failure(description: "the query ended in 300 ms: nothing to cancel") }())
                baseline.append(try shell(sorted + " LIMIT \(page)"))
            }
            let stop = Stopwatch.median(engine)
            try report(BenchmarkResult(scenario: "console-cancel", engineNanoseconds: stop, baselineNanoseconds: Stopwatch.median(baseline),
                                       target: "engine_ns <= 200 ms from Esc to the query stopped (baseline: the query run to its first page)" + shellNote,
                                       meetsTarget: stop <= 200_000_000))
        }

        if selection.includes("browse-search") {
            var engine: [Double] = [], baseline: [Double] = [], floor: [Double] = []
            // The floor: the shell running the condition the browser gives SQLite (a type test
            // on every column that may hold text, then LIKE), so what the browser adds shows.
            let numericOnly = try TableSource.numericOnlyColumns(of: subject.table, on: Database(path: subject.path, mode: .readOnly))
            let predicate = SearchPredicate(needle: try SearchNeedle(subject.needle), columns: subject.columns, encryptedColumns: [],
                                            numericOnly: numericOnly)
            var floorCondition = predicate?.sql ?? "0"
            for argument in predicate?.arguments ?? [] {
                guard let mark = floorCondition.range(of: "?") else { break }
                floorCondition.replaceSubrange(mark, with: argument.sqlLiteral)
            }
            // What a sqlite3 user types to find the text: LIKE on the table's text columns.
            let pattern = literal("%" + subject.needle + "%")
            let textColumnsLike = subject.textColumns.map { Database.quoteIdentifier($0) + " LIKE " + pattern }.joined(separator: " OR ")
            for _ in 0..<rounds {
                let b = try browser(subject, openTable: true)
                engine.append(Stopwatch.time {
                    BrowserBenchmark.settle(b, .key(.character("/")))
                    for character in subject.needle { b.handle(.key(.character(character))) }
                    BrowserBenchmark.settle(b, .key(.enter))
                    _ = b.render()
                })
                guard screen(of: b).lowercased().contains(subject.needle.lowercased().prefix(20)) else {
                    throw Failure(description: "the search for \(subject.needle) did not land on it")
                }
                baseline.append(try shell("SELECT * FROM \(subject.quotedTable) WHERE \(textColumnsLike) LIMIT 1"))
                floor.append(try shell("SELECT * FROM \(subject.quotedTable) WHERE \(floorCondition) LIMIT 1"))
            }
            let floorRatio = Stopwatch.median(floor) / max(Stopwatch.median(baseline), 1)
            try reportRatio("browse-search", engine, baseline, limit: 1.5,
                            what: "the last row's text; baseline: sqlite3 LIKE on the text columns; floor: sqlite3 running "
                                + String(format: "the browser's condition, %.2f× the baseline", floorRatio),
                            note: shellNote, report: report)
        }

        if selection.includes("browse-sort") {
            var engine: [Double] = [], baseline: [Double] = []
            for _ in 0..<rounds {
                let b = try browser(subject, openTable: true)
                let columnIndex = try columnIndex(of: subject)
                for _ in 0..<columnIndex { b.handle(.key(.right)) }
                engine.append(Stopwatch.time {
                    BrowserBenchmark.settle(b, .key(.character("[")))
                    _ = b.render()
                })
                guard screen(of: b).contains("sorted by") else { throw Failure(description: "the sort did not show") }
                baseline.append(try shell("SELECT * FROM \(subject.quotedTable) ORDER BY \(subject.quotedColumn) LIMIT \(page)"))
            }
            try reportRatio("browse-sort", engine, baseline, limit: 1.5,
                            what: "unindexed column, first page; baseline: sqlite3 ORDER BY … LIMIT", note: shellNote, report: report)
        }

        if selection.includes("browse-filter") {
            var engine: [Double] = [], baseline: [Double] = []
            let filter = "\(subject.quotedColumn) LIKE \(literal("%" + subject.word + "%"))"
            for _ in 0..<rounds {
                let b = try browser(subject, openTable: true)
                engine.append(Stopwatch.time {
                    BrowserBenchmark.settle(b, .key(.character("f")))
                    for character in filter { b.handle(.key(.character(character))) }
                    b.handle(.key(.enter))
                    performAll(of: b)               // the first page and the count
                    _ = b.render()
                })
                guard screen(of: b).contains("where") else { throw Failure(description: "the filter did not show") }
                baseline.append(try shell("SELECT * FROM \(subject.quotedTable) WHERE \(filter) LIMIT \(page); "
                                              + "SELECT count(*) FROM \(subject.quotedTable) WHERE \(filter)"))
            }
            try reportRatio("browse-filter", engine, baseline, limit: 1.5,
                            what: "first page and count; baseline: the same WHERE in sqlite3", note: shellNote, report: report)
        }

        if selection.includes("browse-export-csv") {
            var engine: [Double] = [], baseline: [Double] = []
            let ours = scratch + "/export.csv", theirs = scratch + "/shell.csv"
            defer { for file in [ours, theirs] { try? FileManager.default.removeItem(atPath: file) } }
            for _ in 0..<rounds {
                engine.append(try Stopwatch.time {
                    let db = try Database(path: path, mode: .readOnly)
                    try PrivateFile.writeAtomically(to: ours) { try TableExport(table: table, format: .csv).run(on: db, to: $0) }
                })
                baseline.append(try shell("SELECT * FROM \(subject.quotedTable)", options: ["-csv", "-header"], output: theirs))
            }
            try reportRatio("browse-export-csv", engine, baseline, limit: 1.2,
                            what: "whole table; baseline: sqlite3 -csv -header to a file", note: shellNote, report: report)
        }
    }

    /// Reports `engine` against `baseline` (medians) with a ratio target of `limit`.
    private static func reportRatio(_ scenario: String, _ engine: [Double], _ baseline: [Double], limit: Double, what: String,
                                    note: String, report: (BenchmarkResult) throws -> Void) throws {
        let (e, b) = (Stopwatch.median(engine), Stopwatch.median(baseline))
        try report(BenchmarkResult(scenario: scenario, engineNanoseconds: e, baselineNanoseconds: b,
                                   target: String(format: "ratio <= %.1f (%@)", limit, what) + note, meetsTarget: b == 0 || e <= b * limit))
    }

    /// A browser on the subject's file, its table open in the grid when `openTable`.
    private static func browser(_ subject: Subject, openTable: Bool = false) throws -> Browser {
        let b = Browser(catalog: try BrowserCatalog(path: subject.path, keys: .empty), width: 120, height: 40)
        if openTable {
            b.openNode(named: subject.table)
            BrowserBenchmark.performCommands(of: b)
            guard b.focus == .grid else { throw Failure(description: "cannot open \(subject.table) in \(subject.path)") }
        }
        return b
    }

    /// Types `sql` in the console of `b` and runs it, doing the reads it asks for (not the count).
    private static func console(_ sql: String, in b: Browser) throws {
        BrowserBenchmark.settle(b, .key(.character(":")))
        for character in sql { b.handle(.key(.character(character))) }
        BrowserBenchmark.settle(b, .key(.enter))
    }

    /// Runs every command `b` asks for, row counts included, until it asks for no more.
    private static func performAll(of b: Browser) {
        var commands = b.takeCommands()
        while !commands.isEmpty {
            for command in commands { if let event = command.perform() { b.handle(event) } }
            commands = b.takeCommands()
        }
    }

    /// Where the subject's column is among the table's.
    private static func columnIndex(of subject: Subject) throws -> Int {
        let db = try Database(path: subject.path, mode: .readOnly)
        let names = try db.makeStatement("SELECT * FROM \(subject.quotedTable) LIMIT 0").columnNames
        return names.firstIndex(of: subject.column) ?? 0
    }

    /// Starts `sql` in the console on the command runner's threads, presses Esc once it has
    /// run for 300 ms, and returns the nanoseconds from Esc to the query's end; nil when the
    /// query ended before.
    private static func cancelTime(of sql: String, subject: Subject) throws -> Double? {
        let b = try browser(subject)
        let runner = BrowserCommandRunner()
        BrowserBenchmark.settle(b, .key(.character(":")))
        for character in sql { b.handle(.key(.character(character))) }
        b.handle(.key(.enter))
        for command in b.takeCommands() { runner.run(command) }
        Thread.sleep(forTimeInterval: 0.3)
        let early = runner.takeEvents()
        guard !early.contains(where: { if case .consoleGrid = $0 { return true } else { return false } }) else { return nil }
        let start = Stopwatch.now()
        b.handle(.key(.escape))
        for command in b.takeCommands() { runner.run(command) }
        while Double(Stopwatch.now() - start) < 30e9 {
            for event in runner.takeEvents() {
                if case .consoleFinished = event { return Double(Stopwatch.now() - start) }
            }
            Thread.sleep(forTimeInterval: 0.001)
        }
        throw Failure(description: "the query did not stop within 30 s of Esc")
    }

    /// What the browser's screen shows, line after line.
    private static func screen(of b: Browser) -> String { b.render().lines().joined(separator: "\n") }

    /// The process's peak resident memory so far, in megabytes.
    static func peakResidentMegabytes() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024      // kilobytes on Linux
    }
}
