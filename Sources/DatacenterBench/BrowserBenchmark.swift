import CSQLite
import DatacenterBrowser
import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation

/// The browser benchmarks behind `datacenter bench browse`: the engine and the render of
/// the first screen and of the last page, off-terminal, against raw SQLite reading the same
/// rows.
package enum BrowserBenchmark {
    /// Builds a `messages` table of `rows` rows (the shape of the comparison's big.db).
    package static func makeMessages(at path: String, rows: Int) throws {
        let db = try Database(path: path)
        try db.execute("CREATE TABLE messages(id integer primary key, uin integer, time integer, content text, read boolean)")
        let words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike hello world meeting".split(separator: " ")
        try db.inTransaction {
            let insert = try db.cachedStatement("INSERT INTO messages VALUES (?, ?, ?, ?, ?)")
            for i in 1...rows {
                // Each row's text starts with its number, so the last row's text is in that row
                // alone and a search for it scans the whole table (the words after it repeat
                // every 16 rows).
                var content = "message \(i): "
                var j = UInt(i)
                while content.utf8.count < 100 { content += words[Int(j % UInt(words.count))] + " "; j = j &* 31 &+ 7 }
                try insert.execute([.integer(Int64(i)), .integer(Int64(100_000 + i * 37 % 900_000)), .integer(Int64(1_600_000_000 + i * 7)),
                                    .text(String(content.prefix(100))), .integer(Int64(i % 2))])
            }
        }
        try db.execute("CREATE INDEX messages_uin ON messages(uin)")
    }

    /// The scenarios, in the order they are reported.
    package static let scenarios = ["browse-first-screen", "browse-last-page", "browse-keypress"] + BrowserWorkflowBenchmark.scenarios
        + BrowserTerminalBenchmark.scenarios + BrowserPasteBenchmark.scenarios + BrowserCommitUndoBenchmark.scenarios

    /// Hands `event` to the browser and does the reads it asks for (pages) at once, on this
    /// thread, as the terminal's command runner would between two keys: what a key costs
    /// until its screen is ready. Row counts, which run beside the browsing, are left out.
    static func settle(_ browser: Browser, _ event: BrowserEvent) {
        browser.handle(event)
        performCommands(of: browser)
    }

    /// Does the reads the browser asked for (pages, not row counts) at once, on this thread,
    /// until it asks for no more.
    static func performCommands(of browser: Browser) {
        var commands = browser.takeCommands()
        while !commands.isEmpty {
            for command in commands {
                if case .countRows = command { continue }
                if let result = command.perform() { browser.handle(result) }
            }
            commands = browser.takeCommands()
        }
    }

    /// Runs the scenarios on `table` of the SQLite file at `path`, on a `width` × `height`
    /// screen, and reports the selected ones. They run as one session (open, jump to the
    /// end, move), so all of them are measured.
    /// The slow paths follow (`BrowserWorkflowBenchmark`), against the sqlite3 shell; their
    /// exports are written in `scratch`.
    /// The terminal scenarios (`BrowserTerminalBenchmark`) run when `rows` says how many rows
    /// the table has (one the benchmark built: its last row's text is known).
    package static func run(path: String, table: String, scratch: String, width: Int = 120, height: Int = 40, rounds: Int = 7,
                           rows: Int? = nil, selection: BenchmarkSelection = .all, report: (BenchmarkResult) throws -> Void) throws {
        func reportSelected(_ result: BenchmarkResult) throws { if selection.includes(result.scenario) { try report(result) } }
        if selection.includesAny("browse-first-screen", "browse-last-page", "browse-keypress") {
            try runOpening(path: path, table: table, width: width, height: height, rounds: rounds, report: reportSelected)
        }
        try BrowserWorkflowBenchmark.run(path: path, table: table, scratch: scratch, selection: selection, report: report)
        if let rows {
            try BrowserTerminalBenchmark.run(path: path, table: table, rows: rows, rounds: 5, selection: selection, report: report)
        }
        try BrowserPasteBenchmark.run(scratch: scratch, selection: selection, report: report)
        try BrowserCommitUndoBenchmark.run(scratch: scratch, selection: selection, report: report)
    }

    /// The opening scenarios: first screen, last page, a key.
    private static func runOpening(path: String, table: String, width: Int, height: Int, rounds: Int,
                                   report reportSelected: (BenchmarkResult) throws -> Void) throws {
        let page = height - 3
        var firstScreen: [Double] = [], firstRaw: [Double] = []
        var lastPage: [Double] = [], lastRaw: [Double] = []
        var keypress: [Double] = [], keypressRaw: [Double] = []
        for _ in 0..<rounds {
            var browser: Browser?
            firstScreen.append(try Stopwatch.time {
                let b = Browser(catalog: try BrowserCatalog(path: path, keys: .empty), width: width, height: height)
                b.openNode(named: table)
                performCommands(of: b)
                _ = b.render()
                browser = b
            })
            // A grid that did not open would make every figure below measure nothing.
            guard browser?.focus == .grid else {
                throw BrowserOpenError(description: "the benchmark could not open \(table) in \(path)")
            }
            firstRaw.append(try Stopwatch.time { _ = try rawPage(path: path, table: table, limit: page * 2, last: false) })
            guard let b = browser else { continue }
            lastPage.append(Stopwatch.time {
                settle(b, .key(.end))
                _ = b.render()
            })
            lastRaw.append(try Stopwatch.time { _ = try rawPage(path: path, table: table, limit: page * 2, last: true) })
            settle(b, .key(.home))
            let presses = 200
            keypress.append(Stopwatch.time {
                for _ in 0..<presses {
                    settle(b, .key(.down))
                    _ = b.render()
                }
            } / Double(presses))
            keypressRaw.append(try Stopwatch.time { _ = try rawPage(path: path, table: table, limit: page, last: false) })
        }
        let first = (Stopwatch.median(firstScreen), Stopwatch.median(firstRaw))
        try reportSelected(BenchmarkResult(scenario: "browse-first-screen", engineNanoseconds: first.0, baselineNanoseconds: first.1,
                                   target: "engine_ns <= 150 ms (baseline: raw open + first page)", meetsTarget: first.0 <= 150_000_000))
        let last = (Stopwatch.median(lastPage), Stopwatch.median(lastRaw))
        // Nothing else has run in the process yet: its peak is what opening and End cost.
        let rss = BrowserWorkflowBenchmark.peakResidentMegabytes()
        try reportSelected(BenchmarkResult(scenario: "browse-last-page", engineNanoseconds: last.0, baselineNanoseconds: last.1,
                                   target: String(format: "engine_ns <= 16 ms, peak RSS <= 32 MB (%.0f MB) (baseline: raw last page)", rss),
                                   meetsTarget: last.0 <= 16_000_000 && rss <= 32))
        let key = (Stopwatch.median(keypress), Stopwatch.median(keypressRaw))
        try reportSelected(BenchmarkResult(scenario: "browse-keypress", engineNanoseconds: key.0, baselineNanoseconds: key.1,
                                   target: "engine_ns <= 16 ms (baseline: raw page read)", meetsTarget: key.0 <= 16_000_000))
    }

    /// Raw SQLite: open read-only and read one page from the start or the end.
    static func rawPage(path: String, table: String, limit: Int, last: Bool) throws -> Int {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { throw DatabaseError(extendedCode: SQLITE_CANTOPEN, message: "open", path: path) }
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        let sql = "SELECT rowid, * FROM \(Database.quoteIdentifier(table)) ORDER BY rowid \(last ? "DESC" : "ASC") LIMIT \(limit)"
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw DatabaseError(extendedCode: SQLITE_ERROR, message: "prepare", sql: sql) }
        defer { sqlite3_finalize(statement) }
        var count = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            for column in 0..<sqlite3_column_count(statement) { _ = sqlite3_column_text(statement, column) }
            count += 1
        }
        return count
    }
}
