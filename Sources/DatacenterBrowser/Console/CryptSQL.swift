import DatacenterDAO
import DatacenterKit

/// Decryption in the console's SQL, as the grid decrypts: a query the developer writes (a
/// JOIN, a GROUP BY) reads a DAO crypt column as its text, not as ciphertext.
///
/// - `datacenter_decrypt(x)`, registered on the console's connections: a BLOB the keys open
///   becomes its plaintext (text when UTF-8, else a BLOB); any other value is returned as it
///   is (written before the column was encrypted); a BLOB no key opens fails the query with
///   the reason, never passing ciphertext off as the value.
/// - `datacenter_kv_value(business, key, value, encoding, options)`: a `datacenter_kv` row's
///   value as the KV grid shows it (decoded, decrypted, or `[locked: reason]`).
/// - A result column that reads straight from a crypt column (`SELECT m.content …`, known
///   from the store's DAO tables and the `--config` files) is shown decrypted in the grid,
///   as the table's own grid shows it (`reading`).
/// - A query that reads a crypt column anywhere else (`WHERE content = 'x'`, `upper(content)`)
///   sees ciphertext there, and runs as written: the console adds a note saying so, and
///   how to read the text, unless the query uses `datacenter_decrypt` itself; likewise for
///   `datacenter_kv.value` read without `datacenter_kv_value`.
enum CryptSQL {
    /// Adds `datacenter_decrypt(x)` and `datacenter_kv_value(…)` to `db`, opening values
    /// with `crypt`.
    static func register(on db: Database, crypt: any DataCrypt) throws {
        try db.createFunction("datacenter_decrypt", argumentCount: 1) { values in
            guard case .blob = values[0] else { return values[0] }
            do {
                return try CryptColumn.plaintext(of: values[0], with: crypt)
            } catch {
                throw CryptSQLError(description: "datacenter_decrypt: the value does not open with the keys given (\(error))")
            }
        }
        try db.createFunction("datacenter_kv_value", argumentCount: 5) { values in
            try kvValue(business: values[0], key: values[1], value: values[2], encoding: values[3], options: values[4], crypt: crypt)
        }
    }

    /// `datacenter_kv_value(business, key, value, encoding, options)`, the columns of a
    /// `datacenter_kv` row: its value as the KV grid shows it, decoded by its encoding and
    /// decrypted (bound to its business, key and encoding, so only that row's columns open
    /// it), or `[locked: reason]` as the grid shows a value no key given opens (one encrypted
    /// with the app's own crypt among them: the demo has one). NULL for a NULL value.
    /// - throws: `CryptSQLError` for columns that are not a KV row's (an unknown encoding).
    static func kvValue(business: DatabaseValue, key: DatabaseValue, value: DatabaseValue, encoding: DatabaseValue,
                        options: DatabaseValue, crypt: any DataCrypt) throws -> DatabaseValue {
        guard value != .null else { return .null }
        let entry: KVEntry
        do {
            entry = try KVStore.entry(business: business.stringValue ?? "", key: key.stringValue ?? "", value: value,
                                      encoding: encoding, options: options, modified: .null)
        } catch {
            throw CryptSQLError(description: "datacenter_kv_value: \(error): give it a datacenter_kv row's business, key, value, encoding and options")
        }
        do {
            return .text(try KVStore.decode(entry, defaultCrypt: crypt).displayString)
        } catch {
            return .text("[locked: \(ValueFormatter.lockReason(error))]")
        }
    }

    /// How `select` reads the crypt columns of `cryptColumns` (table → columns): the result
    /// columns that read straight from one (shown decrypted), the crypt columns it reads
    /// otherwise, as ciphertext, and whether it reads stored KV values. Nothing of it is
    /// run; a statement that does not prepare reads nothing (running it says why).
    static func reading(of select: String, on db: Database, cryptColumns: [String: Set<String>]) -> CryptReading {
        guard let statement = try? db.makeStatement(select) else { return CryptReading() }
        var reading = CryptReading()
        var direct: [String: Int] = [:]       // "table.column" → result columns reading it straight
        var kvColumns: [String: [Int]] = [:]  // a datacenter_kv column → the result columns reading it straight
        for index in 0..<statement.columnCount {
            guard let origin = statement.origin(ofColumn: index) else { continue }
            if origin.table == KVStore.tableName { kvColumns[origin.column, default: []].append(index) }
            guard cryptColumns[origin.table]?.contains(origin.column) == true else { continue }
            reading.decryptedColumns.insert(statement.columnNames[index])
            direct[origin.table + "." + origin.column, default: 0] += 1
        }
        reading.kvRow = KVRowColumns(kvColumns, names: statement.columnNames)
        guard let reads = try? db.reads(of: select) else { return reading }
        // Stored KV values (encoded, some encrypted) read without the function that decodes them.
        if !reads.functions.contains("datacenter_kv_value") {
            reading.storedKVValueReads = reads.count(of: "value", in: KVStore.tableName)
        }
        // A query that opens values with datacenter_decrypt knows what it does: no note.
        guard !reads.functions.contains("datacenter_decrypt") else { return reading }
        for (table, columns) in cryptColumns.sorted(by: { $0.key < $1.key }) {
            for column in columns.sorted() where reads.count(of: column, in: table) > direct[table + "." + column, default: 0] {
                reading.ciphertextReads.append((table, column))
            }
        }
        return reading
    }
}

