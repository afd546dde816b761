import DatacenterKit
import Synchronization
import Foundation

/// A DAO object: a config bound to a database, whose methods are called by name with
/// positional arguments (`APDAOProtocol`).
///
/// Each call renders its SQL (`Renderer`), prepares the table on first use (initializer,
/// upgrades: `TableVersioning`), and runs in one transaction. Thread-safe: calls are
/// serialized on the database's connection.
///
/// For example:
/// ```swift
/// let dao = try DAOObject(config: DAOConfig(contentsOfFile: "demo.xml"), store: store)
/// try dao.call("insertItem", ["something"])
/// let content = try dao.call("getItem", [.integer(dao.lastInsertRowID)]).value
/// ```
public final class DAOObject: Sendable {
    /// The config.
    public let config: DAOConfig
    /// The path of the database file the tables live in.
    public let databasePath: String
    /// Model types results can decode into.
    public let models: DAOModelRegistry

    private let queue: DatabaseQueue
    private let pool: DatabasePool?
    private let state: LockedState<State>
    /// What the last call reported (`lastInsertRowID`, `lastChanges`): atomics, so a call
    /// records them without taking the state's lock again.
    private let lastRowID = Atomic<Int64>(0)
    private let lastChangeCount = Atomic<Int>(0)
    /// The method called last: a loop calling one method finds it by comparing its id with
    /// this one's (the same string, usually the same storage) instead of hashing the id.
    private let lastCalled = LockedState<DAOMethod?>(nil)

    /// Everything a call reads or changes besides the database, only touched under the
    /// mutex (`withState`); unchecked because its kept reads hold statements, which are
    /// used on the connection's queue only.
    private struct State: @unchecked Sendable {
        var tableName: String {
            didSet { isTablePrepared = preparedTables.contains(tableName) }
        }
        var globals: [String: DAOValue] = [:]
        var eventHandler: DAOEventHandler?
        var encryptor: any DataCrypt
        var decryptor: any DataCrypt {
            didSet { mapper = ResultMapper(mapper, decryptor: decryptor) }
        }
        /// The mapper of rows, with the current decryptor.
        var mapper: ResultMapper
        /// Tables whose initializer and upgrades have run.
        var preparedTables: Set<String> = [] {
            didSet { isTablePrepared = preparedTables.contains(tableName) }
        }
        /// True when `preparedTables` holds `tableName`: every call asks, and hashing the name
        /// each time cost as much as the rest of taking the call's state.
        private(set) var isTablePrepared = false
        var selectsPrepareTables = true
        var explicitTransaction = false
        /// Selects by key ready to run again, on prepared tables only.
        var keptReads: [KeptRead] = []

        /// The kept read of `method` on `table`.
        func keptRead(of method: DAOMethod, table: String) -> KeptRead? {
            for read in keptReads where read.method === method && read.table == table { return read }
            return nil
        }

        /// Keeps `read` while its table is prepared (a table forgotten meanwhile is set up
        /// again by the next call, which the kept read would skip).
        mutating func keep(_ read: KeptRead) {
            guard preparedTables.contains(read.table), !keptReads.contains(where: { $0.method === read.method && $0.table == read.table })
            else { return }
            if keptReads.count >= State.keptReadLimit { keptReads.removeAll() }
            keptReads.append(read)
        }

        static let keptReadLimit = 32

        /// Forgets that `table` (nil: every table) was set up, and the reads kept on it.
        mutating func forgetPrepared(_ table: String?) {
            if let table {
                preparedTables.remove(table)
                keptReads.removeAll { $0.table == table }
            } else {
                preparedTables.removeAll()
                keptReads.removeAll()
            }
        }
    }

