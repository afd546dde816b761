import DatacenterKit
import Foundation

/// A DAO that works on whichever store is current (`daoWithPath:userDependent:`): made
/// user-dependent, every call runs on the store of the user signed in *at that call*, so
/// after `setCurrentUserId("bob")` the next call reads and writes bob's file, and "the
/// business layer does not need to care about the user switch"; with no one signed in,
/// every call throws `DAOError.noCurrentUser` and writes nothing anywhere. Not
/// user-dependent, it always works on the common store.
///
/// Underneath there is one plain `DAOObject` per owner (common, or a user), made on first
/// use and kept: a call costs a read of the current user id and two dictionary lookups (the
/// open store, then its object) before the `DAOObject`'s own fast path. The settings made here (`tableName`,
/// `globalArguments`, `eventHandler`, `selectsPrepareTables`) apply to every owner's object,
/// those made later included. What a call reports (`lastInsertRowID`, `lastChanges`) is of
/// the last call made through this handle.
///
/// Thread-safe. A call racing a user switch runs wholly on one of the two users' stores.
///
/// For example:
/// ```swift
/// let dao = try center.makeDAO(configPath: "demo.xml", userDependent: true)
/// try center.setCurrentUserId("alice")
/// try dao.call("insertItem", ["alice's"])      // alice's store
/// try center.setCurrentUserId("bob")
/// try dao.call("insertItem", ["bob's"])        // bob's store
/// ```
public final class UserFollowingDAO: Sendable {
    /// The config every owner's object runs.
    public let config: DAOConfig
    /// Model types results can decode into.
    public let models: DAOModelRegistry
    /// Where the calls run: the current user's store, or the common one.
    public let followedStore: FollowedStore
    /// True when calls follow the current user.
    public var isUserDependent: Bool { followedStore.isUserDependent }

    private let state = LockedState(State())
    private let lastOutcome = LockedState((rowID: Int64(0), changes: 0))

    /// The objects made so far and the settings they all get.
    private struct State: Sendable {
        /// Each owner's object, with the `openingID` of the store it was made on.
        var objects: [StoreOwner: (storeOpening: UInt64, object: DAOObject)] = [:]
        var tableName: String?
        var globals: [String: DAOValue]?
        var eventHandler: DAOEventHandler?
        var selectsPrepareTables: Bool?

        /// Gives `object` the settings made on the handle.
        func apply(to object: DAOObject) {
            if let tableName { object.tableName = tableName }
            if let globals { object.globalArguments = globals }
            if let eventHandler { object.eventHandler = eventHandler }
            if let selectsPrepareTables { object.selectsPrepareTables = selectsPrepareTables }
        }
    }

    /// A DAO running `config` on `followedStore`'s current store.
    public init(config: DAOConfig, followedStore: FollowedStore, models: DAOModelRegistry = DAOModelRegistry()) {
        self.config = config
        self.followedStore = followedStore
        self.models = models
    }

    // MARK: The current object

    /// The `DAOObject` of the store current now (made on first use for its owner, then kept).
    /// Use it to run several operations on one store whatever switch happens meanwhile.
    /// - parameter operation: what is asked, named in the error.
    /// - throws: `DAOError.noCurrentUser` when user-dependent and no one is signed in;
    ///   `DAOError.database` when the store does not open.
    public func currentObject(for operation: String = "use") throws -> DAOObject {
        guard let owner = followedStore.currentOwner else {
            throw DAOError.noCurrentUser(module: config.module.name, operation: operation)
        }
        // The store is asked for every time (a lookup in the open stores): after a reset the
        // owner's store is a new file, and an object kept for the deleted one must not be used.
        let store = try DAOError.mappingDatabaseErrors { try followedStore.store(of: owner) }
        return state.withLock { state in
            if let kept = state.objects[owner], kept.storeOpening == store.openingID { return kept.object }
            let object = DAOObject(config: config, store: store, models: models)
            state.apply(to: object)
            state.objects[owner] = (store.openingID, object)
            return object
        }
    }

