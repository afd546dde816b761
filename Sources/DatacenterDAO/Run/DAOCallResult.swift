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
    /// The statements that ran, as rendered (a browser's history). A call that ran many
    /// statements of one shape (a foreach insert) builds them only when this is read.
    public var statements: [RenderedSQL] { history.statements }

    let history: History

    /// The statements that ran, or how to build them.
    enum History: Sendable {
        /// The statements, as rendered.
        case list([RenderedSQL])
        /// The one statement of a call that ran one statement alone, rendered again on
        /// demand (rendering is pure; `textCache` gives the very text that ran): a read is
        /// not slowed by copying what only a browser's history reads.
        case oneStatement(DAOCall, textCache: RenderedTextCache?)
        /// Built on demand (rendering is pure, so they are what the call ran).
        case deferred(@Sendable () -> [RenderedSQL])
        /// The statement of a `KeptRead` call, rendered on demand.
        case keptRead(DAOMethod, [DAOValue], table: String)
        /// None kept: a typed read's (`fetch` returns its rows, never its result, and a
        /// one-statement call, which holds the closures reading the rows, must not outlive
        /// the read).
        case notKept

        var statements: [RenderedSQL] {
            switch self {
            case .list(let statements): return statements
            case .oneStatement(let call, let textCache): return (try? call.renderStatement(textCache: textCache)).map { [$0] } ?? []
            case .deferred(let build): return build()
            case .keptRead(let method, let arguments, let table): return KeptRead.rendered(method, arguments: arguments, table: table)
            case .notKept: return []
            }
        }
    }

    init(value: DAOValue, objects: [any Sendable], changes: Int, lastInsertRowID: Int64, skipped: Bool, history: History) {
        self.value = value
        self.objects = objects
        self.changes = changes
        self.lastInsertRowID = lastInsertRowID
        self.skipped = skipped
        self.history = history
    }

    init(value: DAOValue, objects: [any Sendable], changes: Int, lastInsertRowID: Int64, skipped: Bool, statements: [RenderedSQL]) {
        self.init(value: value, objects: objects, changes: changes, lastInsertRowID: lastInsertRowID, skipped: skipped,
                  history: .list(statements))
    }
}
