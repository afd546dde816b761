/// Why `DatabaseMigrator` could not bring a database up to date.
public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file's `user_version` is above every registered step: made by newer code. Nothing
    /// was changed (there is no downgrade).
    case databaseIsNewer(version: Int, newest: Int, path: String)
    /// A step was registered with a version not above the one before it.
    case versionOutOfOrder(version: Int, after: Int)
    /// The step to `version` threw; it was rolled back, and the file stays at the version
    /// before it. `underlying` describes the error.
    case stepFailed(version: Int, underlying: String)

    /// A sentence naming the versions.
    public var description: String {
        switch self {
        case let .databaseIsNewer(version, newest, path):
            return "\(path) is at schema version \(version), newer than this program's newest (\(newest)); it is left unchanged"
        case let .versionOutOfOrder(version, after):
            return "migration version \(version) must be above the last registered one (\(after))"
        case let .stepFailed(version, underlying):
            return "the migration to version \(version) failed and was rolled back: \(underlying)"
        }
    }
}
