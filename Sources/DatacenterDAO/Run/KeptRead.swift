import DatacenterKit

/// How a select by key binds its call's arguments, when it can skip rendering entirely
/// (`DAOCallPlan.keptRead`).
///
/// A method qualifies when its body is one static statement (text, `${T}` and `#{}` only)
/// with no method-level foreach, it is not `parallel`, its result is a single row's value
/// (not an array), and every `#{}` names one of its own arguments, without chained access.
/// What `Renderer` binds for such a call is then exactly the arguments in this order (a
/// `#{}` of one name is never encrypted: crypt rules name a model's property), so the SQL,
/// the statement and the way the row becomes a value are the same for every call on a table.
struct KeptReadPlan: Sendable {
    /// What one placeholder binds.
    struct Binding: Sendable {
        /// The position of the argument among the call's arguments.
        let argument: Int
        /// `or ""`: a nil argument binds an empty string.
        let nilAsEmpty: Bool
    }

    /// The placeholders' values, in order.
    let bindings: [Binding]
    /// The result type (one row's value).
    let result: DAOResultType

    /// The plan of a method of this shape, or nil when it does not qualify.
    init?(arguments: [DAOArgumentSpec], result: DAOResultType?, forEach: DAOForEachSpec?,
          isParallel: Bool, staticPlan: StaticStatementPlan?) {
        guard forEach == nil, !isParallel, let staticPlan, let result, !result.isArray else { return nil }
        var bindings: [Binding] = []
        for reference in staticPlan.references {
            // The argument `DAOScope.lookup` finds for the reference; a name no argument has
            // is a global (or chained access), which this plan does not read.
            guard let argument = DAOScope.argumentIndex(of: reference.path, among: arguments) else { return nil }
            bindings.append(Binding(argument: argument, nilAsEmpty: reference.nilAsEmpty))
        }
        self.bindings = bindings
        self.result = result
    }

    /// The value of binding `index` for a call with `arguments`: what `Renderer` binds.
    @inline(__always) func value(_ index: Int, of arguments: [DAOValue]) -> DatabaseValue {
        let binding = bindings[index]
        let argument = arguments[binding.argument]
        return argument.isNil && binding.nilAsEmpty ? .text("") : argument.databaseValue
    }
}

/// A select by key kept ready by one DAO object: the statement of a `KeptReadPlan` method
/// on one table, prepared on the object's connection by the first call. Later calls bind
/// their arguments to it and read the first row, with no rendering, statement-cache lookup
/// or transaction (SQLite runs one read-only statement atomically by itself).
///
/// Used only on the connection's queue, like the statement it holds.
final class KeptRead {
    let method: DAOMethod
    let plan: KeptReadPlan
    /// The table name `${T}` was rendered with.
    let table: String
    private let statement: Statement
    /// The layout of the statement's rows (`{}`, model and map results).
    // Read and written only by `run`, under the store's write lock.
    private var layout: RowLayout?

    /// Keeps `statement` (prepared from the method's SQL for `table`) when it only reads and
    /// returns columns; nil otherwise (such a call runs as `DAOCallPlan.oneStatement`).
    init?(method: DAOMethod, plan: KeptReadPlan, table: String, statement: Statement) {
        guard statement.isReadOnly, statement.columnCount > 0 else { return nil }
        self.method = method
        self.plan = plan
        self.table = table
        self.statement = statement
    }

    /// The call's result and decoded objects: the first row mapped by `mapper` as the
    /// general path maps it, or `.nil` when no row matches. Arguments are already checked
    /// (`checkArguments`). With `typedRows`, the row is decoded there (the value is `.nil`).
    /// - throws: `DatabaseError`; what mapping the row throws.
    func run(_ arguments: [DAOValue], mapper: ResultMapper, typedRows: TypedRows? = nil) throws -> (DAOValue, [any Sendable]) {
        let plan = self.plan
        var value = DAOValue.nil
        _ = try statement.firstRow(bindingCount: plan.bindings.count, { plan.value($0, of: arguments) }, { row in
            value = try mapper.value(of: row, as: plan.result.element, layout: &layout, typedRows: typedRows)
        })
        guard let name = value.modelTypeName, let decoder = mapper.registry.decoder(named: name) else { return (value, []) }
        return (value, [try DAOModelRegistry.decode(value, as: name, with: decoder)])
    }

    /// The statement a call with `arguments` ran, as `Renderer` renders it (for the result's
    /// history, built only when read).
    static func rendered(_ method: DAOMethod, arguments: [DAOValue], table: String) -> [RenderedSQL] {
        // The call ran, so rendering succeeds; its `#{}` read arguments only, so no globals or
        // crypt rules change what renders.
        guard let sql = try? Renderer.renderStaticStatement(method, arguments: arguments, globals: [:], tableName: table,
                                                            cryptRules: []) else { return [] }
        return [sql]
    }
}

extension Statement {
    /// The row layout kept with this statement for the results of `method`, if any.
    ///
    /// Layouts are kept as the statement's `attachment` (a statement is used by one thread
    /// at a time, so this needs no lock), a few per statement (one per method sharing its
    /// SQL). A layout names the columns it was made for and is checked against the row's
    /// before use, so a statement SQLite prepared again with other columns gets a new one.
    func keptLayout(for method: DAOMethod) -> RowLayout? {
        guard let kept = attachment as? KeptLayouts else { return nil }
        for entry in kept.entries where entry.method === method { return entry.layout }
        return nil
    }

    /// Keeps `layout` for the results of `method` (nothing when nil).
    func keep(_ layout: RowLayout?, for method: DAOMethod) {
        guard let layout else { return }
        let kept: KeptLayouts
        if let existing = attachment as? KeptLayouts {
            kept = existing
        } else {
            kept = KeptLayouts()
            attachment = kept
        }
        if let index = kept.entries.firstIndex(where: { $0.method === method }) {
            if kept.entries[index].layout !== layout { kept.entries[index].layout = layout }
            return
        }
        if kept.entries.count >= KeptLayouts.limit { kept.entries.removeFirst() }
        kept.entries.append((method, layout))
    }
}

/// The row layouts kept with one statement, by method.
private final class KeptLayouts {
    static let limit = 4
    /// Read and written only by the thread using the statement.
    var entries: [(method: DAOMethod, layout: RowLayout)] = []
}
