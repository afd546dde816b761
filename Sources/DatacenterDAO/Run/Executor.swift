import DatacenterKit

/// Runs rendered SQL on one connection, exactly as rendered, through the connection's
/// statement cache (SQL that does not vary is prepared once).
///
/// The caller opens the transaction; the executor uses savepoints inside it so a failing
/// resumable step or `try` part is undone alone.
struct Executor {
    let db: Database
    /// Encrypts bindings a `<crypt>` rule covers.
    let encryptor: any DataCrypt
    /// The method whose statements run, named by errors (nil for an upgrade block).
    var methodID: String? = nil

    /// The rows of the last statement that returned columns, and the statements run.
    struct Outcome {
        var rows: [Row]? = nil
        var ran: [RenderedSQL] = []
        var skipped = 0
    }

    /// Runs a body: one statement, steps in order, or try then except.
    func run(_ body: RenderedBody, into outcome: inout Outcome) throws {
        switch body {
        case .statement(let sql):
            try run(sql, into: &outcome)
        case .steps(let steps):
            for step in steps {
                if step.resumable {
                    var attempt = outcome
                    do {
                        try db.inSavepoint { try run(step.statement, into: &attempt) }
                        outcome = attempt
                    } catch {
                        continue // a resumable step's failure is skipped
                    }
                } else {
                    try run(step.statement, into: &outcome)
                }
            }
        case .tryExcept(let attempt, let fallback):
            var tried = outcome
            do {
                try db.inSavepoint { try run(attempt, into: &tried) }
                outcome = tried
            } catch {
                try db.inSavepoint { try run(fallback, into: &outcome) }
            }
        }
    }

    /// Runs one statement with its bindings (encrypting the covered ones).
    func run(_ sql: RenderedSQL, into outcome: inout Outcome) throws {
        if sql.skipped { outcome.skipped += 1; return }
        guard !sql.sql.isEmpty else { return }
        let bindings = try encryptedBindings(of: sql)
        do {
            outcome.rows = try run(try statement(for: sql), bindings) ?? outcome.rows
        } catch let error as DatabaseError {
            throw DAOError.database(error)
        }
        outcome.ran.append(sql)
    }

    /// The prepared statement of `sql`, from the connection's statement cache.
    ///
    /// Every statement the DAO runs is prepared here (kept reads and static foreach batches
    /// too), so this is where a rendered statement is held to be exactly one SQL statement:
    /// the cache prepares it with SQLite, which says where the first statement ends, and
    /// refuses anything but whitespace, comments and `;` after it (checked once per prepare;
    /// a cached statement was checked when it was prepared).
    /// - throws: `DAOError.moreThanOneStatement` naming the method and where its body is;
    ///   `DatabaseError` for other failures.
    func statement(for sql: RenderedSQL) throws -> Statement {
        try Executor.statement(sql.sql, on: db, method: methodID, at: sql.location)
    }

    /// `statement(for:)` for SQL rendered from the body at `location` of `method`.
    static func statement(_ sql: String, on db: Database, method: String?, at location: SourceLocation?) throws -> Statement {
        do {
            return try db.cachedStatement(sql)
        } catch let error as DatabaseError where error.isMoreThanOneStatement {
            throw DAOError.moreThanOneStatement(method: method, at: location)
        }
    }

    /// The prepared statement of `sql` when it is one read-only statement that runs: a call
    /// made of it alone needs no transaction (SQLite runs one statement atomically, and a
    /// read leaves nothing to undo). nil otherwise.
    func soleReadOnlyStatement(_ sql: RenderedSQL) throws -> Statement? {
        guard !sql.skipped, !sql.sql.isEmpty else { return nil }
        do {
            let statement = try statement(for: sql)
            return statement.isReadOnly ? statement : nil
        } catch let error as DatabaseError {
            throw DAOError.database(error)
        }
    }

    /// Runs `sql` on its prepared `statement` (from `soleReadOnlyStatement`); the rows, or nil
    /// when the statement returns no columns.
    func run(_ sql: RenderedSQL, on statement: Statement) throws -> [Row]? {
        let bindings = try encryptedBindings(of: sql)
        do {
            return try run(statement, bindings)
        } catch let error as DatabaseError {
            throw DAOError.database(error)
        }
    }

    /// Runs `statement`; its rows, or nil when it returns no columns.
    private func run(_ statement: Statement, _ bindings: [DatabaseValue]) throws -> [Row]? {
        if statement.columnCount > 0 {
            var rows: [Row] = []
            try statement.forEachRow(values: bindings) { rows.append($0.row()); return true }
            return rows
        }
        try statement.execute(values: bindings)
        return nil
    }

    /// Runs `sql` on its prepared `statement` (from `soleReadOnlyStatement`, returning
    /// columns) and reads only its first row, with `read` while the statement is on it; nil
    /// when there is no row. The statement only reads, so it is not stepped further: the rest
    /// of its rows could change nothing.
    func runReadingFirstRow<T>(_ sql: RenderedSQL, on statement: Statement, _ read: (Statement) throws -> T) throws -> T? {
        let bindings = try encryptedBindings(of: sql)
        var first: T?
        do {
            try statement.forEachRow(values: bindings) { row in
                first = try read(row)
                return false
            }
        } catch let error as DatabaseError {
            throw DAOError.database(error)
        }
        return first
    }

    /// The bindings of `sql`, the ones a crypt rule covers encrypted.
    private func encryptedBindings(of sql: RenderedSQL) throws -> [DatabaseValue] {
        guard !sql.encryptedBindings.isEmpty else { return sql.bindings }
        var bindings = sql.bindings
        for index in sql.encryptedBindings where bindings.indices.contains(index) {
            bindings[index] = try CryptColumn.encrypt(bindings[index], with: encryptor)
        }
        return bindings
    }
}
