import DatacenterKit

/// One SQL statement as rendered for a call: what the executor runs, exactly, and what a
/// browser shows.
///
/// For example, `select * from ${T} where id = #{id} and name = @{name}` with id 7 and name
/// "ann" renders `sql` `select * from t where id = ? and name = 'ann'`, `bindings` `[7]`
/// and `preview` `select * from t where id = 7 and name = ⟦'ann'⟧`.
public struct RenderedSQL: Sendable, Equatable {
    /// The SQL with `?` for each bound value.
    public let sql: String
    /// The bound values, in placeholder order.
    public let bindings: [DatabaseValue]
    /// The SQL with each bound value written in as a SQL literal and each `@{}`-inlined value
    /// wrapped in `⟦ ⟧`; a value that will be encrypted is followed by `/*encrypted*/`.
    /// For people only: it is never run.
    public let preview: String
    /// Indices into `bindings` of values a `<crypt>` rule covers: the executor encrypts them
    /// before binding (rendering stays pure, and the preview shows the plaintext).
    public let encryptedBindings: [Int]
    /// True when a `where`/`set`/`trim` with `onVoid="quit"` rendered empty: nothing runs and
    /// the call succeeds.
    public let skipped: Bool
    /// Where the rendered body starts in the config.
    public let location: SourceLocation?

    public init(sql: String, bindings: [DatabaseValue], preview: String, encryptedBindings: [Int] = [],
                skipped: Bool = false, location: SourceLocation? = nil) {
        self.sql = sql
        self.bindings = bindings
        self.preview = preview
        self.encryptedBindings = encryptedBindings
        self.skipped = skipped
        self.location = location
    }

    /// A statement that does not run (`onVoid="quit"`).
    public static func skipped(at location: SourceLocation?) -> RenderedSQL {
        RenderedSQL(sql: "", bindings: [], preview: "", skipped: true, location: location)
    }
}

/// One `<step>` of a rendered body.
public struct RenderedStep: Sendable, Equatable {
    /// True when a failure of this step is skipped rather than failing the method.
    public let resumable: Bool
    /// The step's SQL.
    public let statement: RenderedSQL
}

/// The rendered shape of a method body: one statement, steps, or try/except.
public indirect enum RenderedBody: Sendable, Equatable {
    /// One statement.
    case statement(RenderedSQL)
    /// Steps, run in order in one transaction.
    case steps([RenderedStep])
    /// Run `attempt`; when it fails, run `fallback`; fail only when both fail.
    case tryExcept(attempt: RenderedBody, fallback: RenderedBody)

    /// Every statement, in order (both branches of a try).
    public var statements: [RenderedSQL] {
        switch self {
        case .statement(let s): return [s]
        case .steps(let steps): return steps.map(\.statement)
        case .tryExcept(let a, let b): return a.statements + b.statements
        }
    }
}

/// A whole rendered call: one body, or one per element for a method-level `foreach`.
public struct RenderedCall: Sendable, Equatable {
    /// The method's id.
    public let methodID: String
    /// select, insert, update or delete.
    public let kind: DAOMethodKind
    /// One body per run: exactly one, or one per `foreach` element (possibly none).
    public let runs: [RenderedBody]
    /// True when the method has a method-level `foreach` (a select then returns an array
    /// with one result per element).
    public let isForEach: Bool

    /// Every statement of every run, in order.
    public var statements: [RenderedSQL] { runs.flatMap(\.statements) }
}
