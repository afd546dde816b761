/// One SQLite file of a root, a snapshot or a file given alone, with the name every copy of
/// it shares: the path below the root (`common.sqlite`, `users/<folder>/user.sqlite`), so
/// the stores of a root and of its snapshot pair by name.
public struct StoreFile: Sendable, Equatable {
    /// The store's name: its path below the root (a file given alone: its file name).
    public let name: String
    /// Where the file is.
    public let path: String

    /// The store `name` at `path`.
    public init(name: String, path: String) {
        self.name = name
        self.path = path
    }
}