    /// Runs `body` on the current object, then records what it reported.
    @usableFromInline
    func onCurrent<T>(_ operation: String, _ body: (DAOObject) throws -> T) throws -> T {
        let object = try currentObject(for: operation)
        defer { lastOutcome.withLock { $0 = (object.lastInsertRowID, object.lastChanges) } }
        return try body(object)
    }

    /// Changes a setting on the handle and on every object made so far.
    private func set(_ change: (inout State) -> Void) {
        state.withLock { state in
            change(&state)
            for kept in state.objects.values { state.apply(to: kept.object) }
        }
    }

    // MARK: Settings (APDAOProtocol)

    /// The table `${T}` names, for every owner: the module's `tableName` until set.
    public var tableName: String {
        get { state.withLock { $0.tableName } ?? config.module.tableName }
        set { set { $0.tableName = newValue } }
    }

    /// Arguments every method can read after its own, for every owner.
    public var globalArguments: [String: DAOValue] {
        get { state.withLock { $0.globals } ?? [:] }
        set { set { $0.globals = newValue } }
    }

    /// Receives the table events of every owner's object (the object is the first argument).
    public var eventHandler: DAOEventHandler? {
        get { state.withLock { $0.eventHandler } }
        set { set { $0.eventHandler = newValue } }
    }

    /// `DAOObject.selectsPrepareTables`, for every owner.
    public var selectsPrepareTables: Bool {
        get { state.withLock { $0.selectsPrepareTables } ?? true }
        set { set { $0.selectsPrepareTables = newValue } }
    }

    /// `sqlite3_last_insert_rowid()` after the last call made through this handle.
    public var lastInsertRowID: Int64 { lastOutcome.withLock { $0.rowID } }

    /// Rows changed by the last call made through this handle.
    public var lastChanges: Int { lastOutcome.withLock { $0.changes } }

    /// Every method of the config (`allMethodsList`).
    public var allMethods: [DAOMethod] { config.methods }

    // MARK: Calls

    /// Calls `id` on the current store (`DAOObject.call`).
    /// - throws: `DAOError.noCurrentUser` with no one signed in (nothing runs), else what
    ///   the call throws.
    @discardableResult
    public func call(_ id: String, _ arguments: [DAOValue] = []) throws -> DAOCallResult {
        try onCurrent(id) { try $0.call(id, arguments) }
    }

    /// Calls a select on the current store and decodes its result (`DAOObject.fetch`).
    @inlinable
    public func fetch<T: Decodable>(_ id: String, _ arguments: [DAOValue] = [], as type: T.Type) throws -> [T] {
        try onCurrent(id) { try $0.fetch(id, arguments, as: type) }
    }

    /// Calls a select on the current store and reads its rows with `T.init(row:)`
    /// (`DAOObject.fetch`).
    @inlinable
    public func fetch<T: DAORowDecodable>(_ id: String, _ arguments: [DAOValue] = [], as type: T.Type) throws -> [T] {
        try onCurrent(id) { try $0.fetch(id, arguments, as: type) }
    }

    /// A type that is both reads with `init(row:)` (`DAOObject.fetch`).
    @inlinable
    public func fetch<T: Decodable & DAORowDecodable>(_ id: String, _ arguments: [DAOValue] = [], as type: T.Type) throws -> [T] {
        try onCurrent(id) { try $0.fetch(id, arguments, as: type) }
    }

    /// Runs `body` in one transaction on the current store (`daoTransaction:`); every call
    /// `body` makes on the object it is given runs on that store, whatever switch happens.
    public func transaction<T>(_ body: (DAOObject) throws -> T) throws -> T {
        try onCurrent("transaction") { try $0.transaction(body) }
    }

    // MARK: Tables and connections

    /// Prepares the table on the current store (`DAOObject.prepareTable`).
    public func prepareTable(_ name: String? = nil) throws { try onCurrent("prepareTable") { try $0.prepareTable(name) } }

