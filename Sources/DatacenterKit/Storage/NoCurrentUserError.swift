/// An operation on a user-dependent DAO or service, asked while no user is signed in
/// (`userDependent:` — "when currentUserId is null, the cache doesn't work"): it ran
/// nowhere and wrote nothing.
public struct NoCurrentUserError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was used: e.g. `file service photos`.
    public let subject: String
    /// What was asked of it: e.g. `write`.
    public let operation: String

    /// The error for `operation` on `subject`.
    public init(subject: String, operation: String) {
        self.subject = subject
        self.operation = operation
    }

    public var description: String {
        "\(subject): cannot \(operation) with no current user (it is user-dependent); nothing was written"
    }
}
