import DatacenterKit

/// The way every call of one method runs: chosen once, when the config loads, from the
/// method's shape alone (`DAOMethod.plan`), and run by `run(_:on:)`, the one place
/// `DAOObject.call` hands a call to.
///
/// Whatever the way, a call does the same thing: it renders (or binds exactly what rendering
/// would bind), prepares the table on first use, runs its statements atomically, and maps
/// its rows the same way (`ResultCollector`; a typed read of one statement's rows, the same
/// in one loop: `TypedRows.readRows`). The ways differ only in what they skip, and
/// the equivalence tests hold each to the general path's result, errors included:
///
/// | way | chosen for | what it skips |
/// |---|---|---|
/// | `keptRead` | a select by key: one static statement, a single-row result, `#{}` of arguments only | after the first call on a table: rendering, the statement-cache lookup, the transaction |
/// | `oneStatement` | any other body of one statement, not a foreach | writing the text of a shape rendered before (`RenderedTextCache`); for a statement that only reads: the transaction, and the rows after the first for a single-row result |
/// | `staticForEach` | a method-level foreach over one static statement (a batch insert) | rendering per element: the statement is prepared once, each element bound straight to it |
/// | `transaction` | steps, `<try>`, a foreach over a dynamic body | nothing: rendered, every statement in one transaction |
/// | `poolRead` | a `parallel="true"` select | the writer: it runs on a read-only connection of the store's pool |
///
/// A way that finds at run time it does not apply (a kept read's statement that writes, a
/// pool the database cannot have) runs the call as the way it falls back to, never half.
indirect enum DAOCallPlan: Sendable {
    /// A select by key (`KeptReadPlan`): the first call on a table runs as `oneStatement`
    /// and the DAO object keeps its statement; later calls bind their arguments to it.
    case keptRead(KeptReadPlan)
    /// A body of one statement: rendered per call (a static body from its SQL made once per
    /// table). A statement that only reads runs without a transaction (SQLite runs one
    /// statement atomically) and a single-row result reads only the first row; one that
    /// writes runs in a transaction. A dynamic statement's text is kept in the cache by the
    /// shape each call renders (`RenderedTextCache`): a call taking the branches of an earlier
    /// one finds its bound values and not the text. (No cache for a template whose text
    /// its branches do not determine: `@{}`, `<format>`, an `onVoid` trim.)
    case oneStatement(RenderedTextCache?)
    /// A method-level foreach over one static statement: prepared once and bound element by
    /// element (`StaticForEachPlan`), in one transaction.
    case staticForEach(StaticForEachPlan)
    /// Anything else: rendered, every statement in one transaction (savepoints inside a
    /// caller's transaction), steps and `<try>` as the executor runs them.
    case transaction
    /// A `parallel` select: rendered and run on a read-only connection of the store's pool
    /// when the database is a file and no explicit transaction is open; otherwise as
    /// `otherwise`.
    case poolRead(otherwise: DAOCallPlan)

    /// The plan of a method of this shape.
    init(kind: DAOMethodKind, arguments: [DAOArgumentSpec], result: DAOResultType?, forEach: DAOForEachSpec?,
         isParallel: Bool, body: DAOMethodBody, staticPlan: StaticStatementPlan?) {
        let plan: DAOCallPlan
        if let kept = KeptReadPlan(arguments: arguments, result: result, forEach: forEach, isParallel: isParallel,
                                   staticPlan: staticPlan) {
            plan = .keptRead(kept)
        } else if let forEach, let staticPlan {
            plan = .staticForEach(StaticForEachPlan(statement: staticPlan, forEach: forEach))
        } else if forEach == nil, case .sql(let template) = body {
            plan = .oneStatement(RenderedTextCache(template: template, arguments: arguments))
        } else {
            plan = .transaction
        }
        self = isParallel && kind == .select ? .poolRead(otherwise: plan) : plan
    }

    /// The way's name, for tests and diagnostics: `keptRead`, `oneStatement`, …
    var name: String {
        switch self {
        case .keptRead: return "keptRead"
        case .oneStatement: return "oneStatement"
        case .staticForEach: return "staticForEach"
        case .transaction: return "transaction"
        case .poolRead: return "poolRead"
        }
    }

    /// The text cache of a `oneStatement` plan; nil for the others and for a template
    /// that cannot have one.
    var textCache: RenderedTextCache? {
        if case .oneStatement(let textCache?) = self { return textCache }
        return nil
    }

    /// True when a call runs one statement and maps only its rows, so a typed read can
    /// decode them as they are stepped (`TypedRows`): not for steps or `<try>`, whose
    /// result is the rows of one statement among several, nor for a foreach.
    var mapsOneStatement: Bool {
        switch self {
        case .keptRead, .oneStatement: return true
        case .staticForEach, .transaction: return false
        case .poolRead(let otherwise): return otherwise.mapsOneStatement
        }
    }

    /// Runs a call of `method` with `arguments` on `object` this way; with `typedRows`
    /// (only when `mapsOneStatement`), its rows are decoded there and its value is `.nil`.
    /// - throws: `DAOError`; on a throw nothing of the call is kept.
    func run(_ method: DAOMethod, _ arguments: [DAOValue], on object: DAOObject,
             typedRows: TypedRows? = nil) throws -> DAOCallResult {
        // A kept read needs only its statement and the decryptor: no snapshot of the rest.
        if case .keptRead = self, let (read, mapper) = object.keptRead(of: method) {
            try method.checkArguments(arguments)
            return try object.writing { db in
                let (value, objects) = try read.run(arguments, mapper: mapper, typedRows: typedRows)
                let history: DAOCallResult.History = typedRows == nil ? .keptRead(method, arguments, table: read.table) : .notKept
                return DAOCallResult(value: value, objects: objects, changes: 0, lastInsertRowID: db.lastInsertRowID,
                                     skipped: false, history: history)
            }
        }
        return try run(try object.makeCall(method, arguments, typedRows: typedRows), on: object)
    }

    /// Runs `call` on `object` this way.
    /// - throws: `DAOError`; on a throw nothing of the call is kept.
    private func run(_ call: DAOCall, on object: DAOObject) throws -> DAOCallResult {
        switch self {
        case .keptRead(let plan):
            return try DAOCallPlan.runOneStatement(call, on: object, keeping: plan, textCache: nil)
        case .oneStatement(let textCache):
            return try DAOCallPlan.runOneStatement(call, on: object, keeping: nil, textCache: textCache)
        case .staticForEach(let plan):
            guard let batch = try plan.batch(for: call) else { return try DAOCallPlan.transaction.run(call, on: object) }
            let results = object.resultMapping(for: call)
            return try object.write(call) { db in
                try db.inTransaction(call.method.kind == .select ? .deferred : .immediate) {
                    let before = db.totalChanges
                    let (values, objects) = try batch.run(on: db, results: results)
                    return DAOCallResult(value: .array(values), objects: objects, changes: db.totalChanges - before,
                                         lastInsertRowID: db.lastInsertRowID, skipped: false,
                                         history: .deferred { batch.renderedStatements() })
                }
            }
        case .transaction:
            let rendered = try call.render()
            return try object.write(call) { db in
                try db.inTransaction(call.method.kind == .select ? .deferred : .immediate) {
                    try DAOCallPlan.execute(rendered, call, on: db, results: object.resultMapping(for: call))
                }
            }
        case .poolRead(let otherwise):
            guard let pool = object.readingPool else { return try otherwise.run(call, on: object) }
            let rendered = try call.render(textCache: otherwise.textCache)
            // Only an unprepared table takes the writer: a prepared one never waits for a write transaction.
            if !call.isPrepared { try object.write(call) { _ in } }
            let results = object.resultMapping(for: call)
            return try DAOError.mappingDatabaseErrors {
                try pool.read { db in try DAOCallPlan.execute(rendered, call, on: db, results: results) }
            }
        }
    }

    /// A body of one statement: a statement that only reads runs alone, one that writes in a
    /// transaction. With `keeping`, a read is kept for the next calls (`keptRead`); with
    /// `textCache`, the text rendered is taken from it or kept there.
    private static func runOneStatement(_ call: DAOCall, on object: DAOObject, keeping plan: KeptReadPlan?,
                                        textCache: RenderedTextCache?) throws -> DAOCallResult {
        // The way of another method's shape (a test's `call(_:_:as:)`): the general path.
        guard call.method.forEach == nil, case .sql = call.method.body else { return try DAOCallPlan.transaction.run(call, on: object) }
        let sql = try call.renderStatement(textCache: textCache)
        let results = object.resultMapping(for: call)
        return try object.write(call) { db in
            let executor = Executor(db: db, call: call, results: results)
            if let statement = try executor.soleReadOnlyStatement(sql) {
                if let plan, sql.bindings.count == plan.bindings.count,
                   let read = KeptRead(method: call.method, plan: plan, table: call.table, statement: statement) {
                    object.keep(read)
                }
                let before = db.totalChanges
                let (value, objects) = try executor.runReading(sql, on: statement)
                return DAOCallResult(value: value, objects: objects, changes: db.totalChanges - before,
                                     lastInsertRowID: db.lastInsertRowID, skipped: false,
                                     history: call.typedRows == nil ? .oneStatement(call, textCache: textCache) : .notKept)
            }
            return try db.inTransaction(call.method.kind == .select ? .deferred : .immediate) {
                try execute(RenderedCall(methodID: call.method.id, kind: call.method.kind, runs: [.statement(sql)], isForEach: false),
                            call, on: db, results: results)
            }
        }
    }

    /// Runs rendered bodies on `db` (the caller provides the transaction) and maps each
    /// run's rows when `results` is given.
    private static func execute(_ rendered: RenderedCall, _ call: DAOCall, on db: Database,
                                results: Executor.ResultMapping?) throws -> DAOCallResult {
        let before = db.totalChanges
        let executor = Executor(db: db, call: call, results: results)
        var ran: [RenderedSQL] = []
        var skipped = 0
        var values: [DAOValue] = []
        var objects: [any Sendable] = []
        for run in rendered.runs {
            var outcome = Executor.Outcome()
            try executor.run(run, into: &outcome)
            ran += outcome.ran
            skipped += outcome.skipped
            if let results {
                let (value, decoded) = try (outcome.result ?? results.empty).finish()
                values.append(value)
                objects += decoded
            }
        }
        let value: DAOValue = rendered.isForEach ? .array(values) : (values.first ?? .nil)
        return DAOCallResult(value: value, objects: objects, changes: db.totalChanges - before, lastInsertRowID: db.lastInsertRowID,
                             skipped: ran.isEmpty && skipped > 0, statements: ran)
    }
}

