import Foundation

/// The changes of one editor: `clear` (which goes first) and the puts and removes, in order.
struct EditorChanges: Sendable {
    enum Change: Sendable { case put(KVValue), remove }
    var changes: [(String, Change)] = []
    var clearFirst = false

    /// What a read of `key` sees once these changes are written: `.some(value or nil)`, or
    /// nil when they do not touch `key` (the read looks further).
    func answer(for key: String) -> KVValue?? {
        if let (_, change) = changes.last(where: { $0.0 == key }) {
            if case .put(let value) = change { return .some(value) }
            return .some(nil)
        }
        return clearFirst ? .some(nil) : nil
    }

    /// `values` as they are once these changes are written.
    func apply(to values: inout [String: KVValue]) {
        if clearFirst { values.removeAll() }
        for (key, change) in changes {
            switch change {
            case .put(let value): values[key] = value
            case .remove: values[key] = nil
            }
        }
    }

    /// Writes the changes to the group of `preferences`, in one transaction.
    func write(to preferences: AndroidSharedPreferences, sync: Bool) throws {
        let store = preferences.store
        let group = preferences.group
        try store.batch {
            if clearFirst { try store.removeAll(business: group) }
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
