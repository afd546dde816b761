import DatacenterDAO
import DatacenterKit
import Foundation

/// A DAO method the panel decided to run, as work for the command runner: everything it
/// needs is copied in, so it runs on any thread while the panel goes on taking keys.
///
/// A select runs on a read-only connection it opens and closes itself. A confirmed write
/// runs on a read-write connection of its own, opened without changing the file's journal
/// mode (no WAL switch), in one transaction: the table's preparation (refused when it is no
/// longer what the preview showed), then the call, with `CryptColumnGuard` refusing any value
/// for an encrypted column that is not ciphertext. On any failure nothing is kept. With a
/// state folder, a write keeps its undo there as a commit of staged edits does (`UndoRecorder`),
/// unless the table had to be prepared first (its schema changed).
package struct DAORun: Sendable {
    /// Whether the run reads or writes.
    enum Kind: Sendable {
        /// A select, on a read-only connection.
        case select
        /// A write, with the preparation the preview showed and the user confirmed.
        case write(shown: TablePreparation)
    }

    /// The run's id: its result carries it.
    let id: Int
    let kind: Kind
    let config: DAOConfig
    let method: DAOMethod
    /// The arguments, in the method's order.
    let values: [DAOValue]
    let table: String
    let storePath: String
    let encryptedColumns: Set<String>
    let keys: KeyRing
    /// The keys of an encrypted store file.
    let databaseKeys: DatabaseKeyList
    /// How long the run waits for another connection's lock, in seconds.
    let busyTimeout: Double
    /// Where a write keeps its undo (`UndoFile`); nil keeps none.
    var stateFolder: URL?

    /// Runs the method and returns `daoFinished` with the lines the panel shows.
    func perform() -> BrowserEvent {
        switch kind {
        case .select: return select()
        case .write(let shown): return write(shown)
        }
    }

    private func select() -> BrowserEvent {
        do {
            let db = try databaseKeys.open(path: storePath, mode: .readOnly, busyTimeout: busyTimeout).database
            // The engine's executor runs it, as a call of the app would run.
            let read = try config.readRows(method.id, arguments: values, tableName: table, on: db, encryptor: keys)
            let (call, batches) = (read.call, read.batches)
            let rows = batches.flatMap { $0 }
            // Rows of one shape (every run of a foreach, say) show as one table, counted
            // together; statements of different columns each get a table of their own.
            let lines = Set(rows.map(\.columnNames)).count <= 1
                ? (batches.isEmpty ? [] : RowsLayout.lines(rows, encryptedColumns: encryptedColumns, crypt: keys))
                : batches.flatMap { RowsLayout.lines($0, encryptedColumns: encryptedColumns, crypt: keys) }
            let summary = DAOPanel.resultSummary(method.result, rows: rows, elements: call.isForEach ? call.runs.count : nil,
                                                 crypt: keys, encryptedColumns: encryptedColumns)
            return .daoFinished(runID: id, lines: summary + (lines.isEmpty ? ["(no rows)"] : lines), isError: false, wrote: false)
        } catch {
            return .daoFinished(runID: id, lines: ["\(error)"], isError: true, wrote: false)
        }
    }

    /// True when the call inserted rows, so its last insert rowid is the rowid of one of
    /// them: it changed rows, and a statement that ran is an INSERT or REPLACE. Otherwise
    /// the connection's last insert rowid says nothing about this call (an UPDATE or DELETE
    /// leaves it as it was), and it is not shown.
    static func inserted(_ result: DAOCallResult) -> Bool {
        guard !result.skipped, result.changes > 0, result.lastInsertRowID != 0 else { return false }
        return result.statements.contains { statement in
            let word = statement.sql.drop { $0.isWhitespace || $0 == "(" }.prefix { $0.isLetter }.lowercased()
            return word == "insert" || word == "replace"
        }
    }

    private func write(_ shown: TablePreparation) -> BrowserEvent {
        do {
            let queue = try DatabaseQueue(path: storePath, keys: databaseKeys, mode: .readWriteExisting, busyTimeout: busyTimeout, wal: false)
            let dao = DAOObject(config: config, queue: queue, crypt: keys)
            dao.tableName = table
            let (result, undoNote) = try UndoRecorder.transaction(on: queue, storePath: storePath, stateFolder: stateFolder) { db, recorder in
                let now = try TablePreparation.plan(config: config, table: table, in: db)
                guard now == shown else {
                    throw DAOPanelRefusal("the table changed since the preview (preparing it now runs \(now.steps.count) step(s), "
                                          + "the preview showed \(shown.steps.count)): nothing ran; look at the preview again")
                }
                if !shown.isEmpty { recorder?.drop("its table was prepared first (its schema changed)") }
                try dao.prepareTable()
                try CryptColumnGuard.install(table: table, columns: encryptedColumns, keys: keys, in: db)
                let result = try dao.call(method.id, values)
                recorder?.checkSeen(changes: result.changes, target: table)
                return result
            }
            var line = result.skipped ? "skipped (onVoid quit): nothing ran" : "ok · \(result.changes) change(s)"
            if DAORun.inserted(result) { line += " · last insert rowid \(result.lastInsertRowID)" }
            if !shown.isEmpty { line += " · table prepared first (\(shown.parts.count) statement(s))" }
            if result.changes > 0 {
                line += undoNote.map { " · no undo kept: " + $0 } ?? " · w then Z undoes it"
            }
            return .daoFinished(runID: id, lines: [line], isError: false, wrote: true)
        } catch {
            return .daoFinished(runID: id, lines: ["\(error)"], isError: true, wrote: false)
        }
    }
}
