import CSQLite
import Foundation

/// A prepared statement on one connection.
///
/// A statement belongs to its `Database` and is used on that connection's thread only.
/// `Database.cachedStatement(_:)` hands out statements kept across calls (persistent prepare).
/// A statement kept after its `Database` is released stays safe to use: SQLite keeps the
/// connection until its last statement is finalized, and errors are read from it through
/// the statement itself.
public final class Statement {
    let handle: OpaquePointer
    /// The SQL this statement was prepared from.
    public let sql: String
    private let path: String?
    /// The connection's busy wait, so a busy error says how long it waited.
    private let busyWait: BusyWait
    /// Whether the connection has been closed, so a statement kept past it does not run.
    private let lifetime: ConnectionLifetime
    private var cachedColumnNames: [String]?
    private var cachedColumnNamesGeneration: Int32 = 0

    /// Something a layer above derives from this statement and keeps with it, such as how
    /// its rows are turned into values (the DAO engine's row templates). Lives as long as
    /// the statement; used, like the statement, by one thread at a time. Check
    /// `preparedGeneration` before trusting what depends on the columns.
    package var attachment: AnyObject?

    init(handle: OpaquePointer, sql: String, database: Database) {
        self.handle = handle
        self.sql = sql
        self.path = database.path
        self.busyWait = database.busyWait
        self.lifetime = database.lifetime
    }

    deinit { sqlite3_finalize(handle) }

    /// How many parameters the statement has (the largest index, for `?N`).
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// True when a parameter is numbered (`?NNN`): its value is the call's value N, not the
    /// next one in line.
    public var hasNumberedParameters: Bool {
        let count = sqlite3_bind_parameter_count(handle)
        guard count > 0 else { return false }
        return (1...count).contains { index in
            guard let name = sqlite3_bind_parameter_name(handle, index), name.pointee == UInt8(ascii: "?") else { return false }
            return name.advanced(by: 1).pointee != 0
        }
    }

    /// How many columns a row of this statement has.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The names of the result columns.
    public var columnNames: [String] {
        let generation = preparedGeneration
        if let names = cachedColumnNames, cachedColumnNamesGeneration == generation { return names }
        let names = (0..<Int32(columnCount)).map { String(cString: sqlite3_column_name(handle, $0)) }
        cachedColumnNames = names
        cachedColumnNamesGeneration = generation
        return names
    }

