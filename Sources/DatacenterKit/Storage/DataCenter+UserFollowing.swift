extension DataCenter {
    /// The store a user-dependent (or common) DAO or service of this data center works on,
    /// looked up at each operation: with `userDependent`, the current user's store, else
    /// the common store.
    public func followedStore(userDependent: Bool) -> FollowedStore {
        let space = self.space
        return FollowedStore(userDependent: userDependent, currentUserId: { [weak self] in self?.currentUserId }) { owner in
            switch owner {
            case .common: return try space.commonStore()
            case .user(let id): return try space.userStore(id)
            }
        }
    }
}
