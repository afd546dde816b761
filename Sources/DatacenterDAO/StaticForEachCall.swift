import DatacenterKit

/// A call of a method-level foreach whose body is one static statement (text, `${T}` and
/// `#{}` only, no crypt rule in play), such as a batch insert.
///
/// Every element runs the same SQL, so the statement is looked up once and each element's
/// values are looked up and bound straight to it: no `RenderedSQL`, scope copy or binding
/// array is built per element. It runs exactly what `Renderer.render` would render, in the
/// same transaction; the rendered statements are built only if the result's `statements`
/// are read (rendering is pure, so they are the ones that ran).
struct StaticForEachCall: Sendable {
    let method: DAOMethod
    let plan: StaticStatementPlan
    /// The name each element is bound to.
    let item: String
    let elements: [DAOValue]
    /// The call's arguments and globals.
    let scope: DAOScope
    /// The SQL; nil when there are no elements (nothing renders, not even `${T}`).
    let sql: String?
    let placeholders: [Int]
    let location: SourceLocation

    /// The call, or nil when the method does not qualify. Throws what `Renderer.render`
    /// throws, checked in the same order.
    init?(method: DAOMethod, arguments: [DAOValue], globals: [String: DAOValue], tableName: String,
          cryptRules: Set<DAOCryptRule>) throws {
        guard let forEach = method.forEach, let plan = method.staticPlan,
              cryptRules.isEmpty || plan.references.allSatisfy({ $0.path.count < 2 }) // nothing can be encrypted
        else { return nil }
        try method.checkArguments(arguments)
        let scope = DAOScope(names: method.arguments, values: arguments, globals: globals)
        let collection = scope.lookup([forEach.collection])
        switch collection {
        case .nil: elements = []
        case .array(let a): elements = a
        default:
            throw DAOError.render("foreach collection '\(forEach.collection)' is a \(collection.kindName), not an array", at: method.location)
        }
        if elements.isEmpty {
            sql = nil
            placeholders = []
        } else {
            let statement = try plan.statement(forTable: tableName)
            guard !statement.sql.isEmpty, statement.isSingleStatement else { return nil }
            sql = statement.sql
            placeholders = statement.placeholders
        }
        self.method = method
        self.plan = plan
        self.item = forEach.item
        self.scope = scope
        self.location = plan.location
    }

    /// The value bound for `reference` (as `Renderer.renderStatic` binds it).
    private static func value(of reference: ReferenceNode, in scope: DAOScope) -> DAOValue {
        let value = scope.lookup(reference.path)
        return value.isNil && reference.nilAsEmpty ? .string("") : value
    }

    /// Runs the statement once per element on `db` (inside the caller's transaction) and
    /// returns each element's mapped result when `mapper` is given.
    func run(on db: Database, mapper: ResultMapper?, as result: DAOResultType?) throws -> (results: [DAOValue], objects: [any Sendable]) {
        guard let sql else { return ([], []) }
        var results: [DAOValue] = []
        var objects: [any Sendable] = []
        do {
            let statement = try db.cachedStatement(sql)
            let returnsRows = statement.columnCount > 0
            var scope = self.scope
            scope.push(item, .nil)
            var bindings: [DatabaseValue] = []
            bindings.reserveCapacity(plan.references.count)
            let sources = plan.references.map { BindingSource($0, item: item) }
            let readsScope = sources.contains { if case .scope = $0.kind { return true } else { return false } }
            for element in elements {
                if readsScope { scope.rebindLast(element) }
                bindings.removeAll(keepingCapacity: true)
                for source in sources {
                    let value: DAOValue
                    switch source.kind {
                    case .member(let name): value = element.member(name)
                    case .scope(let path): value = scope.lookup(path)
                    }
                    bindings.append((value.isNil && source.nilAsEmpty ? .string("") : value).databaseValue)
                }
                var rows: [Row] = []
                if returnsRows {
                    try statement.forEachRow(values: bindings) { rows.append($0.row()); return true }
                } else {
                    try statement.execute(values: bindings)
                }
                if let mapper {
                    let (value, decoded) = try mapper.map(rows, as: result)
                    results.append(value)
                    objects += decoded
                }
            }
        } catch let error as DatabaseError {
            throw DAOError.database(error)
        }
        return (results, objects)
    }

    /// Where one binding's value comes from for an element.
    private struct BindingSource {
        enum Kind {
            /// `#{item.member}`: the element's member, read directly (the item shadows every
            /// other name, so this is what the scope lookup finds).
            case member(String)
            /// Any other reference (a `$` name included): looked up in the scope.
            case scope([String])
        }
        let kind: Kind
        /// `or ""`.
        let nilAsEmpty: Bool

        init(_ reference: ReferenceNode, item: String) {
            let path = reference.path
            kind = path.count == 2 && path[0] == item && !item.hasPrefix("$") ? .member(path[1]) : .scope(path)
            nilAsEmpty = reference.nilAsEmpty
        }
    }

    /// The statements the call ran, one per element, as `Renderer.render` renders them.
    func renderedStatements() -> [RenderedSQL] {
        guard let sql else { return [] }
        return elements.map { element in
            let scope = self.scope.binding(item, to: element)
            return RenderedSQL(sql: sql, bindings: plan.references.map { Self.value(of: $0, in: scope).databaseValue },
                               marks: PreviewMarks(placeholders: placeholders, inlined: []), encryptedBindings: [], location: location,
                               isSingleStatement: true)
        }
    }
}
