import DatacenterKit

/// How a select by key binds its call's arguments, when it can skip rendering entirely.
///
/// A method qualifies when its body is one static statement (text, `${T}` and `#{}` only)
/// with no method-level foreach, it is not `parallel`, its result is one value read from the
/// first row (`ResultMapper.readsFirstRowDirectly`), and every `#{}` names one of its own
/// arguments, without chained access. What `Renderer` binds for such a call is then exactly
/// the arguments in this order (a `#{}` of one name is never encrypted: crypt rules name a
/// model's property), so the SQL, the statement and the way the row becomes a value are the
/// same for every call on a table.
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
    /// The result type (one value of the first row).
    let result: DAOResultType

    /// The plan of `method`, or nil when it does not qualify.
    init?(arguments: [DAOArgumentSpec], result: DAOResultType?, forEach: DAOForEachSpec?,
          isParallel: Bool, staticPlan: StaticStatementPlan?) {
        guard forEach == nil, !isParallel, let staticPlan, let result, ResultMapper.readsFirstRowDirectly(result) else { return nil }
        var bindings: [Binding] = []
        for reference in staticPlan.references {
            guard reference.path.count == 1, var name = reference.path.first else { return nil }
            if name.hasPrefix("$") { name.removeFirst() } // as `DAOScope.lookup` reads it
            // The last argument of the name wins, as in `DAOScope`; a name no argument has
            // is a global, which this plan does not read.
            guard let argument = arguments.lastIndex(where: { $0.name == name }) else { return nil }
            bindings.append(Binding(argument: argument, nilAsEmpty: reference.nilAsEmpty))
        }
        self.bindings = bindings
        self.result = result
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

    /// Keeps `statement` (prepared from the method's SQL for `table`) when it only reads and
    /// returns columns; nil otherwise (the general path runs such a call).
    init?(method: DAOMethod, plan: KeptReadPlan, table: String, statement: Statement) {
        guard statement.isReadOnly, statement.columnCount > 0 else { return nil }
        self.method = method
        self.plan = plan
        self.table = table
        self.statement = statement
    }

    /// The call's result: the first row's value as `ResultMapper.mapFirstRow` reads it, or
    /// `.nil` when no row matches. Arguments are already checked (`checkArguments`).
    /// - throws: `DatabaseError`.
    func run(_ arguments: [DAOValue]) throws -> DAOValue {
        let bindings = plan.bindings
        var value = DAOValue.nil
        _ = try statement.firstRow(bindingCount: bindings.count, { index in
            let binding = bindings[index]
            let argument = arguments[binding.argument]
            return argument.isNil && binding.nilAsEmpty ? .text("") : argument.databaseValue
        }, { value = ResultMapper.mapFirstRow(of: $0, as: plan.result) })
        return value
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
