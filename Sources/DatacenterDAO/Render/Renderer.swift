import DatacenterKit

/// Renders methods into SQL: a pure function of (method, arguments, global arguments, table
/// name). The executor runs exactly what this returns; a browser previews exactly the same.
///
/// For example:
/// ```swift
/// let call = try Renderer.render(config.method("find", arity: 2), arguments: [7, 2014],
///                                tableName: "messages", cryptRules: config.cryptRules)
/// call.statements[0].sql       // select * from messages where id = ? and time > 2014
/// call.statements[0].bindings  // [7]
/// ```
public enum Renderer {
    /// Renders a call of `method` with positional `arguments`.
    ///
    /// `$` arguments are checked first: a nil one fails before anything renders. A
    /// method-level `foreach` renders one body per element of its collection.
    /// - throws: `DAOError` (`.wrongArgumentCount`, `.nilArgument`, `.render`, `.expression`).
    package static func render(_ method: DAOMethod, arguments: [DAOValue], globals: [String: DAOValue] = [:],
                              tableName: String, cryptRules: Set<DAOCryptRule> = []) throws -> RenderedCall {
        try render(method, arguments: arguments, globals: globals, tableName: tableName, cryptRules: cryptRules, textCache: nil)
    }

    /// `render(_:arguments:globals:tableName:cryptRules:)`, the text of a body of one dynamic
    /// statement taken from `textCache` when a call of the same shape wrote it before (and
    /// kept there otherwise): the same call, rendered alike.
    static func render(_ method: DAOMethod, arguments: [DAOValue], globals: [String: DAOValue],
                       tableName: String, cryptRules: Set<DAOCryptRule>, textCache: RenderedTextCache?) throws -> RenderedCall {
        if method.forEach == nil, case .sql = method.body {
            let statement = try renderStatement(method, arguments: arguments, globals: globals, tableName: tableName,
                                                cryptRules: cryptRules, textCache: textCache)
            return RenderedCall(methodID: method.id, kind: method.kind, runs: [.statement(statement)], isForEach: false)
        }
        try method.checkArguments(arguments)
        let scope = DAOScope(names: method.arguments, values: arguments, globals: globals)
        guard let forEach = method.forEach else {
            let body = try render(method.body, scope: scope, tableName: tableName, cryptRules: cryptRules)
            return RenderedCall(methodID: method.id, kind: method.kind, runs: [body], isForEach: false)
        }
        let elements = try forEachElements(of: method, forEach: forEach, in: scope)
        let runs = try elements.map { element in
            try render(method.body, scope: scope.binding(forEach.item, to: element), tableName: tableName, cryptRules: cryptRules)
        }
        return RenderedCall(methodID: method.id, kind: method.kind, runs: runs, isForEach: true)
    }

    /// The statement of a call of `method` whose body is one statement, without a
    /// method-level `foreach` (the calls of `DAOCallPlan.oneStatement` and `.keptRead`, and
    /// the only run `render` returns for such a call): its SQL made once per table when the
    /// statement is static, else rendered (its text from `textCache` when given).
    /// - throws: what `render` throws.
    static func renderStatement(_ method: DAOMethod, arguments: [DAOValue], globals: [String: DAOValue],
                                tableName: String, cryptRules: Set<DAOCryptRule>, textCache: RenderedTextCache?) throws -> RenderedSQL {
        if let statement = try renderStaticStatement(method, arguments: arguments, globals: globals, tableName: tableName,
                                                     cryptRules: cryptRules) {
            return statement
        }
        guard method.forEach == nil, case .sql(let node) = method.body else {
            preconditionFailure("\(method.id) is not one statement")
        }
        try method.checkArguments(arguments)
        return try render(node, scope: DAOScope(names: method.arguments, values: arguments, globals: globals), tableName: tableName,
                          cryptRules: cryptRules, textCache: textCache)
    }

    /// The elements a method-level `foreach` renders its body for: the collection argument's
    /// elements, none when it is nil.
    /// - throws: `DAOError.render` when the collection is not an array.
    static func forEachElements(of method: DAOMethod, forEach: DAOForEachSpec, in scope: DAOScope) throws -> [DAOValue] {
        let collection = scope.lookup([forEach.collection])
        switch collection {
        case .nil: return []
        case .array(let a): return a
        default:
            throw DAOError.render("foreach collection '\(forEach.collection)' is \(collection.kindPhrase), not an array", at: method.location)
        }
    }

