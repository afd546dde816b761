import DatacenterKit
import Foundation

/// The DAO part of a rekey: re-encrypts the crypt columns of every DAO table a store
/// records, under the new key, as `DataCenter.rekey` runs it in each store's transaction.
///
/// **Decision**: the columns are those the store's `datacenter_dao_tables` records (written
/// when a DAO object first touches a table, from its config's `<crypt>` rules), so no config
/// is needed: a rekey finds them as a browser does. A table with no record (never touched by
/// this engine's DAO objects) is not touched. Crypt column values are unbound (format 1), as
/// DAO objects read them; a value that is not a BLOB was written before the column was
/// encrypted and is left as it is, as reads leave it.
public struct DAOCryptColumnsRekey: StoreRekeyPass {
    /// The pass.
    public init() {}

    /// Re-encrypts each recorded table's crypt columns; one tally per table (kind `dao`).
    public func reencrypt(in db: Database, crypt: RekeyCrypt, looked: () -> Void) throws -> [RekeyTally] {
        var tallies: [RekeyTally] = []
        for entry in try TableVersions.entries(in: db) where !entry.encryptedColumns.isEmpty {
            let table = entry.tableName
            guard try Store.tableExists(table, in: db) else { continue }
            let present = Set(try EncryptedColumnRewrite.columnNames(of: table, in: db))
            let columns = entry.encryptedColumns.filter(present.contains)
            guard !columns.isEmpty else { continue }
            let keys = try EncryptedColumnRewrite.keyColumns(of: table, in: db)
            let rewrite = EncryptedColumnRewrite(table: table, keyColumns: keys, columns: columns)
            let (moved, done) = try rewrite.run(in: db, looked: looked) { value in
                guard case .blob(let ciphertext) = value.stored else { return nil }
                do { return try crypt.reencryptUnbound(ciphertext) } catch let error as CryptError {
                    let row = keys == ["rowid"] ? "row " + value.rowName : value.rowName
                    throw RekeyError.value(place: "dao \(table) \(row) \(value.column)", reason: "\(error)")
                }
            }
            tallies.append(RekeyTally(kind: "dao", name: table, moved: moved, alreadyDone: done))
        }
        return tallies
    }
}
