import Foundation

/// What a root remembers between runs, in `datacenter.json`.
struct RootState: Codable, Equatable {
    /// The format of the root's files (see `docs/FORMAT.md`).
    var formatVersion: Int = Store.formatVersion
    /// The user signed in last, or nil.
    var currentUserId: String?
    /// The app version the version storage belongs to.
    var appVersion: String?

    static func load(from path: String) throws -> RootState {
        guard let data = FileManager.default.contents(atPath: path) else { return RootState() }
        do { return try JSONDecoder().decode(RootState.self, from: data) } catch {
            throw StorageError.badRootState(path: path, reason: "not a valid datacenter.json (\(error.localizedDescription))")
        }
    }

    func save(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