    /// A DAO object over a store's file; crypt columns use the store's default crypt. It uses
    /// the store's connections, so an encrypted store is read and written with its database
    /// key (parallel selects too: the pool's readers open with it).
    public convenience init(config: DAOConfig, store: Store, models: DAOModelRegistry = DAOModelRegistry()) {
        self.init(config: config, queue: store.queue, pool: store.pool, crypt: store.kv.defaultCrypt, models: models)
    }

    /// A DAO object over the database file at `path` (created when missing, WAL mode).
    /// - parameter databaseKey: the key of an encrypted file (a new file is created encrypted
    ///   with it), used by every connection the object opens; nil for a plain file.
    public convenience init(config: DAOConfig, path: String, crypt: any DataCrypt = KeyRing.empty,
                            models: DAOModelRegistry = DAOModelRegistry(), databaseKey: DatabaseKey? = nil) throws {
        let queue = try DatabaseQueue(path: path, key: databaseKey)
        self.init(config: config, queue: queue, pool: DatabasePool(writer: queue), crypt: crypt, models: models)
    }

    /// A DAO object over an open connection queue (in-memory databases, tests). `pool`, when
    /// given, serves `parallel="true"` selects from read-only connections.
    public init(config: DAOConfig, queue: DatabaseQueue, pool: DatabasePool? = nil, crypt: any DataCrypt = KeyRing.empty,
                models: DAOModelRegistry = DAOModelRegistry()) {
        self.config = config
        self.queue = queue
        self.pool = pool
        self.databasePath = queue.path
        self.models = models
        self.state = LockedState(State(tableName: config.module.tableName, encryptor: crypt, decryptor: crypt,
                                 mapper: ResultMapper(config: config, decryptor: crypt, registry: models)))
    }

    private func recordOutcome(rowID: Int64, changes: Int) {
        lastRowID.store(rowID, ordering: .relaxed)
        lastChangeCount.store(changes, ordering: .relaxed)
    }

