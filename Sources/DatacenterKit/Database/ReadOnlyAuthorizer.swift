import CSQLite

/// What a read-only connection refuses, beyond the writes SQLite's read-only open refuses:
/// statements that would write or create *another* file. `VACUUM INTO 'x.db'` creates its
/// target whatever the connection's flags (it begins with an `ATTACH` of it), `ATTACH` opens
/// or creates a file, `load_extension` runs code from one, and a pragma given a value may
/// change the file or how it is written (`journal_mode`, `wal_checkpoint`, `user_version`…).
/// Pragmas that read (`table_info(t)`, `quick_check(10)`, …) or only tune this connection
/// (`cache_size`, `busy_timeout`, …) stay allowed.
enum ReadOnlyAuthorizer {
    /// Pragmas allowed with an argument on a read-only connection.
    static let allowedPragmas: Set<String> = [
        "table_info", "table_xinfo", "table_list", "index_info", "index_xinfo", "index_list", "foreign_key_list",
        "foreign_key_check", "integrity_check", "quick_check", "cipher_integrity_check", "function_list", "pragma_list",
        "collation_list", "module_list", "database_list", "compile_options",
        "busy_timeout", "cache_size", "cache_spill", "mmap_size", "temp_store", "query_only", "analysis_limit",
        "case_sensitive_like", "foreign_keys", "recursive_triggers", "reverse_unordered_selects", "automatic_index",
        "defer_foreign_keys", "ignore_check_constraints", "short_column_names", "full_column_names", "hard_heap_limit",
        "soft_heap_limit", "threads", "trusted_schema", "cell_size_check",
    ]

    /// Installs the authorizer on `db`.
    static func install(on db: OpaquePointer) {
        sqlite3_set_authorizer(db, { _, action, first, second, _, _ in
            ReadOnlyAuthorizer.decision(action: action, first: first, second: second)
        }, nil)
    }

    /// What the authorizer answers SQLite for `action` and its first two arguments.
    static func decision(action: Int32, first: UnsafePointer<CChar>?, second: UnsafePointer<CChar>?) -> Int32 {
        switch action {
        case SQLITE_ATTACH:
            return SQLITE_DENY
        case SQLITE_FUNCTION:
            let name = second.map { String(cString: $0).lowercased() } ?? ""
            return name == "load_extension" ? SQLITE_DENY : SQLITE_OK
        case SQLITE_PRAGMA:
            guard second != nil else { return SQLITE_OK }     // no value given: a read
            let name = first.map { String(cString: $0).lowercased() } ?? ""
            return ReadOnlyAuthorizer.allowedPragmas.contains(name) ? SQLITE_OK : SQLITE_DENY
        default:
            return SQLITE_OK
        }
    }
}
