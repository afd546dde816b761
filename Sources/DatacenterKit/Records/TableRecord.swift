/// A `Codable` type stored as one row of a table: each stored property is a column
/// (CTPersistance's record and table, Android's OrmLite `getDao(User.class)`).
///
/// A property is one column when it is an `Int`, `Int64`, `Int32`, `Double`, `String`,
/// `Data`, `Bool` (0/1) or `Date` (REAL seconds since 1970), or an optional of one (NULL).
/// Any other (nested) `Codable` value is stored as JSON text in its column.
///
/// The table's columns are declared by the record (`columns`), not guessed by encoding a
/// sample: a sample's nil optionals would give no type, and the declaration is where a
/// column's SQL type and constraints are said honestly.
///
/// For example:
/// ```swift
/// struct User: TableRecord {
///     static let tableName = "user"
///     static let primaryKey = "id"
///     static let columns: [RecordColumn] = [.init("id", "INTEGER"), .init("name", "TEXT NOT NULL")]
///     var id: Int64?
///     var name: String
/// }
/// try store.queue.write { db in
///     try User.createTable(db)
///     let id = try User(id: nil, name: "ann").insert(db)
/// }
/// ```
public protocol TableRecord: Codable {
    /// The table's name.
    static var tableName: String { get }
    /// The single primary-key column. When its declared type is `INTEGER` it is the rowid:
    /// a nil key is chosen by SQLite on insert (autoincrement) and returned.
    static var primaryKey: String { get }
    /// The columns, in table order, with their SQL types (`createTable` uses them).
    static var columns: [RecordColumn] { get }
}

/// One column of a record's table: its name and its SQL type with any constraint.
public struct RecordColumn: Sendable, Equatable {
    /// The column name (a coding key of the record).
    public let name: String
    /// The SQL type and constraints, such as `TEXT NOT NULL` or `INTEGER DEFAULT 0`.
    public let definition: String

    /// A column `name` of `definition` (a type, constraints allowed).
    public init(_ name: String, _ definition: String) {
        self.name = name
        self.definition = definition
    }
}
