import DatacenterKit
import Foundation

/// Work the browser asks its runner to do off the input loop; the result comes back as an
/// event, so `handle` itself stays quick and testable, and no key waits on SQLite for
/// anything that can take long.
package enum BrowserCommand: Sendable {
    /// Counts the rows of the grid's source, for the position shown in the status line.
    case countRows(gridID: Int, source: GridSource)
    /// Reads the grid's store's data version, to notice writes by other connections (an app
    /// running beside the browser).
    case dataVersion(gridID: Int, source: GridSource)
    /// Reads the user a root has as current now, to notice a switch made elsewhere (an app,
    /// or `datacenter users switch`).
    case rootCurrentUser(rootPath: String)
    /// Opens the grid source of a tree leaf, sorted and filtered as `view` says, and reads
    /// `page` of it: its first rows when the grid opens, the rows around the cursor when it
    /// is read again after a write. A sort in memory stops once `cancel` is set (Esc, or
    /// another view asked for).
    case openGrid(requestID: Int, node: TreeNode, catalog: BrowserCatalog, page: PageRequest, view: TableView, cancel: CancellationFlag)
    /// Reads a page of the grid's source, for a move past the rows on hand or to fill a
    /// taller screen.
    case fetchPage(gridID: Int, requestID: Int, source: GridSource, request: PageRequest)
    /// Looks in `source` past `start` (after it, or before it when `backward`; from the first
    /// or last row when nil) for a row with a cell whose text contains `query`,
    /// case-insensitively: one query in SQLite for a table, a page at a time otherwise. When
    /// none is found before the end (the start, `backward`), the search wraps: it goes on
    /// from the other end up to `start`.
    case search(searchID: Int, source: GridSource, start: GridRow?, needle: SearchNeedle, backward: Bool = false, cancel: CancellationFlag)
    /// Reads the keys of the rows of a table's grid to select (`*`, `|`: `GridPane+Selection`).
    case selectRows(gridID: Int, requestID: Int, source: TableSource, needle: SearchNeedle?, limit: Int)
    /// Reads the schema of the table or view `node` shows (`TableSchema`, `S`).
    case schema(node: TreeNode, catalog: BrowserCatalog)
    /// Runs SQL typed in the console (`ConsoleQuery`).
    case consoleQuery(ConsoleQuery)
    /// Reads the names of the tables, views and columns of the store at `storePath`, for the
    /// console's completion.
    case consoleNames(storePath: String, catalog: BrowserCatalog)
    /// Stops a console query (Esc while it runs): it ends with "cancelled".
    case cancelConsoleQuery(ConsoleQuery)
    /// Writes staged edits (`StagedCommit`).
    case commit(StagedCommit)
    /// Works out the undo of the last commit (`UndoPreparation`, `Z`).
    case prepareUndo(UndoPreparation)
    /// Works out the DAO panel's preview (`DAOQueryPlanRequest`).
    case daoQueryPlan(DAOQueryPlanRequest)
    /// Runs a DAO method from the DAO panel: a select, or a write the user confirmed.
    case daoRun(DAORun)
    /// Writes the rows a table grid shows to a file (`GridExport`, `E`).
    case exportGrid(GridExport)
    /// Opens another root or SQLite file to browse (`o`), with the keys and settings given:
    /// `path` as typed, `~` expanded and made absolute from the working folder.
    case openCatalog(requestID: Int, path: String, settingsOf: BrowserCatalog)
    /// Writes the recent files into the state folder (`RecentFiles.save`).
    case saveRecentFiles(RecentFiles, folder: URL)
    /// Takes a snapshot of the root or file `live` into the state folder (`ChangeMark`, `m`).
    case mark(requestID: Int, live: String, catalog: BrowserCatalog, state: URL)

    /// Does the work now, on the calling thread, handing each event to `post` (a search and
    /// a console query post progress as they go), and returns the final event, if any.
    ///
    /// Which connection each command uses, so that every one is used by one thread at a time:
    /// - `countRows` reads through the source's store: a table's count on a reader of the
    ///   store's pool, checked out for the call; other sources through the store's queue.
    /// - `dataVersion` reads the pragma on the source's store queue, the connection paging
    ///   uses (the version counts commits by other connections than the one asking).
    /// - `openGrid`, `fetchPage` and `search` read through the catalog's stores (a source's
    ///   pages through its store's queue), whose lock serializes them with one another and
    ///   with a DAO preview; the input loop itself reads no rows.
    /// - `consoleNames` reads the schema on the store's queue, as paging does.
    /// - `schema` reads pragmas through the catalog's store queue, as paging does.
    /// - `consoleQuery` opens a read-only connection of its own, used on this thread only and
    ///   closed when it ends; `cancelConsoleQuery` only calls that connection's `interrupt()`
    ///   (safe from any thread) through the query, which keeps it open while it does.
    /// - `commit` opens a read-write connection per store (journal mode kept), one
    ///   transaction each, and closes it; each undo file has a connection of its own.
    /// - `prepareUndo` reads the undo files on connections of their own, and tries each on a
    ///   read-write connection of its store in a transaction it rolls back.
    /// - `daoQueryPlan` reads plans on the catalog's store queue, as paging does.
    /// - `exportGrid` opens a read-only connection of its own, used on this thread only and
    ///   closed when it ends; `GridExport.cancel()` only interrupts it, as a console query's.
    /// - `mark` opens each store read-only on a connection of its own, to copy it, and closes
    ///   it (`StoreSnapshot`).
    /// - `openCatalog` opens the new catalog's stores read-only, as `browse` opens its own;
    ///   nothing of the catalog browsed now is touched. `saveRecentFiles` uses no connection.
    /// - `daoRun` opens its own connection too: read-only for a select, read-write (journal
    ///   mode kept) for a confirmed write, in one transaction.
    @discardableResult
    package func perform(post: (BrowserEvent) -> Void = { _ in }) -> BrowserEvent? {
        switch self {
        case let .countRows(id, source): return .rowCount(gridID: id, count: try? source.count())
        case let .dataVersion(id, source): return .dataVersion(gridID: id, version: try? source.dataVersion())
        case .rootCurrentUser(let rootPath):
            do {
                return .rootCurrentUser(rootPath: rootPath, userId: try DataCenter.recordedCurrentUserId(rootPath: rootPath), readable: true)
            } catch {
                return .rootCurrentUser(rootPath: rootPath, userId: nil, readable: false)
            }
        case let .openGrid(request, node, catalog, page, view, cancel):
            do {
                let source = try catalog.source(for: node.kind).map { view.isDefault ? $0 : try $0.viewing(view, cancel: cancel) }
                let rows = try source.map { source -> [GridRow] in
                    // A query's first page may be a long aggregate (`F`, `I`): Esc stops it.
                    if case .first(let limit) = page, let query = source as? QuerySource {
                        return try query.firstPage(limit: limit, cancel: cancel)
                    }
                    return try page.read(from: source)
                } ?? []
                return .gridOpened(requestID: request, node: node, source: source, rows: rows, error: nil)
            } catch {
                return .gridOpened(requestID: request, node: node, source: nil, rows: [], error: "\(error)")
            }
        case let .fetchPage(id, request, source, page):
            do { return .pageLoaded(gridID: id, requestID: request, rows: try page.read(from: source), error: nil) } catch {
                return .pageLoaded(gridID: id, requestID: request, rows: [], error: "\(error)")
            }
        case let .search(id, source, start, needle, backward, cancel):
            let search = GridSearch(id: id, source: source, needle: needle, backward: backward, cancel: cancel)
            return search.run(from: start, post: post)
        case let .schema(node, catalog):
            do {
                let (path, table): (String, String)
                switch node.kind {
                case let .table(store, name): (path, table) = (store, name)
                case let .daoTable(store, name, _, _, _): (path, table) = (store, name)
                default: return .schemaRead(nodeID: node.id, lines: [], error: "\(node.label) is not a table: S shows the schema of tables and views")
                }
                return .schemaRead(nodeID: node.id, lines: try TableSchema.read(table, in: catalog.store(at: path)).lines, error: nil)
            } catch {
                return .schemaRead(nodeID: node.id, lines: [], error: "\(error)")
            }
        case let .selectRows(gridID, requestID, source, needle, limit):
            do {
                let keys = try source.keys(matching: needle, limit: limit, cancel: CancellationFlag())
                return .rowsSelected(gridID: gridID, requestID: requestID, keys: keys, error: nil)
            } catch {
                return .rowsSelected(gridID: gridID, requestID: requestID, keys: [], error: "\(error)")
            }
        case .consoleQuery(let query): return query.run(post: post)
        case let .consoleNames(path, catalog):
            let tables = try? catalog.store(at: path).queue.read { db -> [String: [String]] in
                var tables: [String: [String]] = [:]
                for row in try db.query("""
                    SELECT s.name, p.name FROM sqlite_schema AS s LEFT JOIN pragma_table_info(s.name) AS p
                    WHERE s.type IN ('table', 'view') ORDER BY s.name, p.cid
                    """) {
                    guard let table = row[0].stringValue else { continue }
                    tables[table, default: []] += row[1].stringValue.map { [$0] } ?? []
                }
                return tables
            }
            return .consoleNames(storePath: path, tables: tables ?? [:])
        case .cancelConsoleQuery(let query):
            query.cancel()
            return nil
        case .daoRun(let run): return run.perform()
        case .daoQueryPlan(let preview): return preview.perform()
        case .commit(let commit): return commit.perform()
        case .prepareUndo(let preparation): return preparation.perform()
        case .exportGrid(let export): return export.run(post: post)
        case let .openCatalog(request, typed, current):
            let path = BrowserCommand.absolutePath(typed)
            do {
                let catalog = try BrowserCatalog(path: path, keys: current.keys, keyLabels: current.keyLabels,
                                                 databaseKeys: current.databaseKeys, allowsWrites: current.allowsWrites,
                                                 busyTimeout: current.busyTimeout, configFiles: current.configFiles)
                return .catalogOpened(requestID: request, path: path, catalog: catalog, error: nil)
            } catch {
                return .catalogOpened(requestID: request, path: path, catalog: nil, error: "\(error)")
            }
        case let .mark(request, live, catalog, state):
            do {
                let mark = try ChangeMark.take(of: live, catalog: catalog, state: state) { step in
                    if case let .copying(name, index, count) = step { post(.markProgress(requestID: request, store: name, index: index, count: count)) }
                }
                return .marked(requestID: request, mark: mark, error: nil)
            } catch {
                return .marked(requestID: request, mark: nil, error: "\(error)")
            }
        case let .saveRecentFiles(list, folder):
            do { try list.save(to: folder) } catch { return .recentFilesSaved(error: "\(error)") }
            return .recentFilesSaved(error: nil)
        }
    }

    /// `path` with a leading `~` expanded and made absolute from the working folder, `.` and
    /// `..` resolved: how recent files are recorded, whatever folder the browser runs in later.
    package static func absolutePath(_ path: String) -> String {
        var expanded = path
        if path == "~" || path.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"], home.hasPrefix("/") {
            expanded = home + path.dropFirst()
        }
        if !expanded.hasPrefix("/") { expanded = FileManager.default.currentDirectoryPath + "/" + expanded }
        return URL(fileURLWithPath: expanded).standardized.path
    }
}

