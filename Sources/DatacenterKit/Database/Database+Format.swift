import CSQLite

extension Database {
    /// Runs `format` with its format specifiers bound to `values`, as DBConnect's
    /// `executeUpdate:error:, ...` takes NSLog specifiers: each `%@`, `%d`, `%f`, `%s`… in
    /// the SQL text becomes a `?` and the value in its place is bound, never written into
    /// the text. `%%` is a `%`; a `%` inside a string literal, a quoted identifier or a
    /// comment is text (`LIKE '%x%'`).
    ///
    /// For example: `try db.execute(format: "INSERT INTO test VALUES (%s, %@, %f, %d)", "City", "Denver", 40.2338, -76)`.
    /// - throws: `DatabaseError` (`SQLITE_MISMATCH`) when a value does not fit its
    ///   specifier (`%d` takes an integer, `%f` a number), or the values are more or fewer
    ///   than the specifiers (`SQLITE_RANGE`); what running the SQL throws.
    public func execute(format: String, _ values: DatabaseValue...) throws {
        let (sql, arguments) = try FormatBinding.bind(format, values, path: path)
        try execute(sql, StatementArguments(arguments))
    }

    /// Every row of `format` with its format specifiers bound to `values`
    /// (`execute(format:_:)`), as DBConnect's `executeQuery:error:, ...`.
    /// - throws: as `execute(format:_:)`.
    public func query(format: String, _ values: DatabaseValue...) throws -> [Row] {
        let (sql, arguments) = try FormatBinding.bind(format, values, path: path)
        return try query(sql, StatementArguments(arguments))
    }
}

/// NSLog format specifiers in SQL text, turned into bound parameters.
enum FormatBinding {
    /// `format` with each specifier outside quotes and comments replaced by `?`, and the
    /// values to bind, checked against their specifiers.
    static func bind(_ format: String, _ values: [DatabaseValue], path: String) throws -> (sql: String, arguments: [DatabaseValue]) {
        var sql = ""
        var arguments: [DatabaseValue] = []
        var quote: Character?           // the character that ends the quoted text or comment
        var characters = Array(format)[...]
        func fail(_ code: Int32, _ message: String) -> DatabaseError {
            DatabaseError(extendedCode: code, message: message, sql: format, path: path)
        }
        while let c = characters.popFirst() {
            if let end = quote {
                sql.append(c)
                if end == "/" { if c == "*", characters.first == "/" { sql.append(characters.removeFirst()); quote = nil } }
                else if c == end { quote = nil }
                continue
            }
            switch c {
            case "'", "\"", "`": quote = c; sql.append(c); continue
            case "[": quote = "]"; sql.append(c); continue
            case "-" where characters.first == "-": quote = "\n"; sql.append(c); continue
            case "/" where characters.first == "*": quote = "/"; sql.append(c); sql.append(characters.removeFirst()); continue
            case "%": break
            default: sql.append(c); continue
            }
            if characters.first == "%" { characters.removeFirst(); sql.append("%"); continue }
            var length = ""
            while let m = characters.first, "hlqLztj".contains(m) { length.append(m); characters.removeFirst() }
            guard let conversion = characters.popFirst() else { throw fail(SQLITE_MISUSE, "a format specifier is cut short at the end") }
            let spec = "%" + length + String(conversion)
            guard arguments.count < values.count else {
                throw fail(SQLITE_RANGE, "\(spec) (specifier \(arguments.count + 1)) has no value: \(values.count) given")
            }
            let value = values[arguments.count]
            switch conversion {
            case "d", "D", "i", "u", "U", "x", "X", "o", "O", "c", "C":
                guard case .integer = value else {
                    throw fail(SQLITE_MISMATCH, "\(spec) (specifier \(arguments.count + 1)) takes an integer, given \(value.storageClassName)")
                }
                arguments.append(value)
            case "f", "F", "e", "E", "g", "G", "a", "A":
                switch value {
                case .real: arguments.append(value)
                case .integer(let i): arguments.append(.real(Double(i)))
                default:
                    throw fail(SQLITE_MISMATCH, "\(spec) (specifier \(arguments.count + 1)) takes a number, given \(value.storageClassName)")
                }
            case "@", "s", "S":
                arguments.append(value)
            default:
                throw fail(SQLITE_MISUSE, "\(spec) is not a format specifier a value can be bound for (use %@, %d, %f or %s)")
            }
            sql.append("?")
        }
        guard arguments.count == values.count else {
            throw fail(SQLITE_RANGE, "\(values.count) value(s) given for \(arguments.count) format specifier(s)")
        }
        return (sql, arguments)
    }
}