    /// How many times SQLite has prepared this statement again (after a schema change, its
    /// columns may differ): what is derived from the columns is valid while this is unchanged.
    package var preparedGeneration: Int32 { sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0) }

    /// True when the statement does not write (SELECT, read-only PRAGMA, EXPLAIN).
    public var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    /// Resets the statement and binds `arguments` to its parameters.
    ///
    /// - throws: `DatabaseError` with `SQLITE_RANGE` when a parameter has no value, or when
    ///   positional values are given that no parameter takes.
    public func bind(_ arguments: StatementArguments) throws {
        sqlite3_reset(handle)
        let count = sqlite3_bind_parameter_count(handle)
        if arguments.named.isEmpty {
            // Positional only: parameter N takes value N, whatever its spelling.
            guard arguments.positional.count == Int(count) else {
                throw bindingError("statement has \(count) parameter(s), \(arguments.positional.count) value(s) given")
            }
            for index in 0..<Int(count) { try bind(arguments.positional[index], at: Int32(index + 1)) }
            return
        }
        for index in stride(from: Int32(1), through: count, by: 1) {
            let value: DatabaseValue
            if let cName = sqlite3_bind_parameter_name(handle, index), cName.pointee != UInt8(ascii: "?") {
                let name = String(cString: cName.advanced(by: 1))
                guard let named = arguments.named[name] else {
                    throw bindingError("no value for parameter \(String(cString: cName))")
                }
                value = named
            } else {
                guard Int(index) <= arguments.positional.count else {
                    throw bindingError("statement has \(count) parameter(s), \(arguments.positional.count) positional value(s) given")
                }
                value = arguments.positional[Int(index) - 1]
            }
            try bind(value, at: index)
        }
    }

    /// Resets the statement and binds `values` to its parameters in order: the same as
    /// `bind(StatementArguments(values))`, without building the arguments (the fast path for
    /// callers that hold positional values, such as the DAO engine binding a row per element).
    ///
    /// - throws: `DatabaseError` with `SQLITE_RANGE` when the value count differs from the
    ///   parameter count.
    package func bind(values: [DatabaseValue]) throws {
        sqlite3_reset(handle)
        try checkParameterCount(values.count)
        for index in 0..<values.count { try bind(values[index], at: Int32(index + 1)) }
    }

    /// Checks that the statement has exactly `count` parameters, as positional binding needs.
    /// - throws: `DatabaseError` with `SQLITE_RANGE` when it has another number.
    package func checkParameterCount(_ count: Int) throws {
        let parameters = Int(sqlite3_bind_parameter_count(handle))
        guard count == parameters else {
            throw bindingError("statement has \(parameters) parameter(s), \(count) value(s) given")
        }
    }

    /// Binds `value` to parameter `index` (from 1), leaving the other parameters' values as
    /// they are: the lowest-level binding, for callers that bind values as they find them
    /// (the DAO engine binding a batch's rows). The statement must not be mid-run: it is
    /// after `reset()` and after every method here that runs it; check the parameter count
    /// once with `checkParameterCount(_:)`.
    public func bind(_ value: DatabaseValue, toParameter index: Int) throws {
        try bind(value, at: Int32(index))
    }

    /// Binds `value` to parameter `index` as `bind(_:toParameter:)` does, a text or blob from
    /// `scratch` (see `BindingScratch` for the contract): its bytes are copied there and SQLite
    /// reads them in place instead of allocating a copy of its own. Bytes that do not fit
    /// are bound the copying way.
    package func bind(_ value: DatabaseValue, toParameter index: Int, scratch: inout BindingScratch) throws {
        let rc: Int32
        switch value {
        case .text(var text):
            rc = text.withUTF8 { bindBytes(UnsafeRawBufferPointer($0), at: Int32(index), asText: true, scratch: &scratch) }
        case .blob(let bytes):
            rc = bytes.withUnsafeBytes { bindBytes($0, at: Int32(index), asText: false, scratch: &scratch) }
        default:
            return try bind(value, at: Int32(index))
        }
        try check(rc)
    }

    /// Sets every parameter to NULL, dropping what the statement holds of earlier values
    /// (and any reference to a `BindingScratch`).
    public func clearBindings() { sqlite3_clear_bindings(handle) }

    /// The connection this statement runs on, as SQLite knows it (valid while the
    /// statement lives, even after its `Database` is released).
    private var connection: OpaquePointer? { sqlite3_db_handle(handle) }

    /// Binds `values` (see `bind(values:)`) and runs the statement to completion, ignoring rows.
    package func execute(values: [DatabaseValue]) throws {
        try bind(values: values)
        try executeBound()
    }

    /// Runs the statement with the values bound now to completion, ignoring rows, and
    /// resets it.
    package func executeBound() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Binds `values` (see `bind(values:)`), then calls `body` for each row; stop early by
    /// returning false.
    package func forEachRow(values: [DatabaseValue], _ body: (Statement) throws -> Bool) throws {
        try bind(values: values)
        try forEachBoundRow(body)
    }

    /// Runs the statement with the values bound now, calling `body` for each row (stop early
    /// by returning false), and resets it.
    package func forEachBoundRow(_ body: (Statement) throws -> Bool) throws {
        defer { sqlite3_reset(handle) }
        while try step() {
            if try !body(self) { break }
        }
    }

    /// Binds `count` values in order, `value(i)` to parameter `i + 1` (see `bind(values:)`),
    /// and calls `read` on the first row; returns false when there is none. The statement is
    /// reset after that row, so a lookup by key never steps further (the fast path for
    /// callers whose values are not yet in an array, such as the DAO engine's select by key).
    ///
    /// - throws: `DatabaseError` with `SQLITE_RANGE` when `count` differs from the
    ///   parameter count; what stepping or `read` throws.
    package func firstRow(bindingCount count: Int, _ value: (Int) -> DatabaseValue,
                         _ read: (Statement) throws -> Void) throws -> Bool {
        sqlite3_reset(handle)
        try checkParameterCount(count)
        for index in 0..<count { try bind(value(index), at: Int32(index + 1)) }
        var found = false
        try forEachBoundRow { row in
            try read(row)
            found = true
            return false
        }
        return found
    }

    private func bindingError(_ message: String) -> DatabaseError {
        DatabaseError(extendedCode: SQLITE_RANGE, message: message, sql: sql, path: path)
    }

    private func bind(_ value: DatabaseValue, at index: Int32) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
        case .real(let d): rc = sqlite3_bind_double(handle, index, d)
        case .text(var s): rc = s.withUTF8 { bindBytes(UnsafeRawBufferPointer($0), at: index, asText: true, copied: true) }
        case .blob(let d): rc = d.withUnsafeBytes { bindBytes($0, at: index, asText: false, copied: true) }
        }
        try check(rc)
    }

    /// Binds `bytes` as text or blob; SQLite copies them when `copied`, otherwise reads them
    /// in place until the parameter is bound again.
    @inline(__always) private func bindBytes(_ bytes: UnsafeRawBufferPointer, at index: Int32, asText: Bool, copied: Bool) -> Int32 {
        // SQLite takes a null pointer as NULL, not as an empty value.
        let start = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        let destructor = copied ? dc_sqlite_transient() : nil // nil: SQLITE_STATIC
        return asText
            ? sqlite3_bind_text(handle, index, start.assumingMemoryBound(to: CChar.self), Int32(bytes.count), destructor)
            : sqlite3_bind_blob(handle, index, start, Int32(bytes.count), destructor)
    }

    /// Binds `bytes` from `scratch` when they fit there, else copied.
    private func bindBytes(_ bytes: UnsafeRawBufferPointer, at index: Int32, asText: Bool,
                           scratch: inout BindingScratch) -> Int32 {
        guard let kept = scratch.keep(bytes, for: self) else { return bindBytes(bytes, at: index, asText: asText, copied: true) }
        return bindBytes(kept, at: index, asText: asText, copied: false)
    }

    @inline(__always) private func check(_ rc: Int32) throws {
        guard rc == SQLITE_OK else { throw DatabaseError.from(connection, code: rc, sql: sql, path: path) }
    }

    /// Advances to the next row: true when a row is available, false when done.
    ///
    /// - throws: `DatabaseError` whose `isClosed` is true when the connection was closed.
    public func step() throws -> Bool {
        if lifetime.isClosed { throw DatabaseError.closed(path: path, sql: sql) }
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = busyWait.describing(DatabaseError.from(connection, code: rc, sql: sql, path: path))
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets the statement so it can run again (bindings are kept).
    public func reset() { sqlite3_reset(handle) }

    /// The value of column `index` of the current row.
    public func value(at index: Int) -> DatabaseValue { cursor.value(at: index) }

    /// The current row's columns, read without retaining the statement: valid while the
    /// statement stays on this row.
    package var cursor: StatementCursor { StatementCursor(handle: handle) }

    /// The table and column result column `index` reads straight from, when it is one
    /// (`SELECT m.content AS c …`); nil for an expression, an aggregate, a literal.
    package func origin(ofColumn index: Int) -> (table: String, column: String)? {
        guard let table = sqlite3_column_table_name(handle, Int32(index)),
              let column = sqlite3_column_origin_name(handle, Int32(index)) else { return nil }
        return (String(cString: table), String(cString: column))
    }

    /// The byte length of column `index` of the current row, without reading its value.
    package func byteCount(at index: Int) -> Int { Int(sqlite3_column_bytes(handle, Int32(index))) }

    /// The current row, all columns.
    public func row() -> Row {
        Row(columnNames: columnNames, values: (0..<columnCount).map { value(at: $0) })
    }

    /// Binds `arguments` and runs the statement to completion, ignoring rows.
    public func execute(_ arguments: StatementArguments = .none) throws {
        try bind(arguments)
        try executeBound()
    }

    /// Binds `arguments`, then calls `body` for each row; stop early by returning false.
    public func forEachRow(_ arguments: StatementArguments = .none, _ body: (Statement) throws -> Bool) throws {
        try bind(arguments)
        try forEachBoundRow(body)
    }

    /// Binds `arguments` and returns every row.
    public func fetchAll(_ arguments: StatementArguments = .none) throws -> [Row] {
        var rows: [Row] = []
        try forEachRow(arguments) { rows.append($0.row()); return true }
        return rows
    }
}
