import Foundation

/// Android's `SharedPreferences` interface over one business of a store: getters with
/// defaults, `getAll`, and an editor whose changes land together.
///
/// Each `get…` method is Android's method of the same name: the typed `KVStore` read of
/// the same type in `group`, or `defaultValue` when the key has no value. Like those reads,
/// it throws `KVError.typeMismatch` when the stored value has another type. `getFloat`
/// reads and `putFloat` writes a double.
public struct AndroidSharedPreferences: Sendable {
    /// The underlying store.
    public let store: KVStore
    /// The business (Android's preferences group).
    public let group: String

    /// `store` seen through `group`.
    public init(store: KVStore, group: String) {
        self.store = store
        self.group = group
    }

    public func getString(_ key: String, _ defaultValue: String?) throws -> String? { try store.string(forKey: key, business: group) ?? defaultValue }
    public func getInt(_ key: String, _ defaultValue: Int) throws -> Int { try store.integer(forKey: key, business: group, defaultValue: defaultValue) }
    public func getLong(_ key: String, _ defaultValue: Int64) throws -> Int64 { try store.longLong(forKey: key, business: group, defaultValue: defaultValue) }
    public func getFloat(_ key: String, _ defaultValue: Double) throws -> Double { try store.double(forKey: key, business: group, defaultValue: defaultValue) }
    public func getBoolean(_ key: String, _ defaultValue: Bool) throws -> Bool { try store.bool(forKey: key, business: group, defaultValue: defaultValue) }
    /// True when the group has a value under `key`.
    public func contains(_ key: String) throws -> Bool { try store.containsValue(forKey: key, business: group) }
    /// Every value of the group, decoded.
    public func getAll() throws -> [String: KVValue] { try store.allValues(business: group) }
    /// A new editor; nothing is written until `commit()` or `apply()`.
    public func edit() -> Editor { Editor(store: store, group: group) }

    /// Collects changes and writes them in one transaction.
    ///
    /// Each `put…` and `remove` method is Android's method of the same name: it records the
    /// change and returns the editor, so calls chain. `putString` with nil removes the key.
    public final class Editor: Sendable {
        private enum Change { case put(KVValue), remove }
        /// The changes collected, in order, and whether `clear` was asked for.
        private struct Pending {
            var changes: [(String, Change)] = []
            var clearFirst = false
        }
        private let store: KVStore
        private let group: String
        private let pending = LockedState(Pending())

        init(store: KVStore, group: String) {
            self.store = store
            self.group = group
        }

        @discardableResult public func putString(_ key: String, _ value: String?) -> Editor {
            record(key, value.map { .put(.string($0)) } ?? .remove)
        }
        @discardableResult public func putInt(_ key: String, _ value: Int) -> Editor { record(key, .put(.integer(Int64(value)))) }
        @discardableResult public func putLong(_ key: String, _ value: Int64) -> Editor { record(key, .put(.integer(value))) }
        @discardableResult public func putFloat(_ key: String, _ value: Double) -> Editor { record(key, .put(.double(value))) }
        @discardableResult public func putBoolean(_ key: String, _ value: Bool) -> Editor { record(key, .put(.bool(value))) }
        @discardableResult public func remove(_ key: String) -> Editor { record(key, .remove) }
        /// Removes every value of the group before the other changes apply.
        @discardableResult public func clear() -> Editor {
            pending.withLock { $0.clearFirst = true }
            return self
        }

        private func record(_ key: String, _ change: Change) -> Editor {
            pending.withLock { $0.changes.append((key, change)) }
            return self
        }

        /// Writes the changes now, in one transaction, forced to disk; false when it failed
        /// (nothing was written then).
        @discardableResult public func commit() -> Bool {
            (try? write(sync: true)) != nil
        }

        /// Writes the changes in one transaction, like `commit`, but reports failure by
        /// throwing (`commit` only returns false).
        public func commitOrThrow() throws { try write(sync: true) }

        /// Writes the changes on a background queue and returns at once; `completion`, when
        /// given, receives the error or nil. Later reads on the same store see the changes
        /// only once they are written.
        public func apply(completion: (@Sendable (Error?) -> Void)? = nil) {
            let editor = self
            DispatchQueue.global(qos: .utility).async {
                do { try editor.write(sync: false); completion?(nil) } catch { completion?(error) }
            }
        }

        private func write(sync: Bool) throws {
            let (changes, clear) = pending.withLock { pending in
                defer { pending = Pending() }
                return (pending.changes, pending.clearFirst)
            }
            try store.batch {
                if clear { try store.removeAll(business: group) }
                for (key, change) in changes {
                    switch change {
                    case .put(let value): try store.set(value, forKey: key, business: group)
                    case .remove: try store.removeValue(forKey: key, business: group)
                    }
                }
            }
            if sync { try store.sync() }
        }
    }
}
