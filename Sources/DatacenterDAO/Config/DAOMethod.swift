/// The tag a method was declared with. The four differ only in intent: any may hold any SQL;
/// a select returns rows through its `result`.
public enum DAOMethodKind: String, Sendable, Equatable, CaseIterable {
    case select, insert, update, delete
}

/// One name of a method's `arguments` list.
public struct DAOArgumentSpec: Sendable, Equatable {
    /// The name, without its `$`.
    public let name: String
    /// True for a `$` argument: a nil value fails the call before any SQL runs.
    public let isRequired: Bool
}

/// A method-level `foreach="collection.item"`.
public struct DAOForEachSpec: Sendable, Equatable {
    /// The argument holding the array.
    public let collection: String
    /// The name each element is bound to.
    public let item: String
}

/// One `<step>`: a statement of a multi-statement body.
public struct DAOStep: Sendable {
    /// True when a failure is skipped instead of failing the method.
    public let resumable: Bool
    /// The step's SQL template.
    package let body: any SQLNode
    /// Where the `<step>` is.
    public let location: SourceLocation
}

/// The structure of a method (or upgrade) body.
package indirect enum DAOMethodBody: Sendable {
    /// One SQL statement template.
    case sql(any SQLNode)
    /// Steps run in order, in one transaction.
    case steps([DAOStep])
    /// `<try>…<except>…</except></try>`.
    case tryExcept(attempt: DAOMethodBody, fallback: DAOMethodBody)
}

/// A method of a config: a select, insert, update or delete with its arguments, result and
/// compiled body. Immutable; rendered per call by `Renderer`.
///
/// A class, so the many calls of a method share it instead of copying its fields.
public final class DAOMethod: Sendable {
    /// The tag.
    public let kind: DAOMethodKind
    /// The method name.
    public let id: String
    /// The arguments, in call order.
    public let arguments: [DAOArgumentSpec]
    /// The result (select only); nil returns success or failure only.
    public let result: DAOResultType?
    /// The method-level foreach, if any.
    public let forEach: DAOForEachSpec?
    /// `parallel="true"`: may run on a separate read connection.
    public let isParallel: Bool
    /// The body.
    package let body: DAOMethodBody
    /// Where the method's element is.
    public let location: SourceLocation
    /// Set when the body is one statement without dynamic parts (text, `${T}` and `#{}`
    /// only): its SQL is then the same for every call on a table.
    let staticPlan: StaticStatementPlan?
    /// The way every call of the method runs, chosen from its shape when it loads.
    let plan: DAOCallPlan

    init(kind: DAOMethodKind, id: String, arguments: [DAOArgumentSpec], result: DAOResultType?, forEach: DAOForEachSpec?,
         isParallel: Bool, body: DAOMethodBody, location: SourceLocation) {
        self.kind = kind
        self.id = id
        self.arguments = arguments
        self.result = result
        self.forEach = forEach
        self.isParallel = isParallel
        self.body = body
        self.location = location
        if case .sql(let node) = body, let sequence = node as? SequenceNode {
            staticPlan = sequence.staticPlan
        } else {
            staticPlan = nil
        }
        plan = DAOCallPlan(kind: kind, arguments: arguments, result: result, forEach: forEach, isParallel: isParallel,
                           body: body, staticPlan: staticPlan)
    }

    /// The number of arguments a call passes (overloads differ in it).
    public var arity: Int { arguments.count }

    /// Checks a call's arguments as every call does first: their count, then that no `$`
    /// argument is nil.
    /// - throws: `DAOError.wrongArgumentCount`, `.nilArgument`.
    func checkArguments(_ values: [DAOValue]) throws {
        guard values.count == arity else {
            throw DAOError.wrongArgumentCount(method: id, given: values.count, accepted: [arity])
        }
        for (spec, value) in zip(arguments, values) where spec.isRequired && value.isNil {
            throw DAOError.nilArgument(method: id, argument: spec.name)
        }
    }

    /// `find(id, $time) -> :messageModelMap`, for listings.
    public var signature: String {
        let args = arguments.map { ($0.isRequired ? "$" : "") + $0.name }.joined(separator: ", ")
        var s = "\(kind.rawValue) \(id)(\(args))"
        if let forEach { s += " foreach \(forEach.collection).\(forEach.item)" }
        if let result { s += " -> \(result)" }
        return s
    }
}
