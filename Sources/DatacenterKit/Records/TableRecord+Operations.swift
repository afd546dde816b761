/// Create, read, update and delete for records, on a `Database` (reach one with
/// `store.queue.write { db in … }`). Every value is bound, never spliced; names are quoted.
extension TableRecord {
    private static var table: String { Database.quoteIdentifier(tableName) }
    private static var key: String { Database.quoteIdentifier(primaryKey) }

    /// True when the primary key is the rowid (declared `INTEGER`), so SQLite picks it.
    private static var keyIsRowID: Bool {
        columns.first { $0.name == primaryKey }?.definition.uppercased().hasPrefix("INTEGER") ?? false
    }

    /// The record's values for every declared column, NULL for those it left out.
    private func columnValues() throws -> [(name: String, value: DatabaseValue)] {
        let encoded = try RecordEncoder.encode(self)
        return Self.columns.map { ($0.name, encoded[$0.name] ?? .null) }
    }

    /// The record's primary-key value.
    public func primaryKeyValue() throws -> DatabaseValue {
        try RecordEncoder.encode(self)[Self.primaryKey] ?? .null
    }

    /// Creates the table from `columns`, the primary key marked `PRIMARY KEY`.
    public static func createTable(_ db: Database, ifNotExists: Bool = true) throws {
        let definitions = columns.map { column in
            Database.quoteIdentifier(column.name) + " " + column.definition + (column.name == primaryKey ? " PRIMARY KEY" : "")
        }
        try db.execute("CREATE TABLE \(ifNotExists ? "IF NOT EXISTS " : "")\(table) (\(definitions.joined(separator: ", ")))")
    }

    /// Drops the table.
    public static func dropTable(_ db: Database, ifExists: Bool = true) throws {
        try db.execute("DROP TABLE \(ifExists ? "IF EXISTS " : "")\(table)")
    }

    /// Creates an index `name` on `indexColumns`.
    public static func createIndex(_ db: Database, named name: String, on indexColumns: [String], unique: Bool = false) throws {
        let list = indexColumns.map(Database.quoteIdentifier).joined(separator: ", ")
        try db.execute("CREATE \(unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(Database.quoteIdentifier(name)) ON \(table) (\(list))")
    }

    /// Drops the index `name`.
    public static func dropIndex(_ db: Database, named name: String) throws {
        try db.execute("DROP INDEX IF EXISTS \(Database.quoteIdentifier(name))")
    }

    /// Inserts the record and returns its key's rowid: the key SQLite chose when the key is
    /// an `INTEGER` left nil.
    /// - throws: `DatabaseError` (`SQLITE_CONSTRAINT`) when the key exists already.
    @discardableResult
    public func insert(_ db: Database) throws -> Int64 {
        var values = try columnValues()
        if Self.keyIsRowID { values.removeAll { $0.name == Self.primaryKey && $0.value.isNull } }
        let names = values.map { Database.quoteIdentifier($0.name) }.joined(separator: ", ")
        let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
        try db.execute("INSERT INTO \(Self.table) (\(names)) VALUES (\(marks))", StatementArguments(values.map(\.value)))
        return db.lastInsertRowID
    }

    /// Updates the row with the record's key.
    /// - throws: `RecordError.noSuchRow` when no row has that key.
    public func update(_ db: Database) throws {
        let values = try columnValues()
        let keyValue = values.first { $0.name == Self.primaryKey }?.value ?? .null
        let others = values.filter { $0.name != Self.primaryKey }
        let sets = others.map { Database.quoteIdentifier($0.name) + " = ?" }.joined(separator: ", ")
        try db.execute("UPDATE \(Self.table) SET \(sets) WHERE \(Self.key) = ?", StatementArguments(others.map(\.value) + [keyValue]))
        if db.changes == 0 { throw RecordError.noSuchRow(table: Self.tableName, key: keyValue) }
    }

    /// Inserts the record, or updates the row with its key (`INSERT … ON CONFLICT DO UPDATE`).
    public func upsert(_ db: Database) throws {
        let values = try columnValues()
        let names = values.map { Database.quoteIdentifier($0.name) }
        let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
        let sets = values.filter { $0.name != Self.primaryKey }
            .map { "\(Database.quoteIdentifier($0.name)) = excluded.\(Database.quoteIdentifier($0.name))" }
        let action = sets.isEmpty ? "NOTHING" : "UPDATE SET " + sets.joined(separator: ", ")
        try db.execute("INSERT INTO \(Self.table) (\(names.joined(separator: ", "))) VALUES (\(marks)) ON CONFLICT(\(Self.key)) DO \(action)",
                       StatementArguments(values.map(\.value)))
    }

    /// Deletes the row with the record's key; returns false when there was none.
    @discardableResult
    public func delete(_ db: Database) throws -> Bool {
        try Self.delete(db, key: primaryKeyValue())
    }

    /// Deletes the row with `key`; returns false when there was none.
    @discardableResult
    public static func delete(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        try db.execute("DELETE FROM \(table) WHERE \(self.key) = ?", [key.databaseValue])
        return db.changes > 0
    }

    /// The record with primary key `key`, or nil.
    public static func find(_ db: Database, key: some DatabaseValueConvertible) throws -> Self? {
        try db.queryFirst("SELECT * FROM \(table) WHERE \(self.key) = ?", [key.databaseValue])
            .map { try RecordDecoder.decode(Self.self, from: $0) }
    }

    /// The records matching `condition` (a bound `SQL` fragment, every row when nil), in
    /// `order` (such as `"\(identifier: "name") DESC"`).
    ///
    /// For example: `try User.fetchAll(db, where: "age > \(minimum)", orderBy: "name")`.
    public static func fetchAll(_ db: Database, where condition: SQL? = nil, orderBy order: SQL? = nil) throws -> [Self] {
        var sql: SQL = "SELECT * FROM \(identifier: tableName)"
        if let condition { sql.append(" WHERE " + condition) }
        if let order { sql.append(" ORDER BY " + order) }
        return try db.query(sql).map { try RecordDecoder.decode(Self.self, from: $0) }
    }

    /// How many rows match `condition` (every row when nil).
    public static func count(_ db: Database, where condition: SQL? = nil) throws -> Int {
        var sql: SQL = "SELECT count(*) FROM \(identifier: tableName)"
        if let condition { sql.append(" WHERE " + condition) }
        return Int(try db.scalar(sql)?.int64Value ?? 0)
    }
}
