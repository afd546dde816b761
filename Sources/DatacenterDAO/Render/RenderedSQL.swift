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
    /// For people only: it is never run. Built when asked for, so calls that are only run
    /// never pay for it.
    public var preview: String { explicitPreview ?? marks.preview(of: sql, bindings: bindings, encrypted: encryptedBindings) }
    /// Indices into `bindings` of values a `<crypt>` rule covers: the executor encrypts them
    /// before binding (rendering stays pure, and the preview shows the plaintext).
    public let encryptedBindings: [Int]
    /// True when a `where`/`set`/`trim` with `onVoid="quit"` rendered empty: nothing runs and
    /// the call succeeds.
    public let skipped: Bool
    /// Where the rendered body starts in the config.
    public let location: SourceLocation?
    private let explicitPreview: String?
    /// Where the placeholders and inlined values are, for the preview.
    let marks: PreviewMarks

    /// A statement with its preview given.
    public init(sql: String, bindings: [DatabaseValue], preview: String, encryptedBindings: [Int] = [],
                skipped: Bool = false, location: SourceLocation? = nil) {
        self.sql = sql
        self.bindings = bindings
        self.explicitPreview = preview
        self.marks = PreviewMarks()
        self.encryptedBindings = encryptedBindings
        self.skipped = skipped
        self.location = location
    }

    /// A rendered statement whose preview is built from `marks` when asked for.
    init(sql: String, bindings: [DatabaseValue], marks: PreviewMarks, encryptedBindings: [Int], location: SourceLocation?) {
        self.sql = sql
        self.bindings = bindings
        self.explicitPreview = nil
        self.marks = marks
        self.encryptedBindings = encryptedBindings
        self.skipped = false
        self.location = location
    }

    /// Equal when they run the same: same SQL, bindings, encryption, skip and location, and
    /// the same preview.
    public static func == (a: RenderedSQL, b: RenderedSQL) -> Bool {
        a.sql == b.sql && a.bindings == b.bindings && a.encryptedBindings == b.encryptedBindings && a.skipped == b.skipped
            && a.location == b.location && a.preview == b.preview
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

    /// The statement, when the call is exactly one (no foreach, steps or try).
    var soleStatement: RenderedSQL? {
        guard !isForEach, runs.count == 1, case .statement(let sql) = runs[0] else { return nil }
        return sql
    }
}

/// Where a rendered statement's placeholders and inlined values are (UTF-8 offsets into its
/// SQL): enough to build the preview later.
struct PreviewMarks: Sendable {
    /// The offset of each binding's `?`, in binding order.
    var placeholders: [Int] = []
    /// The byte ranges of `@{}`-inlined values.
    var inlined: [Range<Int>] = []

    func preview(of sql: String, bindings: [DatabaseValue], encrypted: [Int]) -> String {
        guard !placeholders.isEmpty || !inlined.isEmpty else { return sql }
        let bytes = Array(sql.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 32 * bindings.count)
        var position = 0
        var p = 0, q = 0
        let encryptedSet = Set(encrypted)
        while p < placeholders.count || q < inlined.count {
            let nextPlaceholder = p < placeholders.count ? placeholders[p] : Int.max
            let nextInlined = q < inlined.count ? inlined[q].lowerBound : Int.max
            if nextPlaceholder < nextInlined {
                out += bytes[position..<nextPlaceholder]
                if p < bindings.count { out += bindings[p].description.utf8 }
                if encryptedSet.contains(p) { out += "/*encrypted*/".utf8 }
                position = nextPlaceholder + 1
                p += 1
            } else {
                let range = inlined[q]
                out += bytes[position..<range.lowerBound]
                out += "⟦".utf8
                out += bytes[range]
                out += "⟧".utf8
                position = range.upperBound
                q += 1
            }
        }
        out += bytes[position...]
        return String(decoding: out, as: UTF8.self)
    }
}
