import CSQLite

/// Questions about SQL text that SQLite's own tokenizer answers, for tools that read SQL as
/// it is typed.
public enum SQLText {
    /// True when `sql` ends with a complete statement, as the sqlite3 shell decides whether
    /// to run what was typed or read another line (`sqlite3_complete`): a `;` that is not
    /// inside a string, identifier, comment or trigger body ends it.
    public static func isComplete(_ sql: String) -> Bool {
        sqlite3_complete(sql) != 0
    }
}
