import DatacenterKit

/// The `/` search as one SQL condition over a row's columns, so SQLite scans for the match
/// instead of the browser reading every page: a row matches when the text SQLite gives one
/// of its columns (`CAST(column AS TEXT)`, as `LIKE` reads it) holds the needle, ASCII
/// letters in any case. An encrypted column is decrypted first by
/// `datacenter_crypt_holds`, which `register(on:)` adds to the connection for the query.
///
/// Only for needles of ASCII characters: SQLite folds the case of ASCII letters alone, so
/// a needle with other letters is matched by the browser, page by page.
///
/// A regular expression (`SearchNeedle.isRegex`) is tested with `regexp(pattern,
/// CAST(column AS TEXT))` on every column (encrypted ones by `datacenter_crypt_matches`),
/// whatever its letters: ICU folds case itself.
///
/// A needle that no number's text can hold (a letter other than those of `1.0e+20` and
/// `Inf`, a space…) skips the columns that hold only numbers, and in the others tests only
/// text and blob values, before `LIKE` turns a number into text: on the 2,000,000-row
/// `messages` table (four numeric columns, one text) that took the scan from 1.9 s to
/// about 0.8 s.
package struct SearchPredicate {
    /// The condition, with one `?` per column.
    package let sql: String
    /// The values of its `?`, in order.
    package let arguments: [DatabaseValue]
    /// Whether an encrypted column is tested, so the decrypting function must be registered.
    private let decrypts: Bool
    /// The needle's regular expression, when it is one.
    private let regex: SearchNeedle?

    /// The predicate for `needle` over `columns`, decrypting `encryptedColumns` and skipping
    /// `numericOnly` (columns that cannot hold text) when no number holds the needle; nil
    /// for an empty needle or a substring with non-ASCII characters.
    package init?(needle search: SearchNeedle, columns: [String], encryptedColumns: Set<String>, numericOnly: Set<String> = []) {
        decrypts = columns.contains { encryptedColumns.contains($0) }
        if search.isRegex {
            guard !search.text.isEmpty else { return nil }
            regex = search
            sql = "(" + columns.map { column in
                let name = Database.quoteIdentifier(column)
                return encryptedColumns.contains(column) ? "datacenter_crypt_matches(\(name), ?)" : "regexp(?, CAST(\(name) AS TEXT))"
            }.joined(separator: " OR ") + ")"
            arguments = Array(repeating: .text(search.pattern), count: columns.count)
            if columns.isEmpty { return nil }
            return
        }
        regex = nil
        let needle = search.lowercased
        guard !needle.isEmpty, needle.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        // LIKE folds ASCII case without copying each value, as lower() would.
        let pattern = "%" + needle.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        var tests: [String] = []
        var arguments: [DatabaseValue] = []
        let numbersMayHold = needle.allSatisfy { Self.numberCharacters.contains($0) }
        for column in columns where numbersMayHold || !numericOnly.contains(column) {
            let name = Database.quoteIdentifier(column)
            if encryptedColumns.contains(column) {
                tests.append("datacenter_crypt_holds(\(name), ?)")
                arguments.append(.text(needle))
            } else {
                let like = "\(name) LIKE ? ESCAPE '\\'"
                // Numbers sort before text and blobs: `>= ''` is true only for those, and cheaper
                // than typeof().
                tests.append(numbersMayHold ? like : "(\(name) >= '' AND \(like))")
                arguments.append(.text(pattern))
            }
        }
        sql = tests.isEmpty ? "0" : "(" + tests.joined(separator: " OR ") + ")"
        self.arguments = arguments
    }

    /// The characters of the text SQLite gives a number (`-12`, `1.5`, `1.0e+20`, `Inf`),
    /// lowercase as the needle is.
    static let numberCharacters = Set("0123456789.-+einf")

    /// Adds the functions the predicate calls to `db`: `regexp` for a regular expression, and
    /// for encrypted columns `datacenter_crypt_holds(ciphertext, needle)` or
    /// `datacenter_crypt_matches(ciphertext, pattern)`: 1 when `crypt` opens the value and
    /// its text holds the needle in any case (matches the pattern), else 0 (a value no key
    /// opens never matches).
    func register(on db: Database, crypt: any DataCrypt) throws {
        if let regex {
            try SQLRegexp.register(on: db)
            guard decrypts else { return }
            try db.createFunction("datacenter_crypt_matches", argumentCount: 2) { values in
                guard case .blob(let ciphertext) = values[0], let plain = try? crypt.decrypt(ciphertext) else { return .integer(0) }
                return .integer(regex.matches(String(decoding: plain, as: UTF8.self)) ? 1 : 0)
            }
            return
        }
        guard decrypts else { return }
        try db.createFunction("datacenter_crypt_holds", argumentCount: 2) { values in
            guard case .blob(let ciphertext) = values[0], let needle = values[1].stringValue,
                  let plain = try? crypt.decrypt(ciphertext) else { return .integer(0) }
            return .integer(String(decoding: plain, as: UTF8.self).lowercased().contains(needle) ? 1 : 0)
        }
    }
}
