/// What a DAO object tells its event handler about its tables (`APDAOProxyEventType`).
public enum DAOEvent: String, Sendable, Equatable {
    /// An upgrade is about to run (arguments: table, fromVersion, toVersion).
    case shouldUpgrade
    /// An upgrade block failed (arguments: table, fromVersion, toVersion, error); the table
    /// stays at the last version reached.
    case upgradeFailed
    /// The initializer created the table (arguments: table, version).
    case tableCreated
    /// The table was dropped: by `deleteTable`, `deleteTables(matching:)` or a reset on
    /// upgrade (arguments: table).
    case tableDeleted
}

/// Receives a DAO object's events. Called on the thread that triggered them, while the
/// object's connection is held: it may call the DAO object again on that thread.
public typealias DAOEventHandler = @Sendable (_ dao: DAOObject, _ event: DAOEvent, _ arguments: [String: DAOValue]) -> Void
