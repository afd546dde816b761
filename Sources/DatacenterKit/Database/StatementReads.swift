import CSQLite

/// What one statement reads, as SQLite reports it while preparing the statement: each
/// reference to a table's column (a column named twice is listed twice; `*` lists each
/// column it stands for), and the functions it calls. Nothing is run.
///
/// The console uses it to tell a query that reads a crypt column as ciphertext (in a
/// `WHERE`, an expression, a join) from one that only shows it, which the grid decrypts.
package struct StatementReads: Sendable {
    /// The columns read, in the order SQLite resolved them.
    package var columns: [(table: String, column: String)] = []
    /// The functions called, lowercased.
    package var functions: Set<String> = []

    /// How many references read `column` of `table`.
    package func count(of column: String, in table: String) -> Int {
        columns.reduce(0) { $0 + ($1.table == table && $1.column == column ? 1 : 0) }
    }
}

extension Database {
    /// What the first statement of `sql` reads (`StatementReads`), from SQLite's authorizer
    /// while the statement is prepared (then finalized, never stepped). A read-only
    /// connection keeps refusing what it always refuses meanwhile, and gets its authorizer
    /// back after.
    /// - throws: `DatabaseError` when the statement does not prepare.
    package func reads(of sql: String) throws -> StatementReads {
        try checkOpen(sql: sql)
        /// The reads gathered while preparing (the authorizer's context).
        final class Gathered {
            var reads = StatementReads()
            let isReadOnly: Bool
            init(isReadOnly: Bool) { self.isReadOnly = isReadOnly }
        }
        let gathered = Gathered(isReadOnly: isReadOnly)
        return try withExtendedLifetime(gathered) {
            sqlite3_set_authorizer(handle, { context, action, first, second, _, _ in
                let gathered = Unmanaged<Gathered>.fromOpaque(context!).takeUnretainedValue()
                if action == SQLITE_READ, let first, let second {
                    gathered.reads.columns.append((String(cString: first), String(cString: second)))
                } else if action == SQLITE_FUNCTION, let second {
                    gathered.reads.functions.insert(String(cString: second).lowercased())
                }
                return gathered.isReadOnly ? ReadOnlyAuthorizer.decision(action: action, first: first, second: second) : SQLITE_OK
            }, Unmanaged.passUnretained(gathered).toOpaque())
            defer {
                if isReadOnly { ReadOnlyAuthorizer.install(on: handle) } else { sqlite3_set_authorizer(handle, nil, nil) }
            }
            var statement: OpaquePointer?
            let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
            sqlite3_finalize(statement)
            guard rc == SQLITE_OK else { throw DatabaseError.from(handle, code: rc, sql: sql, path: path) }
            return gathered.reads
        }
    }
}
