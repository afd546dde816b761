import DatacenterKit

/// What `DAOConfig.readRows` read: the call as rendered, and the rows of each statement that
/// returned columns, in the order they ran.
public struct DAORawRows: Sendable {
    /// The call as rendered (its runs, its statements, whether it was a foreach).
    public let call: RenderedCall
    /// The rows of each statement that returned columns, as SQLite returned them: no result
    /// mapping, no decryption. A statement of a failed `<try>` or resumable step is not here.
    public let batches: [[Row]]
    /// The statements that ran, in order (as `DAOCallResult.statements` lists them).
    public let statements: [RenderedSQL]
}

extension DAOConfig {
    /// Renders a call of the method `id` and runs it on `db` the way `DAOObject.call` runs a
    /// call (the one executor: steps in order, a failing resumable step skipped, `<except>`
    /// only when `<try>` failed, `onVoid="quit"` skipping), in one transaction, and returns
    /// every statement's rows as they are. For a reader that shows rows rather than a result
    /// (the browser's DAO panel): on a read-only connection, nothing can be written.
    ///
    /// Unlike `DAOObject.call` it prepares no table and maps no rows; `encryptor` encrypts
    /// the bindings a `<crypt>` rule covers, as a call would.
    /// - throws: what rendering throws; `DAOError` for the statements.
    public func readRows(_ id: String, arguments: [DAOValue], globals: [String: DAOValue] = [:], tableName: String? = nil,
                         on db: Database, encryptor: any DataCrypt) throws -> DAORawRows {
        let call = try render(id, arguments: arguments, globals: globals, tableName: tableName)
        var executor = Executor(db: db, encryptor: encryptor, methodID: id)
        executor.keepsRows = true
        let outcomes = try DAOError.mappingDatabaseErrors {
            try db.inTransaction(.deferred) {
                try call.runs.map { run in
                    var outcome = Executor.Outcome()
                    try executor.run(run, into: &outcome)
                    return outcome
                }
            }
        }
        return DAORawRows(call: call, batches: outcomes.flatMap(\.rows), statements: outcomes.flatMap(\.ran))
    }
}
