import Foundation

/// `Codable` objects kept by key in a store, with a memory cache in front
/// (`APObjectArrayService`). Built on `FileArrayService`: each object is archived with
/// `ArchiveCodec` and stored as one file; reads are served from the memory cache when they
/// can be. The memory cache is keyed by store file as well as key, so a service that follows
/// the current user (`userDependent:`) never serves one user's objects to another.
public final class ObjectArrayService<Object: Codable & Sendable>: Sendable {
    /// The file service underneath (with no memory cache of its own: this one's holds the
    /// decoded objects).
    public let files: FileArrayService
    private let cache: LRUMemoryCache<CachedObject, Object>

    /// A memory-cache key: an object of one store.
    private struct CachedObject: Hashable, Sendable {
        /// The store's `openingID`: a store reopened after a reset is another store.
        let store: UInt64
        let key: String
    }

    /// Opens (creating) the service `name` in `store`.
    /// - parameter memoryCapacity: how many decoded objects the memory cache keeps.
    public init(name: String, store: Store, encrypted: Bool = false, capacity: Int = 0, memoryCapacity: Int = 128) throws {
        files = try FileArrayService(name: name, store: store, encrypted: encrypted, capacity: capacity, memoryCapacity: 0)
        cache = LRUMemoryCache(capacity: memoryCapacity)
    }

    /// Opens the service `name` on a followed store (`initWithName:capacity:userDependent:
    /// crypted:`): each operation works on the store current when it is asked; with no one
    /// signed in, operations fail with `NoCurrentUserError`.
    public init(name: String, followedStore: FollowedStore, encrypted: Bool = false, capacity: Int = 0,
                memoryCapacity: Int = 128) throws {
        files = try FileArrayService(name: name, followedStore: followedStore, encrypted: encrypted, capacity: capacity,
                                     memoryCapacity: 0)
        cache = LRUMemoryCache(capacity: memoryCapacity)
    }

    /// Opens the service `name` of a data center: in the current user's store with
    /// `userDependent` (following user switches), else in the common store.
    public convenience init(name: String, dataCenter: DataCenter, userDependent: Bool, encrypted: Bool = false,
                            capacity: Int = 0, memoryCapacity: Int = 128) throws {
        try self.init(name: name, followedStore: dataCenter.followedStore(userDependent: userDependent), encrypted: encrypted,
                      capacity: capacity, memoryCapacity: memoryCapacity)
    }

    /// Opens the service in a custom storage's common store (or current user's store,
    /// following user switches from then on); nil when user-dependent and no user is signed
    /// in at opening.
    public convenience init?(name: String, storage: CustomStorage, userDependent: Bool = false, encrypted: Bool = false,
                             capacity: Int = 0, memoryCapacity: Int = 128) throws {
        let followed = storage.followedStore(userDependent: userDependent)
        guard followed.currentOwner != nil else { return nil }
        try self.init(name: name, followedStore: followed, encrypted: encrypted, capacity: capacity, memoryCapacity: memoryCapacity)
        _ = try files.resolveStore("open")
    }

    /// Stores `object` under `key` in the background (nil removes it); the memory cache
    /// sees it at once.
    public func set(_ object: Object?, forKey key: String, completion: (@Sendable (Error?) -> Void)? = nil) {
        let store: Store
        do { store = try files.resolveStore("write") } catch { return files.enqueue { completion?(error) } }
        let cached = CachedObject(store: store.openingID, key: key)
        guard let object else {
            cache.remove(cached)
            files.remove(key, in: store, completion: completion)
            return
        }
        let data: Data
        do { data = try ArchiveCodec.encode(object) } catch {
            let failure = CacheError.encoding(cache: files.name, key: key, reason: String(describing: error))
            files.enqueue { completion?(failure) }   // in order with the completions asked before
            return
        }
        if files.capacity == 0 { cache.set(object, for: cached) } else { cache.remove(cached) }
        files.write(data, to: key, in: store, completion: completion)
    }

    /// The object under `key`: from the memory cache, else from the store. With a capacity,
    /// objects are not kept in memory (the store may drop them at any write).
    public func object(forKey key: String) throws -> Object? {
        // One store for the cache and the read, whatever user switch happens meanwhile.
        let store = try files.resolveStore("read")
        let cachedKey = CachedObject(store: store.openingID, key: key)
        if let cached = cache.get(cachedKey) { return cached }
        guard let data = try files.read(key, in: store) else { return nil }
        let object = try decode(data, key: key)
        if files.capacity == 0 { cache.set(object, for: cachedKey) }
        return object
    }

    /// Reads the object under `key` in the background; the completion runs after those of
    /// the operations asked before, even when the object is in memory.
    public func object(forKey key: String, completion: @escaping @Sendable (Result<Object?, Error>) -> Void) {
        let store: Store
        do { store = try files.resolveStore("read") } catch { return files.enqueue { completion(.failure(error)) } }
        if let cached = cache.get(CachedObject(store: store.openingID, key: key)) { return files.enqueue { completion(.success(cached)) } }
        files.read(key, in: store) { [self] result in
            completion(result.flatMap { data in Result { try data.map { try decode($0, key: key) } } })
        }
    }

    /// Every object whose key matches the SQL LIKE `pattern`.
    public func objects(like pattern: String) throws -> [String: Object] {
        try files.read(like: pattern).reduce(into: [:]) { result, pair in result[pair.key] = try decode(pair.value, key: pair.key) }
    }

    /// Removes the object under `key`.
    public func remove(forKey key: String, completion: (@Sendable (Error?) -> Void)? = nil) {
        set(nil, forKey: key, completion: completion)
    }

    /// Removes every object whose key matches the SQL LIKE `pattern`; returns how many.
    @discardableResult
    public func remove(like pattern: String) throws -> Int {
        cache.removeAll()
        return try files.remove(like: pattern)
    }

    /// Removes every object.
    public func removeAll() throws {
        cache.removeAll()
        try files.removeAll()
    }

    /// True when an object is stored under `key`.
    public func exists(_ key: String) throws -> Bool { try files.exists(key) }
    /// Every key, sorted.
    public func allKeys() throws -> [String] { try files.allNames() }
    /// How many objects there are.
    public func count() throws -> Int { try files.count() }
    /// Waits until every background write asked so far has run.
    public func waitForPendingOperations() { files.waitForPendingOperations() }

    private func decode(_ data: Data, key: String) throws -> Object {
        do { return try ArchiveCodec.decode(Object.self, from: data) } catch {
            throw CacheError.decoding(cache: files.name, key: key, reason: String(describing: error))
        }
    }
}