    /// True when the table exists in the current store.
    public func tableExists(_ name: String? = nil) throws -> Bool { try onCurrent("tableExists") { try $0.tableExists(name) } }

    /// Drops the current table in the current store (`deleteTable`).
    public func deleteTable() throws { try onCurrent("deleteTable") { try $0.deleteTable() } }

    /// Drops the matching tables of the current store (`deleteTablesWithRegex:`).
    @discardableResult
    public func deleteTables(matching pattern: String, vacuum: Bool = false, progress: ((Double) -> Void)? = nil) throws -> [String] {
        try onCurrent("deleteTables") { try $0.deleteTables(matching: pattern, vacuum: vacuum, progress: progress) }
    }

    /// Vacuums the current store (`vacuumDatabase`).
    public func vacuumDatabase() throws { try onCurrent("vacuumDatabase") { try $0.vacuumDatabase() } }

    /// Opens a stand-by read connection to the current store (`prepareParallelConnection:`).
    @discardableResult
    public func prepareParallelConnection(autoclose: TimeInterval = 0) throws -> Int {
        try onCurrent("prepareParallelConnection") { try $0.prepareParallelConnection(autoclose: autoclose) }
    }

    /// Runs SQL that is not in the config on the current store.
    public func executeUpdate(sql: String, arguments: [DAOValue] = []) throws {
        try onCurrent("executeUpdate") { try $0.executeUpdate(sql: sql, arguments: arguments) }
    }

    /// Runs a query that is not in the config on the current store.
    public func executeQuery(sql: String, arguments: [DAOValue] = []) throws -> [[String: DAOValue]] {
        try onCurrent("executeQuery") { try $0.executeQuery(sql: sql, arguments: arguments) }
    }
}

extension DataCenter {
    /// A DAO for the config at `configPath` (`daoWithPath:userDependent:`): with
    /// `userDependent`, its tables live in the current user's store and every call follows
    /// the user signed in at that call (none signed in: `DAOError.noCurrentUser`); without,
    /// they live in the common store.
    /// - throws: `DAOConfigError` when the config does not load.
    public func makeDAO(configPath: String, userDependent: Bool,
                        models: DAOModelRegistry = DAOModelRegistry()) throws -> UserFollowingDAO {
        UserFollowingDAO(config: try DAOConfig(contentsOfFile: configPath),
                         followedStore: followedStore(userDependent: userDependent), models: models)
    }
}

extension DataCenter {
    /// A DAO over a database file of its own (`daoWithPath:databasePath:`), not the
    /// data center's stores: `databasePath` is absolute, or relative to the app's sandbox
    /// (`Documents/x.db`), which here is the root (`daoDatabaseFile`: folders created, the
    /// file recorded so the root's walkers list it). The file is a store of its own, with
    /// the data center's crypt and database keys; several DAOs may share one file.
    /// - throws: `DAOConfigError` when the config does not load; what opening the file throws.
    public func makeDAO(configPath: String, databasePath: String, models: DAOModelRegistry = DAOModelRegistry()) throws -> DAOObject {
        let config = try DAOConfig(contentsOfFile: configPath)
        let store = try Store(path: try daoDatabaseFile(databasePath), crypt: crypt, readOnly: isReadOnly, databaseKeys: databaseKeys)
        return DAOObject(config: config, store: store, models: models)
    }
}

extension CustomStorage {
    /// A DAO for the config at `configPath` over this storage's stores
    /// (`APCustomStorage daoWithPath:userDependent:`), following its current user as
    /// `DataCenter.makeDAO(configPath:userDependent:models:)` does.
    /// - throws: `DAOConfigError` when the config does not load.
    public func makeDAO(configPath: String, userDependent: Bool,
                        models: DAOModelRegistry = DAOModelRegistry()) throws -> UserFollowingDAO {
        UserFollowingDAO(config: try DAOConfig(contentsOfFile: configPath),
                         followedStore: followedStore(userDependent: userDependent), models: models)
    }
}
