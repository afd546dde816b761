import Foundation

extension DataCenter {
    /// The files that may hold disk caches for `user` (nil: the common ones): the store, the
    /// `LIB_CACHES.` file and the `TMP.` file, those that exist.
    public func cacheStorePaths(forUser user: String?) throws -> [String] {
        try [LRUDiskCache.Location.store, .libraryCaches, .temporary].map {
            try LRUDiskCache.storePath(location: $0, root: rootPath, user: user, space: space)
        }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// Opens the store file at `path` with this data center's crypt and database keys (shared
    /// with other users of the same file).
    public func store(atPath path: String) throws -> Store { try space.store(at: path) }
}
