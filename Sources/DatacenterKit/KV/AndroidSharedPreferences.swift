import Foundation

/// Android's `SharedPreferences` interface over one business of a store: getters with
/// defaults, `getAll`, and an editor whose changes land together.
///
/// Each `get…` method is Android's method of the same name: the typed `KVStore` read of
/// the same type in `group`, or `defaultValue` when the key has no value. Like those reads,
/// it throws `KVError.typeMismatch` when the stored value has another type. `getFloat`
/// reads and `putFloat` writes a double.
///
/// Reads see the changes of an `apply` at once, as Android's do: the instance keeps the
/// changes applied but not yet written, and each read consults them before the store. Get
/// the one instance of a store and group from `SharedPreferencesManager.getInstance`, so
/// that every part of an app reads through the same pending changes; an instance made with
/// `init` sees only its own.
public final class AndroidSharedPreferences: Sendable {
    /// The underlying store.
    public let store: KVStore
    /// The business (Android's preferences group).
    public let group: String
    /// Writes the changes of `apply` one batch after another, and those of `commit` after
    /// every batch applied before it, so changes land in the order they were made. Only
    /// the writes run on it, never a caller's code. A `commit` from a thread that holds the
    /// store (inside its `batch` or a transaction) writes the pending batches itself rather
    /// than wait for them (`StoreSerialQueue`).
    let writeQueue: StoreSerialQueue
    /// The changes applied and not yet written, oldest first. A read holds this lock while it
    /// looks at them and at the store, so no batch is written and dropped between the two looks.
    private let applied = LockedState(AppliedBatches())

    /// `store` seen through `group`: an instance of its own, with its own pending changes.
    public init(store: KVStore, group: String) {
        self.store = store
        self.group = group
        self.writeQueue = StoreSerialQueue(label: "datacenter.android-preferences.\(group)")
    }

    public func getString(_ key: String, _ defaultValue: String?) throws -> String? {
        switch try value(key) {
        case nil: return defaultValue
        case .string(let s)?: return s
        case let other?: throw mismatch(key, other, .string)
        }
    }
    public func getInt(_ key: String, _ defaultValue: Int) throws -> Int {
        try integer(key).map { Int(truncatingIfNeeded: $0) } ?? defaultValue
    }
    public func getLong(_ key: String, _ defaultValue: Int64) throws -> Int64 { try integer(key) ?? defaultValue }
    public func getFloat(_ key: String, _ defaultValue: Double) throws -> Double {
        switch try value(key) {
        case nil: return defaultValue
        case .double(let d)?: return d
        case .integer(let v)?: return Double(v)
        case let other?: throw mismatch(key, other, .double)
        }
    }
    public func getBoolean(_ key: String, _ defaultValue: Bool) throws -> Bool {
        switch try value(key) {
        case nil: return defaultValue
        case .bool(let b)?: return b
        case let other?: throw mismatch(key, other, .bool)
        }
    }
    /// Android's `getStringSet`: the set under `key`, or `defaultValue` when there is none.
    /// A set is stored as a property-list array of its strings, sorted (see `putStringSet`).
    /// - throws: `KVError.typeMismatch` for a value that is not a property list;
    ///   `KVError.coding` for a property list that is not an array of strings.
    public func getStringSet(_ key: String, _ defaultValue: Set<String>?) throws -> Set<String>? {
        switch try value(key) {
        case nil: return defaultValue
        case .plist(.array(let items))?:
            var set = Set<String>()
            for item in items {
                guard case .string(let s) = item else {
                    throw KVError.coding(business: group, key: key, reason: "not a set of strings: the array holds a \(item)")
                }
                set.insert(s)
            }
            return set
        case .plist?: throw KVError.coding(business: group, key: key, reason: "not a set of strings: the property list is not an array")
        case let other?: throw mismatch(key, other, .plist)
        }
    }
    /// True when the group has a value under `key`.
    public func contains(_ key: String) throws -> Bool { try value(key) != nil }
    /// Every value of the group, decoded, with the changes applied and not yet written.
    public func getAll() throws -> [String: KVValue] {
        try applied.withLock { pending in
            var all = try store.allValues(business: group)
            for batch in pending.batches { batch.changes.apply(to: &all) }
            return all
        }
    }
    /// A new editor; nothing is written until `commit()` or `apply()`.
    public func edit() -> Editor { Editor(preferences: self) }

    /// The value under `key` as reads see it: the newest pending change to it, else the store's.
    private func value(_ key: String) throws -> KVValue? {
        try applied.withLock { pending in
            for batch in pending.batches.reversed() {
                if let answer = batch.changes.answer(for: key) { return answer }
            }
            return try store.value(forKey: key, business: group)
        }
    }

