/// Brings a plain database's schema up to date, step by step, keyed by `PRAGMA user_version`:
/// Android's `SQLiteOpenHelper` (`onCreate`, `onUpgrade(db, old, new)`) as ordered steps.
///
/// Each registered step `registerMigration(version:)` upgrades the schema to its version.
/// `migrate` runs, in order, every step newer than the file's `user_version`, each in its
/// own transaction that also sets `user_version` to that step's version: a failing step is
/// rolled back alone and the file stays at the last good version.
///
/// A fresh database (`user_version` 0) runs `onCreate` when one is given, in one transaction,
/// then stands at the newest registered version (the steps are skipped: `onCreate` makes the
/// newest schema directly); without `onCreate` it runs every step from the first.
/// A file newer than the newest step is refused (`MigrationError.databaseIsNewer`), changing
/// nothing: there is no downgrade.
///
/// For example:
/// ```swift
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration(version: 1) { db in try db.execute("CREATE TABLE user(id INTEGER PRIMARY KEY, name TEXT)") }
/// migrator.registerMigration(version: 2) { db in try db.execute("ALTER TABLE user ADD COLUMN age INTEGER") }
/// try store.queue.write { db in try migrator.migrate(db) }
/// ```
public struct DatabaseMigrator {
    /// One step: makes the schema of `version` from the one before.
    private var steps: [(version: Int, body: (Database) throws -> Void)] = []
    /// Makes the newest schema on a fresh database, when given.
    public var onCreate: ((Database) throws -> Void)?

    /// A migrator with no steps; `onCreate`, when given, builds a fresh database.
    public init(onCreate: ((Database) throws -> Void)? = nil) { self.onCreate = onCreate }

    /// The newest registered version (0 with no step).
    public var newestVersion: Int { steps.last?.version ?? 0 }

    /// Registers the step that upgrades the schema to `version`. Versions must be registered
    /// in increasing order, from 1.
    /// - throws: `MigrationError.versionOutOfOrder` when `version` is not above the last one.
    public mutating func registerMigration(version: Int, _ body: @escaping (Database) throws -> Void) throws {
        guard version > newestVersion else {
            throw MigrationError.versionOutOfOrder(version: version, after: newestVersion)
        }
        steps.append((version, body))
    }

    /// Runs the steps `db` has not run yet (see the type's description).
    /// - returns: the versions that ran (`[newestVersion]` when `onCreate` built a fresh
    ///   database; empty when it was up to date).
    /// - throws: `MigrationError.databaseIsNewer` (nothing changed); `MigrationError.stepFailed`
    ///   naming the version whose step threw (that step rolled back, the earlier ones kept).
    @discardableResult
    public func migrate(_ db: Database) throws -> [Int] {
        let current = try db.userVersion()
        if current > newestVersion {
            throw MigrationError.databaseIsNewer(version: current, newest: newestVersion, path: db.path)
        }
        if current == 0, let onCreate, newestVersion > 0 {
            try run(version: newestVersion, on: db, onCreate)
            return [newestVersion]
        }
        var ran: [Int] = []
        for step in steps where step.version > current {
            try run(version: step.version, on: db, step.body)
            ran.append(step.version)
        }
        return ran
    }

    /// Runs `body` and sets `user_version` to `version`, in one transaction.
    private func run(version: Int, on db: Database, _ body: (Database) throws -> Void) throws {
        do {
            try db.inTransaction(.immediate) {
                try body(db)
                try db.setUserVersion(version)
            }
        } catch {
            throw MigrationError.stepFailed(version: version, underlying: "\(error)")
        }
    }
}
