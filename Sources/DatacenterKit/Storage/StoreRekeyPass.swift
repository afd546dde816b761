import Foundation

/// One more kind of encrypted data for a rekey to re-encrypt in each store, run inside the
/// store's transaction with the Kit's own kinds: for data whose format belongs to a layer
/// above the Kit, as DAO crypt columns belong to `DatacenterDAO` (`DAOCryptColumnsRekey`).
public protocol StoreRekeyPass: Sendable {
    /// Re-encrypts this pass's data in the store `db` is open on (inside its transaction),
    /// reading and writing values through `crypt`; calls `looked` after each row, for
    /// progress. Returns one tally per table or thing re-encrypted (none when there was none).
    /// - throws: an error naming the table, row and column at fault; the store is then left
    ///   as it was.
    func reencrypt(in db: Database, crypt: RekeyCrypt, looked: () -> Void) throws -> [RekeyTally]
}