    private func integer(_ key: String) throws -> Int64? {
        switch try value(key) {
        case nil: return nil
        case .integer(let v)?: return v
        case let other?: throw mismatch(key, other, .integer)
        }
    }

    private func mismatch(_ key: String, _ stored: KVValue, _ requested: KVEncoding) -> KVError {
        .typeMismatch(business: group, key: key, stored: stored.encoding, requested: requested)
    }

    /// Makes `changes` visible to reads until `finishApplied` drops them; returns their id.
    fileprivate func startApplied(_ changes: EditorChanges) -> Int {
        applied.withLock { pending in
            pending.nextID += 1
            pending.batches.append(.init(id: pending.nextID, changes: changes))
            return pending.nextID
        }
    }

    /// Drops the batch `id` from what reads see: it was written, or it failed.
    fileprivate func finishApplied(_ id: Int) {
        applied.withLock { $0.batches.removeAll { $0.id == id } }
    }

    /// Collects changes and writes them in one transaction.
    ///
    /// Each `put…` and `remove` method is Android's method of the same name: it records the
    /// change and returns the editor, so calls chain. `putString` and `putStringSet` with nil
    /// remove the key.
    public final class Editor: Sendable {
        private let preferences: AndroidSharedPreferences
        private let pending = LockedState(EditorChanges())

        init(preferences: AndroidSharedPreferences) {
            self.preferences = preferences
        }

        @discardableResult public func putString(_ key: String, _ value: String?) -> Editor {
            record(key, value.map { .put(.string($0)) } ?? .remove)
        }
        @discardableResult public func putInt(_ key: String, _ value: Int) -> Editor { record(key, .put(.integer(Int64(value)))) }
        @discardableResult public func putLong(_ key: String, _ value: Int64) -> Editor { record(key, .put(.integer(value))) }
        @discardableResult public func putFloat(_ key: String, _ value: Double) -> Editor { record(key, .put(.double(value))) }
        @discardableResult public func putBoolean(_ key: String, _ value: Bool) -> Editor { record(key, .put(.bool(value))) }
        /// Android's `putStringSet`. The set is stored as a property-list array of its strings,
        /// sorted (`.plist(.array([.string…]))`): it reads back as the same set, and the
        /// browser and `datacenter kv get` show it as a list.
        @discardableResult public func putStringSet(_ key: String, _ value: Set<String>?) -> Editor {
            record(key, value.map { .put(.plist(.array($0.sorted().map { .string($0) }))) } ?? .remove)
        }
        @discardableResult public func remove(_ key: String) -> Editor { record(key, .remove) }
        /// Removes every value of the group before the other changes apply.
        @discardableResult public func clear() -> Editor {
            pending.withLock { $0.clearFirst = true }
            return self
        }

        private func record(_ key: String, _ change: EditorChanges.Change) -> Editor {
            pending.withLock { $0.changes.append((key, change)) }
            return self
        }

        /// The changes collected so far; the editor starts empty again.
        private func take() -> EditorChanges {
            pending.withLock { pending in
                defer { pending = EditorChanges() }
                return pending
            }
        }

        /// Writes the changes now, in one transaction, forced to disk, after every change
        /// applied before it; false when it failed (nothing was written then).
        @discardableResult public func commit() -> Bool {
            (try? commitOrThrow()) != nil
        }

        /// Writes the changes in one transaction, like `commit`, but reports failure by
        /// throwing (`commit` only returns false).
        public func commitOrThrow() throws {
            let changes = take()
            let preferences = preferences
            try preferences.writeQueue.sync(on: preferences.store.queue) { try changes.write(to: preferences, sync: true) }
        }

        /// Writes the changes on a background queue and returns at once; `completion`, when
        /// given, receives the error or nil, on a global queue.
        ///
        /// Reads through the same instance see the changes at once, before they are written;
        /// a later `commit` lands after them. When the write fails, the changes stop being
        /// seen before `completion` hears of it: reads show the store again, never a value
        /// that was not written.
        public func apply(completion: (@Sendable (Error?) -> Void)? = nil) {
            let changes = take()
            let preferences = preferences
            let id = preferences.startApplied(changes)
            preferences.writeQueue.async(on: preferences.store.queue) {
                let failure: Error?
                do { try changes.write(to: preferences, sync: false); failure = nil } catch { failure = error }
                preferences.finishApplied(id)
                // Not on the write queue: a completion may commit, which waits for that queue.
                if let completion { DispatchQueue.global(qos: .utility).async { completion(failure) } }
            }
        }
    }
}
