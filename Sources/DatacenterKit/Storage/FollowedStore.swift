/// Whose store a user-dependent object works on: the common one, or one user's.
public enum StoreOwner: Hashable, Sendable, CustomStringConvertible {
    /// The user-independent store (`commonPreferences`).
    case common
    /// The store of the user with this id.
    case user(String)

    public var description: String {
        switch self {
        case .common: return "common"
        case .user(let id): return "user " + id
        }
    }
}

/// The store a DAO or a file/object service works on, looked up at every operation rather
/// than once at creation (`userDependent:`): the common store, or — user-dependent — the
/// store of whoever is signed in *now*, so that after a user switch the next operation
/// goes to the new user's file, and with no one signed in there is no store at all.
///
/// Cheap to ask: `currentOwner` reads the current user id under the data center's lock and
/// opens nothing; `store(of:)` opens (once, then shares) the owner's store. Callers keep
/// what they build on a store per owner, and ask `store(of:)` only on a miss.
///
/// For example:
/// ```swift
/// let followed = center.followedStore(userDependent: true)
/// guard let owner = followed.currentOwner else { throw NoCurrentUserError(subject: "photos", operation: "write") }
/// let store = try followed.store(of: owner)
/// ```
public struct FollowedStore: Sendable {
    /// True when the store is the current user's; false for the common store.
    public let isUserDependent: Bool
    private let currentUserId: @Sendable () -> String?
    private let openStore: @Sendable (StoreOwner) throws -> Store

    /// A followed store over the given lookups: `currentUserId` says who is signed in now,
    /// `openStore` opens (or returns the open) store of an owner.
    package init(userDependent: Bool, currentUserId: @escaping @Sendable () -> String?,
                 openStore: @escaping @Sendable (StoreOwner) throws -> Store) {
        self.isUserDependent = userDependent
        self.currentUserId = currentUserId
        self.openStore = openStore
    }

    /// The owner of the store to use now: `.common` when not user-dependent, the current
    /// user when one is signed in, nil when user-dependent and no one is.
    public var currentOwner: StoreOwner? {
        guard isUserDependent else { return .common }
        return currentUserId().map(StoreOwner.user)
    }

    /// The store of `owner`, opened on first use and shared afterwards.
    /// - throws: what opening the store throws (`StorageError`, `DatabaseError`).
    public func store(of owner: StoreOwner) throws -> Store { try openStore(owner) }

    /// The store to use now, with its owner; nil when user-dependent and no one is signed in.
    public func currentStore() throws -> (owner: StoreOwner, store: Store)? {
        guard let owner = currentOwner else { return nil }
        return (owner, try store(of: owner))
    }
}
