import Foundation

extension LRUMemoryCache {
    /// Adds every pair as if by `set`, in the sequence's order (so the last one ends up most
    /// recently used); none of them expires.
    public func addMany<S: Sequence>(_ entries: S) where S.Element == (Key, Value) {
        for (key, value) in entries { set(value, for: key) }
    }

    /// Removes the entries whose keys are in `keys`; returns how many were present.
    @discardableResult
    public func removeAll<S: Sequence>(keys: S) -> Int where S.Element == Key {
        keys.reduce(0) { count, key in count + (remove(key) == nil ? 0 : 1) }
    }
}

extension LRUMemoryCache where Key == String {
    /// Removes every entry whose key has `prefix`; returns how many.
    @discardableResult
    public func removeAll(withPrefix prefix: String) -> Int { removeAll { $0.hasPrefix(prefix) } }

    /// Removes every entry whose key has `suffix`; returns how many.
    @discardableResult
    public func removeAll(withSuffix suffix: String) -> Int { removeAll { $0.hasSuffix(suffix) } }

    /// Removes every entry whose whole key matches the regular expression `pattern`
    /// (ICU syntax, as `NSRegularExpression` reads it); returns how many.
    /// - throws: when `pattern` is not a valid regular expression.
    @discardableResult
    public func removeAll(matching pattern: String) throws -> Int {
        let regex = try NSRegularExpression(pattern: "^(?:" + pattern + ")$")
        return removeAll { key in
            regex.firstMatch(in: key, range: NSRange(key.startIndex..., in: key)) != nil
        }
    }
}

/// The process-wide memory-pressure signal (the original's `UIApplicationDidReceiveMemoryWarning`).
///
/// Linux has no such notification: an app (or a test) calls `MemoryPressure.post()` when it
/// learns memory is short; every cache watching it empties itself.
public enum MemoryPressure {
    /// The notification posted on `NotificationCenter.default`.
    public static let notification = Notification.Name("DatacenterMemoryPressure")

    /// Tells every watching cache that memory is short.
    public static func post() {
        NotificationCenter.default.post(name: notification, object: nil)
    }
}

/// Empties a cache whenever `MemoryPressure.post()` is called, while it is alive
/// (`handleMemoryWarning = YES`). Keep the returned watcher as long as the behaviour is wanted.
///
/// `@unchecked Sendable` only because `NSObjectProtocol` is not `Sendable`: `token` is set
/// once in `init` and read once in `deinit`, never changed in between.
public final class MemoryPressureWatcher: @unchecked Sendable {
    private let token: NSObjectProtocol?

    /// Watches on behalf of `cache` (held weakly).
    public init<Key: Hashable & Sendable, Value>(clearing cache: LRUMemoryCache<Key, Value>) {
        token = NotificationCenter.default.addObserver(forName: MemoryPressure.notification, object: nil, queue: nil) { [weak cache] _ in
            cache?.removeAll()
        }
    }

    deinit {
        if let token { NotificationCenter.default.removeObserver(token) }
    }
}
