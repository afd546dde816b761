/// The outcome of a successful DAO call (a failed call throws `DAOError`).
public struct DAOCallResult: Sendable {
    /// The mapped result of a select with a `result` attribute: a scalar, a dictionary, a
    /// model (`.model(typeName, fields)`), an array of those, or nil when a single-row result
    /// finds no row. For a method-level foreach, an array with one result per element.
    /// `.nil` for calls without a result.
    public let value: DAOValue
    /// The decoded instances when the result names a registered model type (one per row;
    /// for a single-row result, zero or one). Empty otherwise.
    public let objects: [any Sendable]
    /// Rows changed by the call, all statements together.
    public let changes: Int
    /// `sqlite3_last_insert_rowid()` after the call.
    public let lastInsertRowID: Int64
    /// True when `onVoid="quit"` skipped every statement.
    public let skipped: Bool
    /// The statements that ran, as rendered (a browser's history).
    public let statements: [RenderedSQL]
}
