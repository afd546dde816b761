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
        let bindings = try encryptedBindings(of: sql)
        do {
            if sql.holdsSeveralStatements {
                try db.execute(sql.sql, StatementArguments(bindings))
            } else {
                outcome.rows = try run(try db.cachedStatement(sql.sql), bindings) ?? outcome.rows
            }
        } catch let error as DatabaseError {
            throw DAOError.database(error)
        }
        outcome.ran.append(sql)
    }

    /// The prepared statement of `sql` when it is one read-only statement that runs: a call
    /// made of it alone needs no transaction (SQLite runs one statement atomically, and a
    /// read leaves nothing to undo). nil otherwise.
    func soleReadOnlyStatement(_ sql: RenderedSQL) throws -> Statement? {
        guard !sql.skipped, !sql.sql.isEmpty, !sql.holdsSeveralStatements else { return nil }
        do {
            let statement = try db.cachedStatement(sql.sql)
            return statement.isReadOnly ? statement : nil
        } catch let error as DatabaseError {
            throw DAOError.database(error)
        }
    }

    /// Runs `sql` on its prepared `statement` (from `soleReadOnlyStatement`); the rows, or nil
    /// when the statement returns no columns.
    func run(_ sql: RenderedSQL, on statement: Statement) throws -> [Row]? {
        let bindings = try encryptedBindings(of: sql)
        do {
            return try run(statement, bindings)
        } catch let error as DatabaseError {
            throw DAOError.database(error)
        }
    }

    /// Runs `statement`; its rows, or nil when it returns no columns.
    private func run(_ statement: Statement, _ bindings: [DatabaseValue]) throws -> [Row]? {
        if statement.columnCount > 0 {
            var rows: [Row] = []
            try statement.forEachRow(values: bindings) { rows.append($0.row()); return true }
            return rows
        }
        try statement.execute(values: bindings)
        return nil
    }

    /// Runs `sql` on its prepared `statement` (from `soleReadOnlyStatement`, returning
    /// columns) and reads only its first row, with `read` while the statement is on it; nil
    /// when there is no row. The statement only reads, so it is not stepped further: the rest
    /// of its rows could change nothing.
    func runReadingFirstRow<T>(_ sql: RenderedSQL, on statement: Statement, _ read: (Statement) throws -> T) throws -> T? {
        let bindings = try encryptedBindings(of: sql)
        var first: T?
        do {
            try statement.forEachRow(values: bindings) { row in
                first = try read(row)
                return false
            }
        } catch let error as DatabaseError {
            throw DAOError.database(error)
        }
        return first
    }

    /// The bindings of `sql`, the ones a crypt rule covers encrypted.
    private func encryptedBindings(of sql: RenderedSQL) throws -> [DatabaseValue] {
        guard !sql.encryptedBindings.isEmpty else { return sql.bindings }
        var bindings = sql.bindings
        for index in sql.encryptedBindings where bindings.indices.contains(index) {
            bindings[index] = try CryptColumn.encrypt(bindings[index], with: encryptor)
        }
        return bindings
    }

    /// True when `sql` has a `;` followed by more SQL outside quotes and comments.
    /// Scans UTF-8 bytes: every character that matters is ASCII.
    static func holdsSeveralStatements(_ sql: String) -> Bool {
        var sql = sql
        guard sql.utf8.contains(UInt8(ascii: ";")) else { return false }
        return sql.withUTF8 { chars in
            var quote: UInt8 = 0
            var sawSemicolon = false
            var i = 0
            let n = chars.count
            while i < n {
                let c = chars[i]
                if quote != 0 {
                    if c == quote { quote = 0 }
                } else if c == UInt8(ascii: "-"), i + 1 < n, chars[i + 1] == UInt8(ascii: "-") {
                    while i < n, chars[i] != UInt8(ascii: "\n") { i += 1 } // a line comment
                } else if c == UInt8(ascii: "/"), i + 1 < n, chars[i + 1] == UInt8(ascii: "*") {
                    i += 2
                    while i + 1 < n, !(chars[i] == UInt8(ascii: "*") && chars[i + 1] == UInt8(ascii: "/")) { i += 1 }
                    i += 1 // a block comment
                } else if c == UInt8(ascii: ";") {
                    sawSemicolon = true
                } else if !TextScan.isASCIIWhitespace(c) && !(c >= 0x80 && Executor.startsWhitespace(chars, at: i)) {
                    if sawSemicolon { return true }
                    if c == UInt8(ascii: "'") || c == UInt8(ascii: "\"") { quote = c }
                }
                i += 1
            }
            return false
        }
    }

    private static func startsWhitespace(_ chars: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        guard chars[i] >= 0xC0 else { return true } // a continuation byte of a sequence already judged
        let end = min(i + TextScan.sequenceLength(chars[i]), chars.count)
        return TextScan.isWhitespaceScalar(chars[i..<end])
    }
}
