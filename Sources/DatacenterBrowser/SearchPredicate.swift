import DatacenterKit

/// The `/` search as one SQL condition over a row's columns, so SQLite scans for the match
/// instead of the browser reading every page: a row matches when the text SQLite gives one
/// of its columns (`CAST(column AS TEXT)`, as `LIKE` reads it) holds the needle, ASCII
/// letters in any case. An encrypted column is decrypted first by
/// `datacenter_crypt_holds`, which `register(on:)` adds to the connection for the query.
///
/// Only for needles of ASCII characters: SQLite folds the case of ASCII letters alone, so
/// a needle with other letters is matched by the browser, page by page.
struct SearchPredicate {
    /// The condition, with one `?` per column.
    let sql: String
    /// The values of its `?`, in order.
    let arguments: [DatabaseValue]
    /// Whether an encrypted column is tested, so the decrypting function must be registered.
    private let decrypts: Bool

    /// The predicate for `needle` (lowercase) over `columns`, decrypting `encryptedColumns`;
    /// nil for an empty needle or one with non-ASCII characters.
    init?(needle: String, columns: [String], encryptedColumns: Set<String>) {
        guard !needle.isEmpty, needle.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        // LIKE folds ASCII case without copying each value, as lower() would.
        let pattern = "%" + needle.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        var tests: [String] = []
        var arguments: [DatabaseValue] = []
        for column in columns {
            let name = Database.quoteIdentifier(column)
            if encryptedColumns.contains(column) {
                tests.append("datacenter_crypt_holds(\(name), ?)")
                arguments.append(.text(needle))
            } else {
                tests.append("\(name) LIKE ? ESCAPE '\\'")
                arguments.append(.text(pattern))
            }
        }
        sql = "(" + tests.joined(separator: " OR ") + ")"
        self.arguments = arguments
        decrypts = columns.contains { encryptedColumns.contains($0) }
    }

    /// Adds `datacenter_crypt_holds(ciphertext, needle)` to `db` when the predicate needs it:
    /// 1 when `crypt` opens the value and its text holds the needle in any case, else 0 (a
    /// value no key opens never matches).
    func register(on db: Database, crypt: any DataCrypt) throws {
        guard decrypts else { return }
        try db.createFunction("datacenter_crypt_holds", argumentCount: 2) { values in
            guard case .blob(let ciphertext) = values[0], let needle = values[1].stringValue,
                  let plain = try? crypt.decrypt(ciphertext) else { return .integer(0) }
            return .integer(String(decoding: plain, as: UTF8.self).lowercased().contains(needle) ? 1 : 0)
        }
    }
}