/// Runs the browser's commands on background threads and collects their events for the
/// input loop, which takes them with `takeEvents()` between keys.
///
/// Each command runs on a thread of its own (a concurrent dispatch queue) and uses only the
/// connections `BrowserCommand.perform` lists for it; the runner itself touches no
/// connection. Events are handed over under a lock, in the order they were posted.
package final class BrowserCommandRunner: Sendable {
    private let events = LockedState<[BrowserEvent]>([])
    private let queue = DispatchQueue(label: "browser.commands", qos: .userInitiated, attributes: .concurrent)
    /// Called after each event is posted, from the posting thread: the terminal loop wakes
    /// then, instead of waiting for its next look at the keyboard.
    private let wake: @Sendable () -> Void

    /// A runner with no events yet; `wake` is called whenever one is posted.
    package init(wake: @escaping @Sendable () -> Void = {}) {
        self.wake = wake
    }

    /// Starts `command` in the background; its events arrive in `takeEvents()`.
    package func run(_ command: BrowserCommand) {
        queue.async { [self] in
            if let last = command.perform(post: post) { post(last) }
        }
    }

    /// Hands over an event from any thread.
    package func post(_ event: BrowserEvent) {
        events.withLock { $0.append(event) }
        wake()
    }

    /// The events posted since the last call, oldest first.
    package func takeEvents() -> [BrowserEvent] {
        events.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }
}

extension BrowserCommand {
    /// `commands` without the DAO query-plan requests followed by another: the panel takes
    /// the answer to the last one only (a paste into a form field asks once per character).
    static func coalesced(_ commands: [BrowserCommand]) -> [BrowserCommand] {
        guard let last = commands.lastIndex(where: { if case .daoQueryPlan = $0 { return true } else { return false } }) else {
            return commands
        }
        return commands.enumerated().filter { index, command in
            if case .daoQueryPlan = command { return index == last }
            return true
        }.map(\.element)
    }
}
