/// Why a record could not be read, written or found.
public enum RecordError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The row has no column the record needs.
    case missingColumn(String, record: String)
    /// The column holds a value the property cannot take (`found` is its storage class).
    case typeMismatch(column: String, record: String, expected: String, found: String)
    /// No row has that primary key (`update`).
    case noSuchRow(table: String, key: DatabaseValue)
    /// A shape a record cannot have (a property that is not keyed, for example).
    case unsupported(String, record: String)

    /// A sentence naming the column and the record type.
    public var description: String {
        switch self {
        case let .missingColumn(column, record): return "\(record): the row has no column \"\(column)\""
        case let .typeMismatch(column, record, expected, found):
            return "\(record).\(column): expected \(expected), the column holds \(found)"
        case let .noSuchRow(table, key): return "no row of \(table) has the key \(key)"
        case let .unsupported(what, record): return "\(record): \(what)"
        }
    }
}