/// How one console query reads what its store keeps encrypted or encoded: DAO crypt columns
/// and KV values (`CryptSQL.reading`).
struct CryptReading: Sendable {
    /// The result columns that read straight from a crypt column: shown decrypted.
    var decryptedColumns: Set<String> = []
    /// The crypt columns read elsewhere (a `WHERE`, an expression, a join, an `ORDER BY`),
    /// where the query sees their ciphertext: comparing it with text finds nothing.
    var ciphertextReads: [(table: String, column: String)] = []

    /// How often the query reads `datacenter_kv.value` (as stored: encoded, encrypted where
    /// its options say so); 0 when it calls `datacenter_kv_value`.
    var storedKVValueReads = 0
    /// The result columns of a whole `datacenter_kv` row, if the result has them: the grid
    /// shows its value decoded.
    var kvRow: KVRowColumns?

    /// What the console says of the values the query reads as stored, if any (the query
    /// runs as written), the way to the text first: the status line shows a screen's width.
    /// `decodedKVRow`: the grid shows `kvRow`'s value decoded, so that one read needs no note.
    func note(decodedKVRow: Bool) -> String? {
        var notes: [String] = []
        if let first = ciphertextReads.first {
            let names = ciphertextReads.map { $0.table + "." + $0.column }.joined(separator: ", ")
            let stored = ciphertextReads.count == 1 ? "it is stored encrypted" : "they are stored encrypted"
            notes.append("this query reads \(names) as ciphertext (\(stored)): datacenter_decrypt(\(first.column)) gives the text")
        }
        if storedKVValueReads > (decodedKVRow ? 1 : 0) {
            notes.append("datacenter_kv.value is each value as stored (encoded, some encrypted): "
                         + "datacenter_kv_value(business, key, value, encoding, options) gives the text the KV grid shows")
        }
        return notes.isEmpty ? nil : "note: " + notes.joined(separator: "; ")
    }
}

/// Why `datacenter_decrypt` failed.
struct CryptSQLError: Error, CustomStringConvertible {
    let description: String
}

/// The result columns holding a `datacenter_kv` row's business, key, value, encoding and
/// options, each read straight from that column (`SELECT * FROM datacenter_kv …`): what
/// `datacenter_kv_value` needs to decode the value, which the console's grid then shows as
/// the KV grid does.
struct KVRowColumns: Sendable, Equatable {
    /// The result's column names (unique: the grid reads them by name).
    let names: [String]
    /// The column of each part.
    let business, key, value, encoding, options: Int

    /// The columns of `columns` (a `datacenter_kv` column → the result columns reading it
    /// straight), when each of the five is read exactly once (two rows joined could not be
    /// told apart) and the result's names are unique as SQL compares them (regardless of
    /// case: a subquery renames a repeated name, so the outer query would read another
    /// column); nil otherwise.
    init?(_ columns: [String: [Int]], names: [String]) {
        func one(_ name: String) -> Int? { columns[name].flatMap { $0.count == 1 ? $0[0] : nil } }
        guard let business = one("business"), let key = one("key"), let value = one("value"),
              let encoding = one("encoding"), let options = one("options"),
              Set(names.map { $0.lowercased() }).count == names.count else { return nil }
        (self.names, self.business, self.key, self.value, self.encoding, self.options) = (names, business, key, value, encoding, options)
    }

    /// `select` with its value column decoded (`datacenter_kv_value`), the other columns as
    /// they are, under the same names and in the same order.
    func decoding(_ select: String) -> String {
        let quoted = names.map(Database.quoteIdentifier)
        var columns = quoted
        columns[value] = "datacenter_kv_value(\(quoted[business]), \(quoted[key]), \(quoted[value]), \(quoted[encoding]), "
            + "\(quoted[options])) AS \(quoted[value])"
        return "SELECT " + columns.joined(separator: ", ") + " FROM (\n" + select + "\n)"
    }
}
