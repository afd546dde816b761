import CSQLite
import Foundation

/// A row SQLite is about to insert, update or delete, as its pre-update hook reports it:
/// every column's value as stored, before and after, so that the change can be inverted
/// exactly (an encrypted column's value is the ciphertext the file holds).
package struct RowWrite: Sendable {
    /// What happens to the row.
    package enum Kind: String, Sendable { case insert = "I", update = "U", delete = "D" }
    /// What happens to the row.
    package let kind: Kind
    /// The table, in the main schema.
    package let table: String
    /// The row's rowid before the change (an update or a delete); meaningless for a table
    /// `WITHOUT ROWID`, whose key is in `old`.
    package let oldRowid: Int64
    /// The row's rowid after the change (an insert or an update).
    package let newRowid: Int64
    /// Every column of the row before the change, in the table's column order (an update or
    /// a delete; empty for an insert).
    package let old: [DatabaseValue]
    /// Every column of the row after the change (an insert or an update; empty for a delete).
    package let new: [DatabaseValue]

    /// A change as the hook reports it.
    package init(kind: Kind, table: String, oldRowid: Int64, newRowid: Int64, old: [DatabaseValue], new: [DatabaseValue]) {
        self.kind = kind
        self.table = table
        self.oldRowid = oldRowid
        self.newRowid = newRowid
        self.old = old
        self.new = new
    }
}

/// The observer a connection calls back for each row change (`Database.observeRowWrites`).
package final class RowWriteObservation {
    fileprivate let body: (RowWrite) -> Void
    fileprivate weak var database: Database?

    fileprivate init(database: Database, body: @escaping (RowWrite) -> Void) {
        self.database = database
        self.body = body
    }

    /// Stops the calls (closing the connection stops them too).
    package func stop() {
        database?.stopObservingRowWrites()
        database = nil
    }
}

/// The observers by connection, for SQLite's callback, which finds its observer by the
/// connection it is called for (a context pointer would need `Unmanaged`).
private let rowWriteObservers = LockedState<[OpaquePointer: RowWriteObservation]>([:])

extension Database {
    /// Calls `body` before each row the statements of this connection insert, update or
    /// delete in the main schema, until the observation stops: the rows a statement changes
    /// itself and those a `REPLACE` deletes, not those its triggers change (the inverse of
    /// the statement re-fires them). Changes to virtual tables are not reported (SQLite does
    /// not). `body` runs inside `sqlite3_step`: it must not use this connection.
    ///
    /// One observation at a time: starting one replaces the previous.
    package func observeRowWrites(_ body: @escaping (RowWrite) -> Void) -> RowWriteObservation {
        let observation = RowWriteObservation(database: self, body: body)
        rowWriteObservers.withLock { $0[handle] = observation }
        observesRowWrites = true
        sqlite3_preupdate_hook(handle, { _, db, op, schema, table, oldKey, newKey in
            guard let db, let schema, let table, sqlite3_preupdate_depth(db) == 0, strcmp(schema, "main") == 0,
                  let observation = rowWriteObservers.withLock({ $0[db] }) else { return }
            let kind: RowWrite.Kind
            switch op {
            case SQLITE_INSERT: kind = .insert
            case SQLITE_UPDATE: kind = .update
            case SQLITE_DELETE: kind = .delete
            default: return
            }
            let count = sqlite3_preupdate_count(db)
            func values(old: Bool) -> [DatabaseValue] {
                (0..<count).map { index in
                    var value: OpaquePointer?
                    let rc = old ? sqlite3_preupdate_old(db, index, &value) : sqlite3_preupdate_new(db, index, &value)
                    return rc == SQLITE_OK ? ColumnValue(handle: value).value : .null
                }
            }
            observation.body(RowWrite(kind: kind, table: String(cString: table), oldRowid: oldKey, newRowid: newKey,
                                      old: kind == .insert ? [] : values(old: true), new: kind == .delete ? [] : values(old: false)))
        }, nil)
        return observation
    }

    /// Removes the row-write hook and its observer, if any (`stop()`, and before the
    /// connection closes).
    func stopObservingRowWrites() {
        guard observesRowWrites else { return }
        observesRowWrites = false
        sqlite3_preupdate_hook(handle, nil, nil)
        rowWriteObservers.withLock { $0[handle] = nil }
    }
}
