import DatacenterKit

/// Runs rendered SQL on one connection, exactly as rendered, through the connection's
/// statement cache (SQL that does not vary is prepared once).
///
/// The caller opens the transaction; the executor uses savepoints inside it so a failing
/// resumable step or `try` part is undone alone.
struct Executor {
    let db: Database
    /// Encrypts bindings a `<crypt>` rule covers.
    let encryptor: any DataCrypt

    /// The rows of the last statement that returned columns, and the statements run.
    struct Outcome {
        var rows: [Row]? = nil
        var ran: [RenderedSQL] = []
        var skipped = 0
    }

    /// Runs a body: one statement, steps in order, or try then except.
    func run(_ body: RenderedBody, into outcome: inout Outcome) throws {
        switch body {
        case .statement(let sql):
            try run(sql, into: &outcome)
        case .steps(let steps):
            for step in steps {
                if step.resumable {
                    var attempt = outcome
                    do {
                        try db.inSavepoint { try run(step.statement, into: &attempt) }
                        outcome = attempt
                    } catch {
                        continue // a resumable step's failure is skipped
                    }
                } else {
                    try run(step.statement, into: &outcome)
                }
            }
        case .tryExcept(let attempt, let fallback):
            var tried = outcome
            do {
                try db.inSavepoint { try run(attempt, into: &tried) }
                outcome = tried
            } catch {
                try db.inSavepoint { try run(fallback, into: &outcome) }
            }
        }
    }

    /// Runs one statement with its bindings (encrypting the covered ones).
    func run(_ sql: RenderedSQL, into outcome: inout Outcome) throws {
        if sql.skipped { outcome.skipped += 1; return }
        guard !sql.sql.isEmpty else { return }
        var bindings = sql.bindings
        for index in sql.encryptedBindings where bindings.indices.contains(index) {
            bindings[index] = try CryptColumn.encrypt(bindings[index], with: encryptor)
        }
        do {
            if Executor.holdsSeveralStatements(sql.sql) {
                try db.execute(sql.sql, StatementArguments(bindings))
            } else {
                let statement = try db.cachedStatement(sql.sql)
                if statement.columnCount > 0 {
                    outcome.rows = try statement.fetchAll(StatementArguments(bindings))
                } else {
                    try statement.execute(StatementArguments(bindings))
                }
            }
        } catch let error as DatabaseError {
            throw DAOError.database(error)
        }
        outcome.ran.append(sql)
    }

    /// True when `sql` has a `;` followed by more SQL outside quotes and comments.
    static func holdsSeveralStatements(_ sql: String) -> Bool {
        let chars = Array(sql)
        var quote: Character?
        var sawSemicolon = false
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "-", i + 1 < chars.count, chars[i + 1] == "-" {
                while i < chars.count, chars[i] != "\n" { i += 1 } // a line comment
            } else if c == "/", i + 1 < chars.count, chars[i + 1] == "*" {
                i += 2
                while i + 1 < chars.count, !(chars[i] == "*" && chars[i + 1] == "/") { i += 1 }
                i += 1 // a block comment
            } else if c == ";" {
                sawSemicolon = true
            } else if !c.isWhitespace {
                if sawSemicolon { return true }
                if c == "'" || c == "\"" { quote = c }
            }
            i += 1
        }
        return false
    }
}
