/// How a sequence of statements (`execute` with several statements, `executeScript`,
/// `runScript`) runs: DBConnect's `createTransactionOnSQLSequences`,
/// `rollbackSQLSequenceTransactionOnError` and `defaultSQLSequencesTransactionLock`, with
/// the reference's defaults: wrapped in a deferred transaction, rolled back whole when a
/// statement fails.
///
/// A sequence runs as written, without a transaction of its own, when it manages its own
/// (`BEGIN`, `COMMIT`, `ROLLBACK`, `SAVEPOINT`, `RELEASE`), holds a statement SQLite runs
/// only outside a transaction (`VACUUM`, `ATTACH`, `DETACH`, `PRAGMA journal_mode`, and
/// `PRAGMA foreign_keys`, which does nothing inside one), a
/// transaction is already open, or the connection is read-only. A single statement is
/// atomic by itself.
public struct SQLSequenceOptions: Sendable, Equatable {
    /// `createTransactionOnSQLSequences`: wrap the sequence in `BEGIN` … `COMMIT`.
    public var createsTransaction: Bool
    /// `rollbackSQLSequenceTransactionOnError`: when a statement fails, undo the ones that
    /// ran before it; false keeps them (commits them) and still throws the error.
    public var rollsBackOnError: Bool
    /// `defaultSQLSequencesTransactionLock`: the kind of transaction begun.
    public var lock: Database.TransactionKind

    /// The reference's defaults: a deferred transaction, rolled back on error.
    public init(createsTransaction: Bool = true, rollsBackOnError: Bool = true, lock: Database.TransactionKind = .deferred) {
        self.createsTransaction = createsTransaction
        self.rollsBackOnError = rollsBackOnError
        self.lock = lock
    }
}

extension Database {
    /// Runs `body`, which runs the statements `statements` (the text of each, in order), as
    /// `sqlSequences` says.
    func runSequence(_ statements: [String], _ body: () throws -> Void) throws {
        let options = sqlSequences
        guard options.createsTransaction, statements.count > 1, !isReadOnly, !isInTransaction,
              !statements.contains(where: SQLScript.runsOutsideTransactions) else {
            try body()
            return
        }
        try beginTransaction(options.lock)
        do {
            try body()
        } catch {
            // SQLite may have ended the transaction itself (a full disk): nothing to end then.
            if isInTransaction { if options.rollsBackOnError { try? rollback() } else { try? commit() } }
            throw error
        }
        do {
            try commit()
        } catch {
            if isInTransaction { try? rollback() }
            throw error
        }
    }
}
