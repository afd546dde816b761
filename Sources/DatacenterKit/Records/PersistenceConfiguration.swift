import Foundation

/// What an app answers for one of its databases, as CTPersistance asks a configuration
/// target (`Target_aaa`, reached through its mediator): where the file is, how its schema
/// is migrated, and the keys that encrypt it. Every answer has a default, so a target
/// implements only what it needs.
///
/// For example:
/// ```swift
/// struct Messages: PersistenceConfiguration {
///     func secretKeys(forDatabase name: String) -> [String] { ["oldkey", "newkey"] } // oldest first
///     func migrator(forDatabase name: String) -> DatabaseMigrator? { Messages.migrator }
/// }
/// let registry = PersistenceConfigurations()
/// registry.register(Messages(), forTarget: "messages")
/// let queue = try registry.open("messages_v2.sqlite")   // Target "messages"
/// ```
public protocol PersistenceConfiguration: Sendable {
    /// `Action_filePath`: the full path of the database file `databaseName`; nil for the
    /// registry's default (`<default folder>/<databaseName>`).
    func filePath(forDatabase databaseName: String) -> String?
    /// `Action_fetchMigrator`: the schema's migration steps, run each time the database is
    /// opened through the registry; nil for none.
    func migrator(forDatabase databaseName: String) -> DatabaseMigrator?
    /// `Action_secretKey`: the SQLCipher keys (passphrases, or `x'…'` raw keys) of the file,
    /// **oldest first, newest last**, as CTPersistance takes them (a key change appends the
    /// new key); empty for a plain file.
    func secretKeys(forDatabase databaseName: String) -> [String]
}

extension PersistenceConfiguration {
    /// The registry's default path.
    public func filePath(forDatabase databaseName: String) -> String? { nil }
    /// No migration.
    public func migrator(forDatabase databaseName: String) -> DatabaseMigrator? { nil }
    /// A plain file.
    public func secretKeys(forDatabase databaseName: String) -> [String] { [] }
}

/// CTPersistance's configuration targets for Swift apps: one configuration per target
/// name, looked up for a database by CTPersistance's naming rule (`targetName(forDatabase:)`),
/// and a default folder for databases no target places.
///
/// Thread-safe: register early, open from anywhere.
public final class PersistenceConfigurations: Sendable {
    /// Where a database no target places lives: `<defaultFolder>/<databaseName>` (iOS's
    /// `Library` folder in CTPersistance; here `Library` in the data folder, `DataFolder`).
    public let defaultFolder: String
    private let targets = LockedState<[String: any PersistenceConfiguration]>([:])

    /// A registry whose default folder is `defaultFolder` (created when a database is opened
    /// there).
    public init(defaultFolder: String = DataFolder.resolve("Library").path) {
        self.defaultFolder = defaultFolder
    }

    /// Registers `configuration` as the target named `name` (`Target_name`), replacing any.
    public func register(_ configuration: any PersistenceConfiguration, forTarget name: String) {
        targets.withLock { $0[name] = configuration }
    }

    /// The target name of a database, CTPersistance's rule: the file name up to its first
    /// `_` or `.` (`aaa.sqlite`, `aaa_bbb.sqlite`, `aaa_bbb`, `aaa.abc.sqlite` and `aaa` all
    /// name `aaa`). A folder part of the name is not part of it.
    public static func targetName(forDatabase databaseName: String) -> String {
        let file = databaseName.split(separator: "/").last.map(String.init) ?? databaseName
        return String(file.prefix { $0 != "_" && $0 != "." })
    }

    /// The configuration registered for `databaseName`'s target, if any.
    public func configuration(forDatabase databaseName: String) -> (any PersistenceConfiguration)? {
        let name = Self.targetName(forDatabase: databaseName)
        return targets.withLock { $0[name] }
    }

    /// The file of `databaseName`: its target's path, else `<defaultFolder>/<databaseName>`.
    public func filePath(forDatabase databaseName: String) -> String {
        configuration(forDatabase: databaseName)?.filePath(forDatabase: databaseName)
            ?? (defaultFolder as NSString).appendingPathComponent(databaseName)
    }

    /// The keys of `databaseName`, newest first as every key list here is (its target gives
    /// them oldest first); empty for a plain file.
    /// - throws: `CryptError` for a key text that cannot be read.
    public func databaseKeys(forDatabase databaseName: String) throws -> DatabaseKeyList {
        let keys = configuration(forDatabase: databaseName)?.secretKeys(forDatabase: databaseName) ?? []
        return keys.isEmpty ? .empty : try DatabaseKeyList(sqlcipherKeys: Array(keys.reversed()))
    }

    /// Opens `databaseName` as its target configures it: at its path (the folder created
    /// when missing, `0700`), with its keys (a file written under an older key still opens;
    /// a new one gets the newest), its migrator run; a database no target configures opens
    /// plain in the default folder.
    /// - throws: `DatabaseError` (a wrong key names the file), `MigrationError`,
    ///   `FileAccessError` when the folder cannot be made.
    public func open(_ databaseName: String, busyTimeout: TimeInterval = 5) throws -> DatabaseQueue {
        let path = filePath(forDatabase: databaseName)
        try PrivateFile.createFolder(atPath: (path as NSString).deletingLastPathComponent)
        let queue = try DatabaseQueue(path: path, keys: try databaseKeys(forDatabase: databaseName), busyTimeout: busyTimeout)
        if let migrator = configuration(forDatabase: databaseName)?.migrator(forDatabase: databaseName) {
            try queue.write { db in _ = try migrator.migrate(db) }
        }
        return queue
    }
}
