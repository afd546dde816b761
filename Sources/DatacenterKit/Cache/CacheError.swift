import Foundation

/// Why a cache, file or object service operation failed.
public enum CacheError: Error, Sendable, Equatable {
    /// An encrypted entry that the keys given do not open.
    case cannotDecrypt(cache: String, key: String, reason: CryptError)
    /// An entry whose bytes do not decode as the type asked for.
    case decoding(cache: String, key: String, reason: String)
    /// A value that could not be encoded.
    case encoding(cache: String, key: String, reason: String)
    /// No cache or service of that name.
    case unknownCache(String)
    /// A cache name that cannot be used.
    case invalidName(String)
    /// A background write failed; reported by the next `flush()`.
    case writeFailed(cache: String, reason: String)
    /// A disk cache's queued writes cannot be committed now, so `flush()` (or `count()`)
    /// cannot keep its promise: the calling thread holds the store's connection, or a
    /// transaction begun outside the cache is open on it. The writes stay queued and are
    /// committed once the connection is free.
    case connectionBusy(cache: String, reason: String)
}

extension CacheError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case let .cannotDecrypt(c, k, reason): return "cannot decrypt \(k) in cache \(c): \(reason)"
        case let .decoding(c, k, why): return "cannot decode \(k) in cache \(c): \(why)"
        case let .encoding(c, k, why): return "cannot encode \(k) for cache \(c): \(why)"
        case .unknownCache(let name): return "no cache named \(name)"
        case .invalidName(let why): return "invalid cache name: \(why)"
        case let .writeFailed(c, why): return "a write to cache \(c) failed: \(why)"
        case let .connectionBusy(c, why): return "cannot commit the writes of cache \(c) now: \(why)"
        }
    }
    public var errorDescription: String? { description }
}
