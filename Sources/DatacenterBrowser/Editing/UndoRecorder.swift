import DatacenterKit
import Foundation

/// Writes the undo file (`UndoFile`) of one store's commit while the commit runs
/// (`StagedCommit`): every row the commit's statements insert, update or delete, as SQLite's
/// pre-update hook reports it with its values as stored, and every schema change with its
/// inverse, logged in order; then, before the store's transaction commits, the log turned
/// into the inverse statements, last change first.
///
/// The file is written beside its place (a partial file, 0600) and renamed over the store's
/// previous undo file only once the store's commit is written (`install`); a commit that
/// fails leaves the previous undo file as it was. A recorder never fails a commit: what goes
/// wrong (no room, a change it cannot invert) drops the undo, and `note` says why.
final class UndoRecorder {
    /// Where the undo file goes.
    let path: String
    /// Why no undo is kept for this commit, once something went wrong; nil while all is well.
    private(set) var note: String?
    private let partial: String
    private let slot: Int?
    private var undo: Database?
    private let commitID: String
    private let storePath: String
    private var observation: RowWriteObservation?
    /// The first error the hook met (it cannot throw).
    private var hookError: Error?
    /// Rows changed since the last flush, by table: their shapes are read at the next flush.
    private var touched: Set<String> = []
    /// How many changes the hook logged, in all and when the edit running began.
    private var logged = 0
    private var loggedAtEditStart = 0
    /// The stretch of changes between two schema changes; shapes are read per stretch.
    private var segment = 0
    /// The columns and key of each table, per stretch.
    private var shapes: [Int: [String: TableShape]] = [:]
    /// How many statements keep a preview for the review (`UndoPreparation` shows a few).
    static let previewedStatements: Int64 = 20
    /// `sqlite_sequence` before the commit (AUTOINCREMENT counters), by table.
    private var sequenceBefore: [String: Int64] = [:]

    /// Runs `body` in one transaction on `queue`, the store at `storePath`'s connection,
    /// keeping its undo in `stateFolder` (none without one): the recorder logs from the
    /// transaction's start, turns the log into statements before it commits, and puts the
    /// undo file in place once it has; a transaction that fails leaves the previous one.
    /// `body` gets the recorder, to tell it of what no row change shows (`willApply`).
    /// - returns: what `body` returned, and why no undo is kept, if none is.
    static func transaction<T>(on queue: DatabaseQueue, storePath: String, stateFolder: URL?, commitID: String = UUID().uuidString,
                               _ body: (Database, UndoRecorder?) throws -> T) throws -> (result: T, undoNote: String?) {
        let (recorder, note) = begin(storePath: storePath, stateFolder: stateFolder, key: queue.key, commitID: commitID)
        do {
            let result = try queue.inTransaction { db -> T in
                recorder?.start(on: db)
                let result = try body(db, recorder)
                recorder?.finish(on: db)
                return result
            }
            recorder?.install()
            return (result, note ?? recorder?.note)
        } catch {
            recorder?.discard()
            throw error
        }
    }

    /// A recorder for a write to the store at `storePath` (encrypted with `key`, nil for a
    /// plain store), or none, with why, when it cannot be made; the store's previous undo
    /// file is then removed, since it would undo an older write than the last. With no state
    /// folder, none and no reason.
    private static func begin(storePath: String, stateFolder: URL?, key: DatabaseKey?,
                      commitID: String = UUID().uuidString) -> (recorder: UndoRecorder?, note: String?) {
        guard let stateFolder else { return (nil, nil) }
        do {
            return (try UndoRecorder(storePath: storePath, stateFolder: stateFolder, key: key, commitID: commitID), nil)
        } catch {
            unlink(UndoFile.path(storePath: storePath, stateFolder: stateFolder))
            return (nil, "\(error)")
        }
    }

    /// Starts the undo file of the commit `commitID` of the store at `storePath`, encrypted
    /// with `key` (the store's; nil for a plain store).
    /// - throws: what creating the partial file or the database throws.
    init(storePath: String, stateFolder: URL, key: DatabaseKey?, commitID: String) throws {
        self.storePath = storePath
        self.commitID = commitID
        path = UndoFile.path(storePath: storePath, stateFolder: stateFolder)
        let folder = PrivateFile.folder(of: path)
        try PrivateFile.createFolder(atPath: folder)
        PartialFiles.removeStale(inFolder: folder)
        partial = PartialFiles.partialPath(for: path)
        try PrivateFile.createIfMissing(atPath: partial)
        slot = PartialFiles.register(partial)
        do {
            let undo = try Database(path: partial, key: key, mode: .readWrite)
            self.undo = undo
            _ = try undo.scalar("PRAGMA journal_mode = OFF", cached: false)
            // The log is dropped once turned into statements: its pages go back to the disk.
            try undo.executeScript("PRAGMA auto_vacuum = FULL;" + UndoFile.schema + """
                CREATE TABLE undo_log(seq INTEGER PRIMARY KEY, segment INTEGER NOT NULL, kind TEXT NOT NULL, tbl TEXT NOT NULL,
                                      old_rowid INTEGER, new_rowid INTEGER, old BLOB, new BLOB, inverse TEXT, redo TEXT);
                BEGIN;
                """)
        } catch {
            discard()
            throw error
        }
    }

