import CSQLite

/// The statements of a SQL script, told apart the way SQLite tells them apart
/// (`sqlite3_complete`): enough to know how many there are and which manage transactions,
/// before any of them runs.
enum SQLScript {
    /// The script's statements as text, in order, comments and white space around them
    /// trimmed; an unfinished last statement is included as it is.
    static func statements(in sql: String) -> [String] {
        var out: [String] = []
        var current = ""
        for character in sql {
            current.append(character)
            if character == ";", sqlite3_complete(current) != 0 {
                let trimmed = stripped(current)
                if !trimmed.isEmpty, trimmed != ";" { out.append(trimmed) }
                current = ""
            }
        }
        let rest = stripped(current)
        if !rest.isEmpty { out.append(rest) }
        return out
    }

    /// True for a statement that begins, ends or marks a transaction (`BEGIN`, `COMMIT`,
    /// `END`, `ROLLBACK`, `SAVEPOINT`, `RELEASE`).
    static func isTransactionControl(_ statement: String) -> Bool {
        ["begin", "commit", "end", "rollback", "savepoint", "release"].contains(firstWord(statement))
    }

    /// True for a statement a sequence's own transaction must not wrap: transaction control,
    /// and what SQLite runs only outside a transaction (`VACUUM`, `ATTACH`, `DETACH`, a
    /// change of `journal_mode`).
    static func runsOutsideTransactions(_ statement: String) -> Bool {
        if isTransactionControl(statement) { return true }
        switch firstWord(statement) {
        case "vacuum", "attach", "detach": return true
        case "pragma":
            // A change of journal mode fails inside a transaction; foreign_keys does nothing there.
            let text = statement.lowercased()
            return text.contains("journal_mode") || text.contains("foreign_keys")
        default: return false
        }
    }

    /// The statement's first keyword, lower-cased.
    static func firstWord(_ statement: String) -> String {
        String(statement.prefix { $0.isLetter }).lowercased()
    }

    /// `text` without the white space and comments that lead and trail it.
    private static func stripped(_ text: String) -> String {
        var rest = Substring(text)
        while true {
            rest = rest.drop { $0.isWhitespace }
            if rest.hasPrefix("--") {
                rest = rest.drop { $0 != "\n" }
            } else if rest.hasPrefix("/*") {
                guard let close = rest.range(of: "*/") else { return "" }
                rest = rest[close.upperBound...]
            } else {
                break
            }
        }
        return String(rest.reversed().drop { $0.isWhitespace }.reversed())
    }
}

extension Database {
    /// Runs the statements of `sql` in order, handing each prepared statement to `body`
    /// (which runs it), as a sequence (`sqlSequences`): by default several statements run in
    /// one transaction, undone whole when one fails — DBConnect's default — unless the script
    /// manages its own transactions (it has `BEGIN`, `COMMIT`, `ROLLBACK`, `SAVEPOINT`…), a
    /// transaction is already open, or the connection is read-only; then they run as written.
    public func runScript(_ sql: String, _ body: (Statement) throws -> Void) throws {
        try runSequence(SQLScript.statements(in: sql)) { try forEachStatement(in: sql, body) }
    }
}
