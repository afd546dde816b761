import CSQLite
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
    static let functionName = "datacenter_is_ciphertext"

    /// Keys handed to SQLite as the function's user data.
    private final class Keys {
        let crypt: any DataCrypt
        init(_ crypt: any DataCrypt) { self.crypt = crypt }
    }

    /// Installs the function and the triggers for those of `columns` that `table` has.
    /// - throws: `DatabaseError` when a trigger cannot be created.
    static func install(table: String, columns: Set<String>, keys: any DataCrypt, in db: Database) throws {
        let existing = Set(try db.query("SELECT name FROM pragma_table_info(?)", [.text(table)]).compactMap { $0[0].stringValue })
        let guarded = columns.filter(existing.contains).sorted()
        guard !guarded.isEmpty else { return }
        let box = Unmanaged.passRetained(Keys(keys)).toOpaque()
        let status = sqlite3_create_function_v2(db.sqliteHandle, functionName, 1, SQLITE_UTF8, box, { context, _, arguments in
            guard let context, let user = sqlite3_user_data(context), let value = arguments?[0] else { return }
            let crypt = Unmanaged<Keys>.fromOpaque(user).takeUnretainedValue().crypt
            switch sqlite3_value_type(value) {
            case SQLITE_NULL:
                sqlite3_result_int(context, 1)
            case SQLITE_BLOB:
                let count = Int(sqlite3_value_bytes(value))
                let bytes = count > 0 ? sqlite3_value_blob(value) : nil
                let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
                sqlite3_result_int(context, (try? crypt.decrypt(data)) != nil ? 1 : 0)
            default:
                sqlite3_result_int(context, 0)
            }
        }, nil, nil, { user in
            if let user { Unmanaged<Keys>.fromOpaque(user).release() }
        })
        guard status == SQLITE_OK else {
            throw DAOPanelRefusal("cannot guard the encrypted columns (SQLite error \(status)): nothing ran")
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