    /// Starts logging the changes made on `db`, the store's connection, inside its
    /// transaction, before the first edit.
    func start(on db: Database) {
        loggedAtEditStart = logged
        attempt {
            sequenceBefore = try Self.sequence(in: db)
            observation = db.observeRowWrites { [weak self] change in self?.log(change) }
        }
    }

    /// Notes what `edit` does that no row change shows, before it runs: the inverse of a
    /// schema change, or the table an import creates.
    func willApply(_ edit: StagedEdit, on db: Database) {
        loggedAtEditStart = logged
        attempt {
            switch edit.action {
            case let .executeSchema(sql, inverse):
                try logSchema(inverse: inverse, redo: sql, table: edit.target, on: db)
            case let .importRows(_, _, table):
                let exists = try db.scalar("SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE)",
                                           [.text(table)])?.int64Value == 1
                if !exists { try logSchema(inverse: "DROP TABLE \(Database.quoteIdentifier(table))", redo: nil, table: table, on: db) }
            default: break
            }
        }
    }

    /// Checks what `edit` changed once it ran (`checkSeen`).
    func didApply(_ edit: StagedEdit, on db: Database) {
        if case .execute = edit.action { checkSeen(changes: db.changes, target: edit.target) }
    }

    /// Checks a write that changed `changes` rows of `target` since `start` or the last
    /// `willApply`: rows the hook did not see (a virtual table's) cannot be undone.
    func checkSeen(changes: Int, target: String) {
        if changes > 0, logged == loggedAtEditStart {
            drop("\(target) is a virtual table, whose changes SQLite does not report")
        }
    }

    /// Logs a schema statement about to run on `db` (from an undo being played, or an edit):
    /// `inverse` undoes it, `redo` does it again (nil: read from the schema when undone).
    func logSchema(inverse: String, redo: String?, table: String, on db: Database) throws {
        guard let undo else { return }
        try flush(on: db)
        try undo.execute("INSERT INTO undo_log(segment, kind, tbl, inverse, redo) VALUES (?, 'S', ?, ?, ?)",
                         [.integer(Int64(segment)), .text(table), .text(inverse), redo.map(DatabaseValue.text) ?? .null])
    }

