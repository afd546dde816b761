import Foundation

/// How many values of one kind of encrypted data, in one store, a rekey moved to the new key
/// and how many it found there already (a rerun after a crash, or a second run).
public struct RekeyTally: Sendable, Equatable {
    /// The kind of data: `kv` (default-encrypted KV values), `dao` (a DAO table's crypt
    /// columns), `cache` (an encrypted disk cache), `files` (an encrypted file or object
    /// service).
    public let kind: String
    /// Which one of that kind: the DAO table, the cache's or the service's name; nil for `kv`.
    public let name: String?
    /// Values rewritten under the new key.
    public internal(set) var moved = 0
    /// Values found under the new key, in their format, and left as they were.
    public internal(set) var alreadyDone = 0

    /// A tally of nothing yet for `kind` (and `name`).
    public init(kind: String, name: String? = nil, moved: Int = 0, alreadyDone: Int = 0) {
        self.kind = kind
        self.name = name
        self.moved = moved
        self.alreadyDone = alreadyDone
    }

    /// Counts one value's outcome.
    public mutating func count(_ outcome: RekeyCrypt.Outcome) {
        switch outcome {
        case .moved: moved += 1
        case .alreadyDone: alreadyDone += 1
        }
    }

    /// `kind` and `name` as one label: `kv`, `dao messages`, `cache tokens`, `files avatars`.
    public var label: String { name.map { kind + " " + $0 } ?? kind }
}

/// What a rekey did to one store (SQLite file): every kind it re-encrypted, or the error that
/// left it unchanged.
public struct StoreRekeyResult: Sendable, Equatable {
    /// A name for people: `common`, `user alice`, `version storage`, `caches`, … (see
    /// `DataCenter.rekeyTargets`).
    public let name: String
    /// The store's file.
    public let path: String
    /// What moved, by kind, in the order they were done; empty when the store failed.
    public let tallies: [RekeyTally]
    /// Why the store was left unchanged, or nil when it was re-encrypted.
    public let error: String?

    /// A store re-encrypted (or found done) with these tallies, or left unchanged by `error`.
    public init(name: String, path: String, tallies: [RekeyTally], error: String? = nil) {
        self.name = name
        self.path = path
        self.tallies = tallies
        self.error = error
    }

    /// Values this store had moved to the new key.
    public var moved: Int { tallies.reduce(0) { $0 + $1.moved } }
    /// Values of this store that were under the new key already.
    public var alreadyDone: Int { tallies.reduce(0) { $0 + $1.alreadyDone } }
}

/// What a whole rekey did: one result per store, in the order they were done.
public struct RekeySummary: Sendable, Equatable {
    /// Each store's result.
    public let stores: [StoreRekeyResult]

    /// A summary of these results.
    public init(stores: [StoreRekeyResult]) { self.stores = stores }

    /// The stores left unchanged by an error.
    public var failed: [StoreRekeyResult] { stores.filter { $0.error != nil } }
    /// Values moved to the new key, in every store.
    public var moved: Int { stores.reduce(0) { $0 + $1.moved } }
    /// Values found under the new key already, in every store.
    public var alreadyDone: Int { stores.reduce(0) { $0 + $1.alreadyDone } }
    /// True when nothing had to move and nothing failed: the root was entirely under the new
    /// key already (a rerun after a completed rekey).
    public var wasAlreadyDone: Bool { moved == 0 && failed.isEmpty }
}
