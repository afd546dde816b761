import DatacenterKit

/// Runs rendered SQL on one connection, exactly as rendered, through the connection's
/// statement cache (SQL that does not vary is prepared once).
///
/// The caller opens the transaction; the executor uses savepoints inside it so a failing
/// resumable step or `try` part is undone alone.
struct Executor {
    let db: Database
    /// Whose statements run: a call's, or an upgrade block's or a reader's (an encryptor
    /// and perhaps a method name). A call is kept whole, one reference: its encryptor and
    /// method are read from it when needed, not copied into every executor.
    private let owner: Owner
    /// How rows become the call's result; nil when they are stepped through and dropped.
    var results: ResultMapping? = nil
    /// True to keep every statement's rows as SQLite returned them (`Outcome.rows`), for a
    /// reader that shows them as they are (`DAOConfig.readRows`); `results` is not used then.
    var keepsRows = false

    private enum Owner {
        case call(DAOCall)
        case encryptor(any DataCrypt, methodID: String?)
    }

    /// An executor of statements not made by a call: an upgrade block's (no method), or a
    /// method's read by `DAOConfig.readRows`. `encryptor` encrypts the bindings a `<crypt>`
    /// rule covers.
    init(db: Database, encryptor: any DataCrypt, methodID: String? = nil) {
        self.db = db
        self.owner = .encryptor(encryptor, methodID: methodID)
    }

    /// An executor of `call`'s statements, its rows mapped by `results` (nil: dropped).
    init(db: Database, call: DAOCall, results: ResultMapping?) {
        self.db = db
        self.owner = .call(call)
        self.results = results
    }

    /// Encrypts bindings a `<crypt>` rule covers.
    var encryptor: any DataCrypt {
        switch owner {
        case .call(let call): return call.encryptor
        case .encryptor(let encryptor, _): return encryptor
        }
    }

    /// The method whose statements run, named by errors (nil for an upgrade block).
    var methodID: String? {
        switch owner {
        case .call(let call): return call.method.id
        case .encryptor(_, let methodID): return methodID
        }
    }

    /// How a call's rows become its result: the call's result type, its mapper, its method
    /// (whose row layouts are kept with its statements) and, for a typed read, where its rows
    /// are decoded. Holds the call alone: the mapping is handed to every statement run, and
    /// a struct of the four was copied and destroyed at each hand-over.
    struct ResultMapping {
        let call: DAOCall

        var type: DAOResultType? { call.method.result }
        var mapper: ResultMapper { call.mapper }
        var method: DAOMethod { call.method }
        var typedRows: TypedRows? { call.typedRows }

        /// A collector for the rows of `statement`, with the layout kept for it.
        func collector(for statement: Statement) -> ResultCollector {
            ResultCollector(type, mapper: mapper, typedRows: typedRows, layout: statement.keptLayout(for: method))
        }

        /// A collector of no rows (a call whose statements returned no columns).
        var empty: ResultCollector { ResultCollector(type, mapper: mapper, typedRows: typedRows) }

        /// False for a single-row result: on every plan its statement is stepped to its first
        /// row only, then reset (a read leaves nothing to finish, and a write with RETURNING
        /// makes all its changes on its first step), so an error SQLite would raise only on
        /// a later row fails no plan. True for an array result, or none.
        var readsAllRows: Bool { type?.isArray ?? true }
    }

    /// The mapped rows of the last statement that returned columns, and the statements run.
    struct Outcome {
        var result: ResultCollector? = nil
        /// With `keepsRows`: the rows of each statement that returned columns, in run order.
        var rows: [[Row]] = []
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
            let statement = try statement(for: sql)
            if keepsRows, statement.columnCount > 0 {
                outcome.rows.append(try statement.fetchAll(StatementArguments(bindings)))
            } else {
                outcome.result = try run(statement, bindings) ?? outcome.result
            }
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

    /// Runs `sql` on its prepared `statement` (from `soleReadOnlyStatement`, which has
    /// checked that it only reads) and maps its rows: the call's value and decoded objects
    /// (`.nil` and none when rows are not mapped). A single-row result reads the first row
    /// only (`ResultMapping.readsAllRows`).
    /// - throws: `DAOError.database`; what mapping throws.
    func runReading(_ sql: RenderedSQL, on statement: Statement) throws -> (value: DAOValue, objects: [any Sendable]) {
        let bindings = try encryptedBindings(of: sql)
        do {
            guard let results else {
                try statement.execute(values: bindings)
                return (.nil, [])
            }
            guard statement.columnCount > 0 else {
                try statement.execute(values: bindings)
                return try results.empty.finish()
            }
            if let typedRows = results.typedRows, typedRows.readsColumns, let type = results.type, type.element.isRow {
                let layout = try typedRows.readRows(of: statement, values: bindings, as: type.element, mapper: results.mapper,
                                                    layout: statement.keptLayout(for: results.method), readsAll: type.isArray)
                statement.keep(layout, for: results.method)
                return (.nil, [])
            }
            let collector = results.collector(for: statement)
            let readsAll = results.readsAllRows
            try statement.forEachRow(values: bindings) { row in
                collector.add(row)
                return readsAll
            }
            statement.keep(collector.newLayout, for: results.method)
            return try collector.finish()
        } catch let error as DatabaseError {
            throw DAOError.database(error)
        }
    }

    /// Runs `statement` to its end; its mapped rows, or nil when it returns no columns or
    /// rows are not mapped.
    private func run(_ statement: Statement, _ bindings: [DatabaseValue]) throws -> ResultCollector? {
        guard statement.columnCount > 0, let results else {
            try statement.execute(values: bindings)
            return nil
        }
        let collector = results.collector(for: statement)
        let readsAll = results.readsAllRows
        try statement.forEachRow(values: bindings) { collector.add($0); return readsAll }
        statement.keep(collector.newLayout, for: results.method)
        return collector
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