    /// Ends the log on `db` (still inside its transaction): turns it into the inverse
    /// statements and closes the undo file, ready for `install`.
    func finish(on db: Database) {
        observation?.stop()
        observation = nil
        attempt {
            if let hookError { throw hookError }
            try flush(on: db)
            guard let undo else { return }
            var seq: Int64 = 0
            var sqlIDs: [String: Int64] = [:]
            func add(_ statement: UndoStatement) throws {
                seq += 1
                let sqlID: Int64
                if let known = sqlIDs[statement.sql] {
                    sqlID = known
                } else {
                    sqlID = Int64(sqlIDs.count + 1)
                    sqlIDs[statement.sql] = sqlID
                    try undo.execute("INSERT INTO undo_sql VALUES (?, ?)", [.integer(sqlID), .text(statement.sql)])
                }
                try undo.execute("INSERT INTO undo_statement VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                 [.integer(seq), .text(statement.label), .text(statement.check.rawValue), .text(statement.table),
                                  .integer(sqlID), .blob(UndoValues.encode(statement.arguments)),
                                  seq <= Self.previewedStatements ? .text(statement.preview) : .null,
                                  statement.redo.map(DatabaseValue.text) ?? .null])
            }
            for statement in try sequenceStatements(on: db) { try add(statement) }
            try undo.forEachRow("SELECT segment, kind, tbl, old_rowid, new_rowid, old, new, inverse, redo FROM undo_log ORDER BY seq DESC") { row in
                let table = row.value(at: 2).stringValue ?? ""
                if row.value(at: 1) == .text("S") {
                    let inverse = row.value(at: 7).stringValue ?? ""
                    try add(UndoStatement(label: "table \(table)", check: inverse.hasPrefix("DROP TABLE ") ? .emptyTable : .schema, table: table,
                                          sql: inverse, arguments: [], preview: inverse, redo: row.value(at: 8).stringValue))
                    return true
                }
                guard let segment = row.value(at: 0).int64Value, let shape = shapes[Int(segment)]?[table],
                      let kind = row.value(at: 1).stringValue.flatMap(RowWrite.Kind.init) else {
                    throw BrowserEditError(message: "the shape of \(table) was not read")
                }
                let change = RowWrite(kind: kind, table: table, oldRowid: row.value(at: 3).int64Value ?? 0,
                                       newRowid: row.value(at: 4).int64Value ?? 0,
                                       old: try row.value(at: 5).dataValue.map(UndoValues.decode) ?? [],
                                       new: try row.value(at: 6).dataValue.map(UndoValues.decode) ?? [])
                if let statement = try shape.inverse(of: change, preview: seq < Self.previewedStatements) { try add(statement) }
                return true
            }
            try undo.execute("DROP TABLE undo_log")
            try undo.execute("INSERT INTO undo_commit VALUES (?, ?, ?, ?)",
                             [.text(commitID), .text(storePath), .real(Date().timeIntervalSince1970), .integer(seq)])
            try undo.execute("COMMIT")
            undo.close()
        }
    }

    /// Puts the undo file in place of the store's previous one, once the store's commit is
    /// written. With no undo kept (`note`), the previous one is removed: it would undo an
    /// older commit than the last.
    func install() {
        defer { PartialFiles.unregister(slot) }
        if note == nil, undo?.isClosed == true {
            if rename(partial, path) == 0 {
                PrivateFile.syncFolder(PrivateFile.folder(of: path))
                return
            }
            note = "the undo file was not kept: \(String(cString: strerror(errno)))"
        }
        unlink(partial)
        unlink(path)
    }

    /// Drops the undo of a commit that failed: the previous undo file stays.
    func discard() {
        observation?.stop()
        observation = nil
        undo?.close()
        undo = nil
        unlink(partial)
        PartialFiles.unregister(slot)
    }

    /// Stops keeping an undo, saying why; `install` then removes the previous one.
    func drop(_ reason: String) {
        if note == nil { note = reason }
        observation?.stop()
        observation = nil
        undo?.close()
        undo = nil
    }

    /// Runs `body`; what it throws drops the undo.
    private func attempt(_ body: () throws -> Void) {
        guard undo != nil else { return }
        do { try body() } catch { drop("\(error)") }
    }

    /// Logs one row change (called by the hook, inside SQLite's step: only the undo file's
    /// connection is used).
    private func log(_ change: RowWrite) {
        guard let undo, hookError == nil, change.table != "sqlite_sequence" else { return }
        touched.insert(change.table)
        logged += 1
        do {
            try undo.execute("INSERT INTO undo_log(segment, kind, tbl, old_rowid, new_rowid, old, new) VALUES (?, ?, ?, ?, ?, ?, ?)",
                             [.integer(Int64(segment)), .text(change.kind.rawValue), .text(change.table),
                              .integer(change.oldRowid), .integer(change.newRowid),
                              change.kind == .insert ? .null : .blob(UndoValues.encode(change.old)),
                              change.kind == .delete ? .null : .blob(UndoValues.encode(change.new))])
        } catch {
            hookError = error
        }
    }

    /// Reads the shapes of the tables changed since the last flush, which a schema change
    /// is about to alter, and starts a new stretch.
    private func flush(on db: Database) throws {
        for table in touched { shapes[segment, default: [:]][table] = try TableShape.read(table, in: db) }
        touched = []
        segment += 1
    }

    /// The statements that put the AUTOINCREMENT counters back as they were.
    private func sequenceStatements(on db: Database) throws -> [UndoStatement] {
        var statements: [UndoStatement] = []
        for (table, seq) in try Self.sequence(in: db).sorted(by: { $0.key < $1.key }) where sequenceBefore[table] != seq {
            let label = "the AUTOINCREMENT counter of \(table)"
            if let before = sequenceBefore[table] {
                statements.append(UndoStatement(label: label, check: .row, table: "sqlite_sequence",
                                                sql: "UPDATE sqlite_sequence SET seq = ? WHERE name = ? AND seq = ?",
                                                arguments: [.integer(before), .text(table), .integer(seq)],
                                                preview: "UPDATE sqlite_sequence SET seq = \(before) WHERE name = \(Database.quoteLiteral(table))"))
            } else {
                statements.append(UndoStatement(label: label, check: .row, table: "sqlite_sequence",
                                                sql: "DELETE FROM sqlite_sequence WHERE name = ? AND seq = ?",
                                                arguments: [.text(table), .integer(seq)],
                                                preview: "DELETE FROM sqlite_sequence WHERE name = \(Database.quoteLiteral(table))"))
            }
        }
        return statements
    }

    /// The AUTOINCREMENT counters of `db`, by table (none without `sqlite_sequence`).
    private static func sequence(in db: Database) throws -> [String: Int64] {
        guard try db.scalar("SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_sequence')")?.int64Value == 1 else { return [:] }
        var counters: [String: Int64] = [:]
        for row in try db.query("SELECT name, seq FROM sqlite_sequence") {
            if let name = row[0].stringValue, let seq = row[1].int64Value { counters[name] = seq }
        }
        return counters
    }
}

/// One inverse statement of an undo file, with the row it restores and how to tell that
/// row changed since.
struct UndoStatement {
    /// The row (or table) in words: `notes row 3`.
    let label: String
    /// How the statement tells that its row changed since the commit.
    let check: UndoFile.UndoCheck
    /// The table it changes.
    let table: String
    /// The statement, with `?` for its values.
    let sql: String
    /// Its values, as the store held them.
    let arguments: [DatabaseValue]
    /// The statement for the review: the values that change, inlined (long ones cut).
    let preview: String
    /// For a schema statement, the statement that does again what it undoes.
    var redo: String?
}
