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
    fileprivate let database: Database
    /// True once `stop()` ran: the connection calls back no more.
    package private(set) var isStopped = false

    fileprivate init(database: Database, body: @escaping (RowWrite) -> Void) {
        self.database = database
        self.body = body
    }

    /// Stops the calls; the connection forgets the observer.
    package func stop() {
        guard !isStopped else { return }
        isStopped = true
        database.stopObservingRowWrites(self)
    }
}

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
        rowWriteObservation = observation
        let context = Unmanaged.passUnretained(observation).toOpaque()
        sqlite3_preupdate_hook(handle, { context, db, op, schema, table, oldKey, newKey in
            guard let context, let db, let schema, let table, sqlite3_preupdate_depth(db) == 0,
                  strcmp(schema, "main") == 0 else { return }
            let kind: RowWrite.Kind
            switch op {
            case SQLITE_INSERT: kind = .insert
            case SQLITE_UPDATE: kind = .update
            case SQLITE_DELETE: kind = .delete
            default: return
            }
            let count = sqlite3_preupdate_count(db)
            func values(_ read: (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32) -> [DatabaseValue] {
                (0..<count).map { index in
                    var value: OpaquePointer?
                    return read(db, index, &value) == SQLITE_OK ? ColumnValue(handle: value).value : .null
                }
            }
            let change = RowWrite(kind: kind, table: String(cString: table), oldRowid: oldKey, newRowid: newKey,
                                   old: kind == .insert ? [] : values(sqlite3_preupdate_old),
                                   new: kind == .delete ? [] : values(sqlite3_preupdate_new))
            Unmanaged<RowWriteObservation>.fromOpaque(context).takeUnretainedValue().body(change)
        }, context)
        return observation
    }

    /// Removes the hook of `observation`, if it is still the one installed.
    fileprivate func stopObservingRowWrites(_ observation: RowWriteObservation) {
        guard rowWriteObservation === observation else { return }
        if !lifetime.isClosed { sqlite3_preupdate_hook(handle, nil, nil) }
        rowWriteObservation = nil
    }
}