    private func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
        try state.withLock { try body(&$0) }
    }

    // MARK: Properties (APDAOProtocol)

    /// The table `${T}` names: the module's `tableName` until set (one config, many tables).
    public var tableName: String {
        get { withState { $0.tableName } }
        set { withState { $0.tableName = newValue } }
    }

    /// Arguments every method can read after its own (`#{name}`, `@{name}`, expressions).
    public var globalArguments: [String: DAOValue] {
        get { withState { $0.globals } }
        set { withState { $0.globals = newValue } }
    }

    /// When false, calling a select method never prepares its table: no initializer, no
    /// upgrade, no bookkeeping row — a read writes nothing, and a missing table is the
    /// select's own error. For tools that read files they must not change (the CLI's
    /// `dao call`). Default true: as in the reference, the first call of any method prepares
    /// the table.
    public var selectsPrepareTables: Bool {
        get { withState { $0.selectsPrepareTables } }
        set { withState { $0.selectsPrepareTables = newValue } }
    }

    /// Receives ShouldUpgrade, UpgradeFailed, TableCreated and TableDeleted.
    public var eventHandler: DAOEventHandler? {
        get { withState { $0.eventHandler } }
        set { withState { $0.eventHandler = newValue } }
    }

    /// Encrypts crypt columns on write (default: the store's default crypt).
    public var encryptor: any DataCrypt {
        get { withState { $0.encryptor } }
        set { withState { $0.encryptor = newValue } }
    }

    /// Decrypts crypt columns on read (default: the store's default crypt).
    public var decryptor: any DataCrypt {
        get { withState { $0.decryptor } }
        set { withState { $0.decryptor = newValue } }
    }

    /// `sqlite3_last_insert_rowid()` after the last call.
    public var lastInsertRowID: Int64 { lastRowID.load(ordering: .relaxed) }

    /// Rows changed by the last call (all its statements).
    public var lastChanges: Int { lastChangeCount.load(ordering: .relaxed) }

    /// Every method of the config (`allMethodsList`), overloads included.
    public var allMethods: [DAOMethod] { config.methods }

    /// Runs `body` with the raw `sqlite3*` handle, the escape hatch for what this API does
    /// not cover. The connection is held for the duration; do not keep or close the handle.
    public func withSQLiteHandle<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T {
        try queue.write { db in try body(db.sqliteHandle) }
    }

    // MARK: Calls

    /// Renders a call without running it: what `call` would run, for previews.
    public func render(_ id: String, _ arguments: [DAOValue]) throws -> RenderedCall {
        let (table, globals) = withState { ($0.tableName, $0.globals) }
        return try Renderer.render(try config.method(id, arity: arguments.count), arguments: arguments, globals: globals,
                                   tableName: table, cryptRules: config.cryptRules)
    }

    /// Calls the method `id` overloaded for `arguments.count` arguments.
    ///
    /// `$` arguments are checked before any SQL; the table is prepared on first use; the
    /// statements run in one transaction (steps, foreach runs and try/except included).
    /// The method's `DAOCallPlan`, chosen when the config loaded, runs the call.
    /// - throws: `DAOError`; on a throw nothing of the call is kept.
    @discardableResult
    public func call(_ id: String, _ arguments: [DAOValue] = []) throws -> DAOCallResult {
        let method = try method(id, arity: arguments.count)
        let result = try method.plan.run(method, arguments, on: self)
        recordOutcome(rowID: result.lastInsertRowID, changes: result.changes)
        return result
    }

    /// `config.method(id, arity:)`: the method called last when it is the one, otherwise
    /// looked up in the config (and remembered).
    /// - throws: what `DAOConfig.method(_:arity:)` throws.
    func method(_ id: String, arity: Int) throws -> DAOMethod {
        if let last = lastCalled.withLock({ $0 }), last.arity == arity, last.id == id { return last }
        let method = try config.method(id, arity: arity)
        lastCalled.withLock { $0 = method }
        return method
    }

    /// A call of `method` with the object's state as it is now.
    /// - throws: `DAOError.noTableName` when a select that leaves tables as they are would
    ///   need a table name to set one up.
    /// With `typedRows`, the call's rows are decoded there (`TypedRows`).
    func makeCall(_ method: DAOMethod, _ arguments: [DAOValue], typedRows: TypedRows? = nil) throws -> DAOCall {
        let call = withState { state in
            // A select leaves the table as it is when selects are not to prepare it: the read writes nothing.
            let skipsPreparation = method.kind == .select && !state.selectsPrepareTables
            return (DAOCall(method: method, arguments: arguments, table: state.tableName, globals: state.globals,
                            cryptRules: config.cryptRules, encryptor: state.encryptor,
                            mapper: state.mapper, typedRows: typedRows,
                            isPrepared: skipsPreparation || state.isTablePrepared),
                    skipsPreparation)
        }
        if call.1, call.0.table.isEmpty, config.module.initializer != nil { throw DAOError.noTableName }
        return call.0
    }

    // MARK: What the plans use

    /// Runs `body` holding the connection, the table prepared first unless the call need
    /// not (or `preparing` is false).
    func write<T>(_ call: DAOCall, preparing: Bool = true, _ body: (Database) throws -> T) throws -> T {
        try mapDatabaseErrors {
            try queue.write { db in
                if preparing, !call.isPrepared { try prepare(call.table, globals: call.globals, encryptor: call.encryptor, db: db) }
                return try body(db)
            }
        }
    }

    /// The pool a `parallel` select reads from now: nil when there is none, the database is
    /// not a file, or an explicit transaction is open (the read must see it).
    var readingPool: DatabasePool? {
        guard let pool, !databasePath.isEmpty, databasePath != ":memory:", !withState({ $0.explicitTransaction }) else { return nil }
        return pool
    }

    /// How `call`'s rows become its result; nil for a call that maps none (an insert,
    /// update or delete without `result`).
    func resultMapping(for call: DAOCall) -> Executor.ResultMapping? {
        guard call.method.kind == .select || call.method.result != nil else { return nil }
        return Executor.ResultMapping(call: call)
    }

    /// Calls `id` the way `plan` runs calls, whatever the method's own plan: the tests hold
    /// every plan to the general path (`.transaction`) with it.
    func call(_ id: String, _ arguments: [DAOValue], as plan: DAOCallPlan) throws -> DAOCallResult {
        let method = try config.method(id, arity: arguments.count)
        let result = try plan.run(method, arguments, on: self)
        recordOutcome(rowID: result.lastInsertRowID, changes: result.changes)
        return result
    }

    /// Runs `body` holding the connection, reporting database errors as `DAOError`s.
    func writing<T>(_ body: (Database) throws -> T) throws -> T {
        try mapDatabaseErrors { try queue.write(body) }
    }

    /// The statement kept for `method` on the current table, with the mapper of its rows
    /// (the current decryptor); nil when none is kept.
    func keptRead(of method: DAOMethod) -> (KeptRead, ResultMapper)? {
        withState { state in state.keptRead(of: method, table: state.tableName).map { ($0, state.mapper) } }
    }

    /// Keeps `read` for the next calls of its method (while its table stays prepared).
    func keep(_ read: KeptRead) {
        withState { $0.keep(read) }
    }

    /// Calls a select and decodes its result as `T` (each row for an array result).
    ///
    /// A call that runs one statement decodes each row straight from the statement's
    /// columns as it is stepped (`TypedRows`), with no `DAOValue` dictionary per row; other
    /// calls (steps, `<try>`, a foreach) decode their result value. Both give what
    /// `call(id, arguments).value` decoded with `DAOValue.decode` gives.
    @inlinable
    public func fetch<T: Decodable>(_ id: String, _ arguments: [DAOValue] = [], as type: T.Type) throws -> [T] {
        // `DAOValue.decode` reads these from a row's whole value, not field by field.
        let readsColumns = T.self != Date.self && T.self != Data.self && T.self != URL.self
        let fetched = FetchedRows<T>()
        try read(id, arguments, as: T.self, readsColumns: readsColumns,
                 readRow: { row in fetched.rows.append(try T(from: row.decoder)) },
                 readValue: { value in fetched.rows.append(try value.decode(T.self)) })
        return fetched.rows
    }

    /// Calls a select and reads each row of its result with `T.init(row:)`: the typed read
    /// of `fetch` without `Decodable`'s containers (see `DAORowDecodable`).
    @inlinable
    public func fetch<T: DAORowDecodable>(_ id: String, _ arguments: [DAOValue] = [], as type: T.Type) throws -> [T] {
        try fetchRows(id, arguments, as: T.self)
    }

    /// A type that is both reads with `init(row:)`, its own faster reading.
    @inlinable
    public func fetch<T: Decodable & DAORowDecodable>(_ id: String, _ arguments: [DAOValue] = [], as type: T.Type) throws -> [T] {
        try fetchRows(id, arguments, as: T.self)
    }

    /// `fetch` of a `DAORowDecodable` type: a whole value (a scalar, a row of the value path)
    /// is read as a row too (`DAORow(value:)`), so one function reads everything.
    @inlinable
    func fetchRows<T: DAORowDecodable>(_ id: String, _ arguments: [DAOValue], as type: T.Type) throws -> [T] {
        let fetched = FetchedRows<T>()
        try read(id, arguments, as: T.self, readsColumns: true,
                 readRow: { row in fetched.rows.append(try T(row: row)) }, readValue: nil)
        return fetched.rows
    }

    /// Runs a typed read of `type`: each row of the result to `readRow` (unless not
    /// `readsColumns`: then the row's whole value to `readValue`), a scalar or the value
    /// path's rows (not `.nil`) to `readValue` (nil: to `readRow`, as a row). The generic
    /// part of `fetch` is inlined where it is called, specialized to the app's type; this
    /// part is not generic.
    @usableFromInline
    func read(_ id: String, _ arguments: [DAOValue], as type: Any.Type, readsColumns: Bool,
              readRow: @escaping (borrowing DAORow) throws -> Void, readValue: ((DAOValue) throws -> Void)?) throws {
        try read(id, arguments, into: TypedRows(type: type, readsColumns: readsColumns, readRow: readRow, readValue: readValue))
    }

    /// Runs the typed read `rows` reads: the call's rows decoded as they are stepped when it
    /// runs one statement, else its result value.
    private func read(_ id: String, _ arguments: [DAOValue], into rows: TypedRows) throws {
        let method = try method(id, arity: arguments.count)
        do {
            guard method.plan.mapsOneStatement else {
                switch try call(id, arguments).value {
                case .nil: return
                case .array(let values): for value in values where !value.isNil { try rows.read(value: value) }
                case let value: try rows.read(value: value)
                }
                return
            }
            let result = try method.plan.run(method, arguments, on: self, typedRows: rows)
            recordOutcome(rowID: result.lastInsertRowID, changes: result.changes)
        } catch let error as DAOError {
            throw error
        } catch {
            throw DAOError.resultMapping("\(error)")
        }
    }

    /// `fetch` through the call's value: the value path, which typed reads are held to.
    func fetchValue<T: Decodable>(_ id: String, _ arguments: [DAOValue] = [], as type: T.Type) throws -> [T] {
        do {
            return try decodeValue(of: call(id, arguments), with: { try $0.decode(T.self) })
        } catch let error as DAOError {
            throw error
        } catch {
            throw DAOError.resultMapping("\(error)")
        }
    }

    /// The rows of a call's result value, each decoded by `decode` (a `.nil` row is none).
    private func decodeValue<T>(of result: DAOCallResult, with decode: (DAOValue) throws -> T) throws -> [T] {
        switch result.value {
        case .nil: return []
        case .array(let rows): return try rows.filter { !$0.isNil }.map(decode)
        default: return [try decode(result.value)]
        }
    }

    private func mapDatabaseErrors<T>(_ body: () throws -> T) throws -> T {
        try DAOError.mappingDatabaseErrors(body)
    }

    // MARK: Tables

    private func prepareTable(_ table: String, globals: [String: DAOValue]) throws {
        let encryptor = withState { $0.encryptor }
        try mapDatabaseErrors { try queue.write { db in try prepare(table, globals: globals, encryptor: encryptor, db: db) } }
    }

    /// Runs the initializer / upgrades for `table` once per DAO object.
    private func prepare(_ table: String, globals: [String: DAOValue], encryptor: any DataCrypt, db: Database) throws {
        if table.isEmpty {
            if config.module.initializer != nil { throw DAOError.noTableName }
            withState { _ = $0.preparedTables.insert(table) } // nothing to set up
            return
        }
        guard !withState({ $0.preparedTables.contains(table) }) else { return }
        // The preparation's own inserts (bookkeeping rows, seed rows) are not the call's: the
        // call's result reports only the rowid of what the call itself inserted.
        let rowIDBefore = db.lastInsertRowID
        defer { db.lastInsertRowID = rowIDBefore }
        let versioning = TableVersioning(config: config, table: table, globals: globals,
                                         executor: Executor(db: db, encryptor: encryptor)) { [self] event, arguments in
            self.emit(event, arguments)
        }
        try versioning.prepare()
        withState { _ = $0.preparedTables.insert(table) }
    }

    /// What preparing the table (default: the current one) would run now, without running it:
    /// empty when this object has already prepared it. A preview shows it; `prepareTable`
    /// (or the first call) runs exactly these steps.
    /// - throws: `DAOError.downgrade` when the stored version is newer than the config's;
    ///   `DAOError.noTableName`; a render error of the initializer; `DAOError.database`.
    public func preparation(of name: String? = nil) throws -> TablePreparation {
        let (current, globals) = withState { ($0.tableName, $0.globals) }
        let table = name ?? current
        if table.isEmpty {
            if config.module.initializer != nil { throw DAOError.noTableName }
            return TablePreparation(table: table, steps: [], upgrading: nil)
        }
        if withState({ $0.preparedTables.contains(table) }) { return TablePreparation(table: table, steps: [], upgrading: nil) }
        return try mapDatabaseErrors { try queue.read { db in try TablePreparation.plan(config: config, table: table, globals: globals, in: db) } }
    }

    /// Prepares the table (default: the current one) now, as its first call would: runs its
    /// `preparation` (nothing when this object has already prepared it).
    /// - throws: as a call's preparation does (`DAOError.upgradeFailed`, `.downgrade`, …).
    public func prepareTable(_ name: String? = nil) throws {
        try prepareTable(name ?? tableName, globals: globalArguments)
    }

    private func emit(_ event: DAOEvent, _ arguments: [String: DAOValue]) {
        if let handler = withState({ $0.eventHandler }) { handler(self, event, arguments) }
    }

    /// True when the table (default: the current one) exists.
    public func tableExists(_ name: String? = nil) throws -> Bool {
        let table = name ?? tableName
        return try mapDatabaseErrors { try queue.read { db in try Store.tableExists(table, in: db) } }
    }

    /// The `CREATE` statement of the table (default: the current one), or nil when missing.
    public func schema(of name: String? = nil) throws -> String? {
        let table = name ?? tableName
        return try mapDatabaseErrors {
            try queue.read { db in
                try db.scalar("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)])?.stringValue
            }
        }
    }

    /// Drops the current table; the next call re-creates it through the initializer.
    public func deleteTable() throws {
        let table = tableName
        guard !table.isEmpty else { throw DAOError.noTableName }
        try drop(table)
    }

    /// Drops `table` and its recorded version in one transaction, forgets that it was set up,
    /// and announces `tableDeleted`.
    private func drop(_ table: String) throws {
        try mapDatabaseErrors {
            try queue.write { db in
                try db.inTransaction {
                    try db.execute("DROP TABLE IF EXISTS \(Database.quoteIdentifier(table))")
                    try TableVersions.forget(table, in: db)
                }
            }
        }
        withState { $0.forgetPrepared(table) }
        emit(.tableDeleted, ["table": .string(table)])
    }

    /// Drops every table whose whole name matches `pattern` (a regular expression), except the
    /// store's own bookkeeping tables; reports progress from 0 to 1 after each table, and
    /// vacuums afterwards when asked. Returns the names dropped.
    @discardableResult
    public func deleteTables(matching pattern: String, vacuum: Bool = false,
                             progress: ((Double) -> Void)? = nil) throws -> [String] {
        let regex: NSRegularExpression
        do {
            regex = try NSRegularExpression(pattern: "^(?:" + pattern + ")$")
        } catch {
            throw DAOError.badPattern(pattern)
        }
        let protected: Set<String> = Store.internalTables.union([TableVersions.tableName, TableVersions.metadataTableName])
        let names: [String] = try mapDatabaseErrors {
            try queue.read { db in
                try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
                    .compactMap { $0[0].stringValue }
            }
        }.filter { name in
            !protected.contains(name) && regex.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
        }
        for (index, name) in names.enumerated() {
            try drop(name)
            progress?(Double(index + 1) / Double(names.count))
        }
        if vacuum { try vacuumDatabase() }
        return names
    }

    /// Rebuilds the database file to reclaim free space (`VACUUM`; not inside a transaction).
    public func vacuumDatabase() throws {
        try mapDatabaseErrors { try queue.write { db in try db.execute("VACUUM") } }
    }

    // MARK: Parallel reads

    /// Opens one more read-only connection to the database now, for the `parallel="true"`
    /// selects that may follow (`prepareParallelConnection:`). Each call adds a stand-by
    /// connection, up to the pool's `maximumReaderCount`; an idle one closes by itself after
    /// `autoclose` seconds, so the caller never closes them.
    /// - parameter autoclose: how long an unused connection stays open, in seconds; 0 keeps
    ///   the pool's own timeout (the reference's "system value", 30 s by default).
    /// - returns: how many read connections are open afterwards; 0 when the object has no
    ///   pool or its database is not a file (an in-memory database has no readers).
    /// - throws: `DAOError.database` when the connection does not open.
    @discardableResult
    public func prepareParallelConnection(autoclose: TimeInterval = 0) throws -> Int {
        guard let pool, !databasePath.isEmpty, databasePath != ":memory:" else { return 0 }
        return try mapDatabaseErrors { try pool.prepareReader(idleTimeout: autoclose) }
    }

    /// How many read-only connections the object's pool holds open now (busy or idle); 0
    /// without a pool.
    public var parallelConnectionCount: Int { pool?.readerCount ?? 0 }

    // MARK: Transactions

    /// Begins a transaction that spans the following calls until `commit` or `rollback`.
    /// Calls inside it run in savepoints. Other users of the same connection join it too.
    public func beginTransaction() throws {
        try mapDatabaseErrors { try queue.write { db in try db.beginTransaction(.immediate) } }
        withState { $0.explicitTransaction = true }
    }

    /// Commits the transaction begun by `beginTransaction`.
    public func commit() throws {
        try mapDatabaseErrors { try queue.write { db in try db.commit() } }
        withState { $0.explicitTransaction = false }
    }

    /// Rolls back the transaction begun by `beginTransaction`. Tables prepared inside it are
    /// prepared again on next use.
    public func rollback() throws {
        try mapDatabaseErrors { try queue.write { db in try db.rollback() } }
        withState {
            $0.explicitTransaction = false
            $0.forgetPrepared(nil)
        }
    }

    /// Runs `body` in one transaction (`daoTransaction:`): committed when it returns, rolled
    /// back when it throws. Calls made by `body` on this object join the transaction.
    public func transaction<T>(_ body: (DAOObject) throws -> T) throws -> T {
        do {
            return try mapDatabaseErrors {
                try queue.write { db in try db.inTransaction(.immediate) { try body(self) } }
            }
        } catch {
            withState { $0.forgetPrepared(nil) }
            throw error
        }
    }

    // MARK: Direct SQL

    /// Runs SQL that is not in the config (positional `?` arguments).
    public func executeUpdate(sql: String, arguments: [DAOValue] = []) throws {
        let (rowID, changes): (Int64, Int) = try mapDatabaseErrors {
            try queue.write { db in
                let before = db.totalChanges
                try db.execute(sql, StatementArguments(arguments.map(\.databaseValue)))
                return (db.lastInsertRowID, db.totalChanges - before)
            }
        }
        recordOutcome(rowID: rowID, changes: changes)
    }

    /// Runs a query that is not in the config; each row as a column → value dictionary.
    public func executeQuery(sql: String, arguments: [DAOValue] = []) throws -> [[String: DAOValue]] {
        try mapDatabaseErrors {
            try queue.read { db in
                try db.query(sql, StatementArguments(arguments.map(\.databaseValue))).map { row in
                    Dictionary(zip(row.columnNames, row.values.map(DAOValue.init)), uniquingKeysWith: { _, last in last })
                }
            }
        }
    }
}

extension Store {
    /// A DAO object for the config at `configPath` over this store (`daoWithPath:`).
    /// - throws: `DAOConfigError` when the config does not load.
    public func makeDAO(configPath: String, models: DAOModelRegistry = DAOModelRegistry()) throws -> DAOObject {
        DAOObject(config: try DAOConfig(contentsOfFile: configPath), store: self, models: models)
    }
}
