import DatacenterDAO
import DatacenterKit

/// Decryption in the console's SQL, as the grid decrypts: a query the developer writes (a
/// JOIN, a GROUP BY) reads a DAO crypt column as its text, not as ciphertext.
///
/// - `datacenter_decrypt(x)`, registered on the console's connections: a BLOB the keys open
///   becomes its plaintext (text when UTF-8, else a BLOB); any other value is returned as it
///   is (written before the column was encrypted); a BLOB no key opens fails the query with
///   the reason, never passing ciphertext off as the value.
/// - A result column that reads straight from a crypt column (`SELECT m.content …`, known
///   from the store's DAO tables and the `--config` files) is shown decrypted in the grid,
///   as the table's own grid shows it (`encryptedResultColumns`).
enum CryptSQL {
    /// Adds `datacenter_decrypt(x)` to `db`, opening values with `crypt`.
    static func register(on db: Database, crypt: any DataCrypt) throws {
        try db.createFunction("datacenter_decrypt", argumentCount: 1) { values in
            guard case .blob = values[0] else { return values[0] }
            do {
                return try CryptColumn.plaintext(of: values[0], with: crypt)
            } catch {
                throw CryptSQLError(description: "datacenter_decrypt: the value does not open with the keys given (\(error))")
            }
        }
    }

    /// The names of the result columns of `select` that read straight from a crypt column of
    /// `cryptColumns` (table → columns).
    static func encryptedResultColumns(of select: String, on db: Database, cryptColumns: [String: Set<String>]) -> Set<String> {
        guard !cryptColumns.isEmpty, let statement = try? db.makeStatement(select) else { return [] }
        var names: Set<String> = []
        for index in 0..<statement.columnCount {
            guard let origin = statement.origin(ofColumn: index), cryptColumns[origin.table]?.contains(origin.column) == true else { continue }
            names.insert(statement.columnNames[index])
        }
        return names
    }
}

/// Why `datacenter_decrypt` failed.
struct CryptSQLError: Error, CustomStringConvertible {
    let description: String
}