    /// The one statement of a call of `method` when its body is a static statement (text,
    /// `${T}` and `#{}` only) and it has no method-level `foreach`: what `render` returns as
    /// its only run, without building the call around it. nil for any other method.
    /// - throws: what `render` throws.
    static func renderStaticStatement(_ method: DAOMethod, arguments: [DAOValue], globals: [String: DAOValue],
                                      tableName: String, cryptRules: Set<DAOCryptRule>) throws -> RenderedSQL? {
        guard method.forEach == nil, let plan = method.staticPlan else { return nil }
        try method.checkArguments(arguments)
        return try renderStatic(plan, scope: DAOScope(names: method.arguments, values: arguments, globals: globals),
                                tableName: tableName, cryptRules: cryptRules)
    }

    /// Renders a body (a method's or an upgrade's) for the names in `scope`.
    package static func render(_ body: DAOMethodBody, scope: DAOScope, tableName: String,
                              cryptRules: Set<DAOCryptRule> = []) throws -> RenderedBody {
        switch body {
        case .sql(let node):
            return .statement(try render(node, scope: scope, tableName: tableName, cryptRules: cryptRules))
        case .steps(let steps):
            return .steps(try steps.map { step in
                RenderedStep(resumable: step.resumable,
                             statement: try render(step.body, scope: scope, tableName: tableName, cryptRules: cryptRules))
            })
        case .tryExcept(let attempt, let fallback):
            return .tryExcept(attempt: try render(attempt, scope: scope, tableName: tableName, cryptRules: cryptRules),
                              fallback: try render(fallback, scope: scope, tableName: tableName, cryptRules: cryptRules))
        }
    }

    /// Renders one SQL template into one statement.
    package static func render(_ node: any SQLNode, scope: DAOScope, tableName: String,
                              cryptRules: Set<DAOCryptRule> = []) throws -> RenderedSQL {
        try render(node, scope: scope, tableName: tableName, cryptRules: cryptRules, textCache: nil)
    }

    /// `render(_:scope:tableName:cryptRules:)` with the text taken from (or kept in)
    /// `textCache`: a decision pass finds the call's shape and bound values; the text is
    /// written only when no call of that shape on that table wrote it before.
    ///
    /// `scope` is consumed: a call's scope is made for its rendering and moved here.
    static func render(_ node: any SQLNode, scope: consuming DAOScope, tableName: String, cryptRules: Set<DAOCryptRule>,
                       textCache: RenderedTextCache?) throws -> RenderedSQL {
        if let plan = (node as? SequenceNode)?.staticPlan {
            return try renderStatic(plan, scope: scope, tableName: tableName, cryptRules: cryptRules)
        }
        var decisions: [Int32] = []
        if let textCache {
            let pass = try textCache.program.run(scope: &scope, tableName: tableName, cryptRules: cryptRules)
            // A text kept for the shape has as many placeholders as the pass has bound values.
            if let (sql, marks) = textCache.text(tableName: tableName, decisions: pass.decisions),
               pass.bound.values.count == marks.placeholders.count {
                return RenderedSQL(sql: sql, bindings: pass.bound.values, marks: marks, encryptedBindings: pass.bound.encrypted,
                                   location: node.location)
            }
            decisions = pass.decisions
        }
        var context = RenderContext(scope: scope, tableName: tableName, cryptRules: cryptRules)
        try node.render(into: &context)
        if context.halt == .quit { return .skipped(at: node.location) }
        let rendered = context.buffer.finish(location: node.location)
        textCache?.remember(rendered.sql, marks: rendered.marks, tableName: tableName, decisions: decisions)
        return rendered
    }
}

extension Renderer {
    /// A statement without dynamic parts: the cached SQL, and the values looked up.
    static func renderStatic(_ plan: StaticStatementPlan, scope: DAOScope, tableName: String,
                             cryptRules: Set<DAOCryptRule>) throws -> RenderedSQL {
        let statement = try plan.statement(forTable: tableName)
        var bound = BoundValues(capacity: plan.references.count)
        for reference in plan.references {
            let (value, isEncrypted) = reference.binding(in: scope, cryptRules: cryptRules)
            bound.append(value, encrypted: isEncrypted)
        }
        return RenderedSQL(sql: statement.sql, bindings: bound.values, marks: PreviewMarks(placeholders: statement.placeholders, inlined: []),
                           encryptedBindings: bound.encrypted, location: plan.location)
    }
}

extension DAOConfig {
    /// Renders a call of the method `id` overloaded for `arguments.count` arguments, with this
    /// config's crypt rules; `tableName` defaults to the module's.
    public func render(_ id: String, arguments: [DAOValue], globals: [String: DAOValue] = [:],
                       tableName: String? = nil) throws -> RenderedCall {
        try Renderer.render(try method(id, arity: arguments.count), arguments: arguments, globals: globals,
                            tableName: tableName ?? module.tableName, cryptRules: cryptRules)
    }
}
