import Foundation

/// Disk-cache eviction, run by the write queue's flush inside its transaction
/// (`LRUDiskCacheSQL.apply`): expired entries go first, then the least recently used (the
/// oldest `accessed` tick) until the cache holds `capacity` entries.
extension LRUDiskCacheSQL {
    /// Removes the expired entries, then the least recently used down to `capacity`.
    func evictLeastRecentlyUsed(downTo capacity: Int, in db: Database) throws {
        try db.execute(expire, [.real(Date().timeIntervalSince1970)])
        let entries = try countEntries(in: db)
        if entries > capacity { try db.execute(evict, [.integer(Int64(entries - capacity))]) }
    }
}
