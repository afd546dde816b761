import DatacenterKit

/// Whether a store is on both sides of a diff.
public enum StorePresence: String, Sendable, Equatable {
    /// In A and B: its changes follow.
    case both
    /// In A only (removed).
    case onlyInA = "removed"
    /// In B only (added).
    case onlyInB = "added"
}

/// A table, index, view or trigger added, removed or changed between A and B.
public struct SchemaChange: Sendable, Equatable {
    /// What became of it.
    public enum Kind: String, Sendable, Equatable {
        case added, removed, changed
    }

    /// What became of it.
    public let kind: Kind
    /// `table`, `index`, `view` or `trigger`.
    public let type: String
    /// Its name.
    public let name: String
    /// What else to know (a table whose columns changed: its rows are not compared).
    public let note: String?
}

/// Where in a store a row change is: a KV business, a DAO table, a disk cache, another table.
public enum ChangeSection: Sendable, Equatable, Hashable {
    /// The key-value entries of a business (`datacenter_kv`).
    case kv(business: String)
    /// A DAO table (recorded in `datacenter_dao_tables`): crypt columns decrypted.
    case dao(table: String)
    /// An LRU disk cache (recorded in `datacenter_caches`), by the cache's name.
    case cache(name: String)
    /// Any other table.
    case table(String)
}

/// A value as a diff shows it: decoded and decrypted where the store says how.
public enum ShownValue: Sendable, Equatable {
    /// A column's value as stored (not encrypted).
    case database(DatabaseValue)
    /// A crypt column's value, decrypted.
    case decrypted(DatabaseValue)
    /// A KV value, decoded (and decrypted).
    case kv(KVValue)
    /// A disk cache's value, decoded (and decrypted).
    case cache(PropertyListValue)
    /// An encrypted value no key given opens: why. Never shown as text.
    case locked(String)
}

/// A row (or KV entry, or cache entry) that differs between A and B.
public struct RowChange: Sendable {
    /// What became of it.
    public enum Kind: String, Sendable, Equatable {
        /// In B only.
        case added
        /// In A only.
        case removed
        /// In both, with a value changed.
        case changed
        /// In both with the same values, encrypted anew (a new nonce): not a change of
        /// value, reported only when asked (`--verbose`).
        case reencrypted
        /// In both with the same values, only bookkeeping changed (a KV entry's `modified`
        /// time, a cache entry's last use): reported only when asked.
        case touched

        /// True for the kinds that change a value (counted, and shown without `--verbose`).
        public var changesValue: Bool { self == .added || self == .removed || self == .changed }
    }

    /// Where the row is.
    public let section: ChangeSection
    /// The table it is in (`datacenter_kv` for a KV entry, the cache's table for a cache's).
    public let table: String
    /// What became of it.
    public let kind: Kind
    /// The row's key: its key columns and their values (a KV entry's and a cache entry's
    /// `key` alone).
    public let key: [(column: String, value: DatabaseValue)]
    /// The values in A: every column of a row removed, the changed columns of a row changed.
    public let old: [(column: String, value: ShownValue)]
    /// The values in B: every column of a row added, the changed columns of a row changed.
    public let new: [(column: String, value: ShownValue)]
    /// The columns `old`, `new` and `unchanged` may name, in the table's order (a KV entry's:
    /// `value`, `options`; a cache entry's: `value`, `expires`).
    public let columns: [String]
    /// The other columns of a row changed, the same on both sides: filled only when the diff
    /// is asked for whole rows (`StoreDiff.wholeRows`, the browser's grid), else empty.
    public var unchanged: [(column: String, value: ShownValue)] = []

    /// A change of `kind` in `section`.
    public init(section: ChangeSection, table: String, columns: [String], kind: Kind, key: [(column: String, value: DatabaseValue)],
                old: [(column: String, value: ShownValue)], new: [(column: String, value: ShownValue)],
                unchanged: [(column: String, value: ShownValue)] = []) {
        self.section = section
        self.table = table
        self.columns = columns
        self.kind = kind
        self.key = key
        self.old = old
        self.new = new
        self.unchanged = unchanged
    }
}

/// Where a diff sends what it finds, store by store, as it finds it (so a diff of big
/// stores holds no more than one row at a time).
public protocol ChangeSink: AnyObject {
    /// A store starts (on both sides, or only one: then nothing else comes for it).
    func beginStore(_ name: String, presence: StorePresence)
    /// A schema object of the store differs.
    func schemaChange(_ change: SchemaChange)
    /// A row of the store differs.
    func rowChange(_ change: RowChange)
    /// The store is done.
    func endStore()
}