/// One call as its plan runs it: the method, the arguments, and the DAO object's state when
/// the call began (read once, under its lock).
///
/// A class: the plans hand a call to closures and helpers, and a struct of eight fields was
/// copied and destroyed at each (a tenth of a dynamic select's time outside SQLite).
final class DAOCall: Sendable {
    let method: DAOMethod
    let arguments: [DAOValue]
    /// The table `${T}` names.
    let table: String
    let globals: [String: DAOValue]
    let cryptRules: Set<DAOCryptRule>
    let encryptor: any DataCrypt
    /// The mapper of rows (with the object's decryptor).
    let mapper: ResultMapper
    /// Where a typed read decodes its rows (only for a plan that `mapsOneStatement`); nil
    /// for the value path.
    let typedRows: TypedRows?
    /// True when the call need not prepare the table: this object has prepared it, or the
    /// call is a select that leaves tables as they are (`selectsPrepareTables` false).
    let isPrepared: Bool

    init(method: DAOMethod, arguments: [DAOValue], table: String, globals: [String: DAOValue], cryptRules: Set<DAOCryptRule>,
         encryptor: any DataCrypt, mapper: ResultMapper, typedRows: TypedRows?, isPrepared: Bool) {
        self.method = method
        self.arguments = arguments
        self.table = table
        self.globals = globals
        self.cryptRules = cryptRules
        self.encryptor = encryptor
        self.mapper = mapper
        self.typedRows = typedRows
        self.isPrepared = isPrepared
    }

    /// What `Renderer.render` renders for the call (its text from `textCache` when given:
    /// see `RenderedTextCache`).
    /// - throws: `DAOError` (`.wrongArgumentCount`, `.nilArgument`, `.render`, `.expression`).
    func render(textCache: RenderedTextCache? = nil) throws -> RenderedCall {
        try Renderer.render(method, arguments: arguments, globals: globals, tableName: table, cryptRules: cryptRules,
                            textCache: textCache)
    }

    /// What `render` renders for a call whose body is one statement (no foreach): that
    /// statement (`Renderer.renderStatement`).
    func renderStatement(textCache: RenderedTextCache?) throws -> RenderedSQL {
        try Renderer.renderStatement(method, arguments: arguments, globals: globals, tableName: table, cryptRules: cryptRules,
                                     textCache: textCache)
    }
}

extension DAOError {
    /// Runs `body`, reporting a `DatabaseError` as `DAOError.database`.
    static func mappingDatabaseErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw DAOError.database(error)
        }
    }
}
