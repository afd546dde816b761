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
/// for an encrypted column that is not ciphertext. On any failure nothing is kept.
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
    /// How long the run waits for another connection's lock, in seconds.
    let busyTimeout: Double

    /// Runs the method and returns `daoFinished` with the lines the panel shows.
    func perform() -> BrowserEvent {
        switch kind {
        case .select: return select()
        case .write(let shown): return write(shown)
        }
    }

    private func select() -> BrowserEvent {
        do {
            let call = try config.render(method.id, arguments: values, globals: [:], tableName: table)
            let db = try Database(path: storePath, mode: .readOnly, busyTimeout: busyTimeout)
            var lines: [String] = []
            var rows: [Row] = []
            for statement in call.statements where !statement.skipped {
                let fetched = try db.makeStatement(statement.sql).fetchAll(StatementArguments(statement.bindings))
                rows += fetched
                lines += RowsLayout.lines(fetched, encryptedColumns: encryptedColumns, crypt: keys)
            }
            let summary = DAOPanel.resultSummary(method.result, rows: rows, crypt: keys, encryptedColumns: encryptedColumns)
            return .daoFinished(runID: id, lines: summary + (lines.isEmpty ? ["(no rows)"] : lines), isError: false, wrote: false)
        } catch {
            return .daoFinished(runID: id, lines: ["\(error)"], isError: true, wrote: false)
        }
    }

    private func write(_ shown: TablePreparation) -> BrowserEvent {
        do {
            let queue = try DatabaseQueue(path: storePath, mode: .readWriteExisting, busyTimeout: busyTimeout, wal: false)
            let dao = DAOObject(config: config, queue: queue, crypt: keys)
            dao.tableName = table
            let result = try queue.inTransaction { db -> DAOCallResult in
                let now = try TablePreparation.plan(config: config, table: table, in: db)
                guard now == shown else {
                    throw DAOPanelRefusal("the table changed since the preview (preparing it now runs \(now.steps.count) step(s), "
                                          + "the preview showed \(shown.steps.count)): nothing ran; look at the preview again")
                }
                try dao.prepareTable()
                try CryptColumnGuard.install(table: table, columns: encryptedColumns, keys: keys, in: db)
                return try dao.call(method.id, values)
            }
            var line = result.skipped ? "skipped (onVoid quit): nothing ran" : "ok · \(result.changes) change(s)"
            if method.kind == .insert && result.changes > 0 && !result.skipped { line += " · last insert rowid \(result.lastInsertRowID)" }
            if !shown.isEmpty { line += " · table prepared first (\(shown.parts.count) statement(s))" }
            return .daoFinished(runID: id, lines: [line], isError: false, wrote: true)
        } catch {
            return .daoFinished(runID: id, lines: ["\(error)"], isError: true, wrote: false)
        }
    }
}
