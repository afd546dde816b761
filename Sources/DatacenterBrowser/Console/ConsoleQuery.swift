import DatacenterKit
import Foundation

/// SQL typed in the console, run off the input loop on a read-only connection of its own,
/// and stoppable from the input loop.
///
/// The connection is opened by `run` on the thread that runs the query, used there only, and
/// closed when `run` returns; no other code reaches it. While it is open, `cancel()` (from
/// any thread) sets the flag and calls `Database.interrupt()`, the one call SQLite allows from
/// another thread; the query also checks the flag every thousand SQLite steps and between
/// rows, so a statement starting just after the cancel stops as well.
///
/// One SELECT (a read-only statement with columns that SQLite takes as a subquery) is not
/// run here to its end: its first page is read (`QuerySource`, on the store's connection,
/// stopped the same way) and the rest is paged by the grid, so `SELECT * FROM` a table of
/// millions of rows shows at once and holds one screen of rows. Anything else (several
/// statements, a PRAGMA, EXPLAIN) is run here, each statement's rows streamed: at most
/// `RowsLayout.rowLimit` are kept for the console's text, the others only counted.
package final class ConsoleQuery: Sendable {
    /// The query's id: its events carry it, so a late result of a cancelled query is ignored.
    package let id: Int
    /// The store file it reads.
    package let storePath: String
    /// The SQL as typed: one or more statements.
    package let sql: String
    /// The stores and keys: a SELECT's grid reads its store through it.
    let catalog: BrowserCatalog
    /// How many rows the first page of a SELECT's grid holds.
    let pageLimit: Int
    /// How the rows show (`.mode`): in `grid` mode a single SELECT opens in the grid.
    let mode: ConsoleOutputMode
    /// Whether `list`, `csv` and `tabs` start with the column names (`.headers`).
    let headers: Bool
    /// Set by `cancel()`: stops the first page of a SELECT's grid, read on the store's
    /// connection, which `interrupt()` cannot reach.
    private let cancelFlag = CancellationFlag()

    /// Whether `cancel()` was called, and the connection while `run` has it open, so
    /// `cancel` can interrupt it.
    private let state = LockedState<(cancelled: Bool, running: Database?)>((false, nil))

    /// How many rows pass between two progress events.
    static let progressInterval = 1_000

    /// A query not yet run on the store at `storePath` of `catalog`; `run` runs it, and a
    /// SELECT's grid starts with `pageLimit` rows.
    init(id: Int, storePath: String, sql: String, catalog: BrowserCatalog, pageLimit: Int,
         mode: ConsoleOutputMode = .grid, headers: Bool = false) {
        self.id = id
        self.storePath = storePath
        self.sql = sql
        self.catalog = catalog
        self.pageLimit = pageLimit
        self.mode = mode
        self.headers = headers
    }

    /// True once `cancel()` was called.
    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Stops the query: now if it runs, before it starts otherwise. Safe from any thread.
    package func cancel() {
        cancelFlag.cancel()
        state.withLock { state in
            state.cancelled = true
            state.running?.interrupt()
        }
    }

    /// Reads the first page of a single SELECT and returns `consoleGrid`; otherwise runs
    /// every statement of the SQL in turn and lays out the rows of each, posting
    /// `consoleProgress` as rows come, and returns `consoleFinished`. Writes fail: the
    /// connections are read-only.
    func run(post: (BrowserEvent) -> Void) -> BrowserEvent {
        var lines: [String] = []
        do {
            let db = try catalog.databaseKeys.open(path: storePath, mode: .readOnly, busyTimeout: catalog.busyTimeout).database
            try BrowserSQLFunctions.register(on: db, crypt: catalog.keys)
            let started: Bool = state.withLock { state in
                if !state.cancelled { state.running = db }
                return !state.cancelled
            }
            guard started else { return cancelledEvent }
            defer { state.withLock { $0.running = nil } }
            if sql.hasPrefix(".") {
                let command = try ConsoleDotCommand(parsing: sql)
                let lines = try db.withInterruptCheck({ [unowned self] in self.isCancelled }) {
                    try command.lines(on: db) { [unowned self] rows in
                        post(.consoleProgress(queryID: id, rows: rows))
                        return !isCancelled
                    }
                }
                if isCancelled { return cancelledEvent }
                return .consoleFinished(queryID: id, output: ConsoleTab.echo(sql) + lines, isError: false)
            }
            if mode == .grid, let select = Self.singleSelect(in: sql, on: db) { return try grid(of: select) }
            let cryptColumns = catalog.cryptColumns(inStore: storePath)
            var seen = 0
            try db.withInterruptCheck({ [unowned self] in self.isCancelled }) {
                try db.forEachStatement(in: sql) { statement in
                    var kept: [Row] = []
                    var count = 0
                    try statement.forEachRow { row in
                        if count < RowsLayout.rowLimit { kept.append(row.row()) }
                        count += 1
                        seen += 1
                        if seen % ConsoleQuery.progressInterval == 0 {
                            if isCancelled { return false }
                            post(.consoleProgress(queryID: id, rows: seen))
                        }
                        return true
                    }
                    // Result columns read straight from a crypt column show decrypted, as in the grid.
                    let reading = CryptSQL.reading(of: statement.sql, on: db, cryptColumns: cryptColumns)
                    lines += kept.isEmpty && statement.columnCount == 0 ? ["ok"]
                        : mode.lines(kept, total: count, headers: headers, encryptedColumns: reading.decryptedColumns, crypt: catalog.keys)
                    if let note = reading.note(decodedKVRow: false) { lines.append(note) }
                }
            }
            if isCancelled { return cancelledEvent }
            return .consoleFinished(queryID: id, output: ConsoleTab.echo(sql) + lines, isError: false)
        } catch let error as DatabaseError where error.isInterrupted {
            return cancelledEvent
        } catch {
            return .consoleFinished(queryID: id, output: ConsoleTab.echo(sql) + ["\(error)"], isError: true)
        }
    }

    /// The text of `sql` when it is one read-only statement with result columns that SQLite
    /// takes as a subquery (a SELECT, WITH or VALUES), without its final `;`; nil otherwise.
    static func singleSelect(in sql: String, on db: Database) -> String? {
        var statements: [Statement] = []
        guard (try? db.forEachStatement(in: sql) { statements.append($0) }) != nil, statements.count == 1,
              let statement = statements.first, statement.isReadOnly, statement.columnCount > 0 else { return nil }
        var text = statement.sql.trimmingCharacters(in: .whitespacesAndNewlines)
        while text.hasSuffix(";") { text = String(text.dropLast()).trimmingCharacters(in: .whitespacesAndNewlines) }
        guard (try? db.makeStatement("SELECT * FROM (\n" + text + "\n) LIMIT 0")) != nil else { return nil }
        return text
    }

    /// The grid of `select`: its source and first page, read on the store's connection.
    private func grid(of select: String) throws -> BrowserEvent {
        let (source, note) = try catalog.consoleQuery(store: storePath, select: select)
        let rows = try source.firstPage(limit: pageLimit, cancel: cancelFlag)
        if isCancelled { return cancelledEvent }
        let node = TreeNode(id: storePath + "#query#" + select, label: source.title, detail: "",
                            kind: .query(store: storePath, sql: select), children: [])
        return .consoleGrid(queryID: id, node: node, source: source, rows: rows, note: note)
    }

    private var cancelledEvent: BrowserEvent {
        .consoleFinished(queryID: id, output: ConsoleTab.echo(sql) + ["cancelled"], isError: true)
    }
}
