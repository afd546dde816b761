/// SQL text whose interpolated values are bound as `?` arguments, never spliced into the text.
///
/// `"… \(value) …"` adds a `?` to the text and `value` to the arguments, so a value holding
/// `'; DROP TABLE x; --` is only ever data. `\(identifier: name)` splices a table or column
/// name quoted as an identifier (each `"` doubled). `\(raw: text)` splices text as it is: the
/// only unsafe form, for SQL the program itself wrote (never user input).
///
/// For example:
/// ```swift
/// let name = "ann'; DROP TABLE user; --"
/// try db.execute("INSERT INTO \(identifier: "user")(name) VALUES (\(name))")
/// let rows = try db.query("SELECT * FROM user WHERE name = \(name) ORDER BY \(raw: "id")")
/// ```
public struct SQL: Sendable, Equatable, ExpressibleByStringInterpolation {
    /// The SQL text, with a `?` for each bound value.
    public private(set) var text: String
    /// The values bound to the text's `?`s, in order.
    public private(set) var arguments: [DatabaseValue]

    /// SQL `text` with positional `arguments` for its `?`s.
    public init(_ text: String = "", arguments: [DatabaseValue] = []) {
        self.text = text
        self.arguments = arguments
    }

    /// A literal with no interpolation: the text as written.
    public init(stringLiteral value: String) { self.init(value) }

    /// A literal with interpolations, built by `Interpolation`.
    public init(stringInterpolation: Interpolation) {
        self.init(stringInterpolation.text, arguments: stringInterpolation.arguments)
    }

    /// Appends `other`, text and arguments.
    public mutating func append(_ other: SQL) {
        text += other.text
        arguments += other.arguments
    }

    /// `self` followed by `other`.
    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        var result = lhs
        result.append(rhs)
        return result
    }

    /// Builds `SQL` from a string literal's pieces.
    public struct Interpolation: StringInterpolationProtocol {
        var text = ""
        var arguments: [DatabaseValue] = []

        /// Room for the literal's pieces.
        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount)
            arguments.reserveCapacity(interpolationCount)
        }

        /// The literal's own text, as written.
        public mutating func appendLiteral(_ literal: String) { text += literal }

        /// A value, bound as a `?` argument (nil is NULL).
        public mutating func appendInterpolation(_ value: some DatabaseValueConvertible) {
            text += "?"
            arguments.append(value.databaseValue)
        }

        /// An optional value, bound as a `?` argument; nil binds NULL.
        public mutating func appendInterpolation(_ value: (some DatabaseValueConvertible)?) {
            text += "?"
            arguments.append(value?.databaseValue ?? .null)
        }

        /// Another `SQL`, its text spliced and its arguments kept in order (a condition
        /// built elsewhere).
        public mutating func appendInterpolation(_ sql: SQL) {
            text += sql.text
            arguments += sql.arguments
        }

        /// A table, column or index name, quoted as an identifier (`my "t"` becomes `"my ""t"""`).
        public mutating func appendInterpolation(identifier name: String) {
            text += Database.quoteIdentifier(name)
        }

        /// Text spliced as it is. Unsafe: only for SQL the program wrote itself, never for
        /// a value that came from outside (bind those with `\(value)`).
        public mutating func appendInterpolation(raw text: String) {
            self.text += text
        }
    }
}

extension Database {
    /// Runs `sql` with its bound values (see `SQL`).
    ///
    /// For example: `try db.execute("DELETE FROM t WHERE name = \(name)")`.
    public func execute(_ sql: SQL) throws {
        try execute(sql.text, StatementArguments(sql.arguments))
    }

    /// Every row of `sql`, with its bound values.
    public func query(_ sql: SQL) throws -> [Row] {
        try query(sql.text, StatementArguments(sql.arguments))
    }

    /// The first column of the first row of `sql`, or nil when there is no row.
    public func scalar(_ sql: SQL) throws -> DatabaseValue? {
        try scalar(sql.text, StatementArguments(sql.arguments))
    }
}
