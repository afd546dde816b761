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
///   as the table's own grid shows it (`reading`).
/// - A query that reads a crypt column anywhere else (`WHERE content = 'x'`, `upper(content)`)
///   sees ciphertext there, and runs as written: the console adds a note saying so, and
///   how to read the text, unless the query uses `datacenter_decrypt` itself.
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

    /// How `select` reads the crypt columns of `cryptColumns` (table → columns): the result
    /// columns that read straight from one (shown decrypted), and the crypt columns it
    /// reads otherwise, as ciphertext. Nothing of it is run; a statement that does not
    /// prepare reads nothing (running it says why).
    static func reading(of select: String, on db: Database, cryptColumns: [String: Set<String>]) -> CryptReading {
        guard !cryptColumns.isEmpty, let statement = try? db.makeStatement(select) else { return CryptReading() }
        var reading = CryptReading()
        var direct: [String: Int] = [:]       // "table.column" → result columns reading it straight
        for index in 0..<statement.columnCount {
            guard let origin = statement.origin(ofColumn: index), cryptColumns[origin.table]?.contains(origin.column) == true else { continue }
            reading.decryptedColumns.insert(statement.columnNames[index])
            direct[origin.table + "." + origin.column, default: 0] += 1
        }
        // A query that opens values with datacenter_decrypt knows what it does: no note.
        guard let reads = try? db.reads(of: select), !reads.functions.contains("datacenter_decrypt") else { return reading }
        for (table, columns) in cryptColumns.sorted(by: { $0.key < $1.key }) {
            for column in columns.sorted() where reads.count(of: column, in: table) > direct[table + "." + column, default: 0] {
                reading.ciphertextReads.append((table, column))
            }
        }
        return reading
    }
}

/// How one console query reads the crypt columns of its store (`CryptSQL.reading`).
struct CryptReading: Sendable {
    /// The result columns that read straight from a crypt column: shown decrypted.
    var decryptedColumns: Set<String> = []
    /// The crypt columns read elsewhere (a `WHERE`, an expression, a join, an `ORDER BY`),
    /// where the query sees their ciphertext: comparing it with text finds nothing.
    var ciphertextReads: [(table: String, column: String)] = []

    /// What the console says of `ciphertextReads`, if any (the query runs as written),
    /// the way to the text first: the status line shows a screen's width of it.
    var note: String? {
        guard let first = ciphertextReads.first else { return nil }
        let names = ciphertextReads.map { $0.table + "." + $0.column }.joined(separator: ", ")
        let stored = ciphertextReads.count == 1 ? "it is stored encrypted" : "they are stored encrypted"
        return "note: this query reads \(names) as ciphertext (\(stored)): datacenter_decrypt(\(first.column)) gives the text"
    }
}

/// Why `datacenter_decrypt` failed.
struct CryptSQLError: Error, CustomStringConvertible {
    let description: String
}
