import DatacenterKit
import Foundation

/// Refuses, inside SQLite, any value written to an encrypted column that is not ciphertext
/// of the given keys: the DAO panel's last line of defence against storing plaintext where
/// the app expects ciphertext, whatever shape the statement has.
///
/// `install` registers a function `datacenter_is_ciphertext(x)` (true for NULL and for a
/// BLOB the keys decrypt) on the connection and creates TEMP triggers on the table, BEFORE
/// INSERT and BEFORE UPDATE OF each encrypted column, that abort the statement with
/// `encrypted column C: …` otherwise. TEMP objects live in the connection's temporary
/// database, never in the file, and vanish when the connection closes: the panel installs
/// them on the connection it opened for one write, after preparing the table (the table
/// must exist) and before the call.
enum CryptColumnGuard {
    /// The SQL function the triggers call.
    static let functionName = "datacenter_is_ciphertext"

    /// Installs the function and the triggers for those of `columns` that `table` has.
    /// - throws: `DatabaseError` when the function or a trigger cannot be created.
    static func install(table: String, columns: Set<String>, keys: any DataCrypt, in db: Database) throws {
        let existing = Set(try db.query("SELECT name FROM pragma_table_info(?)", [.text(table)]).compactMap { $0[0].stringValue })
        let guarded = columns.filter(existing.contains).sorted()
        guard !guarded.isEmpty else { return }
        do {
            try db.createFunction(functionName, argumentCount: 1) { arguments in
                switch arguments[0] {
                case .null: return .integer(1)
                case .blob(let data): return .integer((try? keys.decrypt(data)) != nil ? 1 : 0)
                default: return .integer(0)
                }
            }
        } catch let error as DatabaseError {
            throw DAOPanelRefusal("cannot guard the encrypted columns (\(error.message)): nothing ran")
        }
        let target = "main." + Database.quoteIdentifier(table)
        for (index, column) in guarded.enumerated() {
            let name = Database.quoteIdentifier(column)
            let message = "encrypted column \(column): the value is not ciphertext of the key, so it was refused (it would be stored in plaintext)"
            let literal = Database.quoteLiteral(message)
            let check = "WHEN NEW.\(name) IS NOT NULL AND NOT \(functionName)(NEW.\(name)) BEGIN SELECT RAISE(ABORT, \(literal)); END"
            try db.execute("CREATE TEMP TRIGGER IF NOT EXISTS datacenter_crypt_insert_\(index) BEFORE INSERT ON \(target) \(check)")
            try db.execute("CREATE TEMP TRIGGER IF NOT EXISTS datacenter_crypt_update_\(index) BEFORE UPDATE OF \(name) ON \(target) \(check)")
        }
    }
}
