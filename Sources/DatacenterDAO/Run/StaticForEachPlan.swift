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
            guard !statement.sql.isEmpty else { return nil }
            sql = statement.sql
            placeholders = statement.placeholders
        }
        self.method = method
        self.plan = plan
        self.item = forEach.item
        self.scope = scope
        self.location = plan.location
    }

    /// Runs the statement once per element on `db` (inside the caller's transaction) and
    /// returns each element's mapped result when `mapper` is given.
    func run(on db: Database, mapper: ResultMapper?, as result: DAOResultType?) throws -> (results: [DAOValue], objects: [any Sendable]) {
        guard let sql else { return ([], []) }
        var results: [DAOValue] = []
        var objects: [any Sendable] = []
        do {
            let statement = try Executor.statement(sql, on: db, method: method.id, at: location)
            let returnsRows = statement.columnCount > 0
            var scope = self.scope
            scope.push(item, .nil)
            let sources = plan.references.map { BindingSource($0, item: item) }
            try statement.checkParameterCount(sources.count)
            let readsScope = sources.contains { $0.member == nil }
            // Texts and blobs are bound from scratch memory: every parameter is bound again for
            // each element, and the bindings are cleared before the scratch goes.
            var scratch = BindingScratch()
            defer { statement.clearBindings() }
            try sources.withUnsafeBufferPointer { sources in
                for element in elements {
                    if readsScope { scope.rebindLast(element) }
                    scratch.startRow()
                    try BindingSource.bind(sources, for: element, in: scope, to: statement, scratch: &scratch)
                    var rows: [Row] = []
                    if returnsRows {
                        try statement.forEachBoundRow { rows.append($0.row()); return true }
                    } else {
                        try statement.executeBound()
                    }
                    guard let mapper else { continue }
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
        /// `#{item.member}`: the element's member, read directly (the item shadows every
        /// other name, so this is what the scope lookup finds). nil for any other reference
        /// (a `$` name included), which is looked up in the scope.
        let member: String?
        /// The member's name ("" for none) and its UTF-8 length (-1 for none), compared with
        /// an element's keys: the length first, as it rules out most keys.
        private let memberName: String
        private let memberLength: Int
        let path: [String]
        /// `or ""`.
        let nilAsEmpty: Bool

        init(_ reference: ReferenceNode, item: String) {
            path = reference.path
            member = path.count == 2 && path[0] == item && !item.hasPrefix("$") ? path[1] : nil
            memberName = member ?? ""
            memberLength = member?.utf8.count ?? -1
            nilAsEmpty = reference.nilAsEmpty
        }

        @inline(__always) private func isMember(_ key: String, length: Int) -> Bool {
            memberLength == length && memberName == key
        }

        /// The most members an element may have for `bind` to find them in one pass over
        /// it (comparing names) rather than by a hashed lookup per source.
        static let onePassLimit = 16

        /// Binds to `statement` the value each of `sources` takes for `element` (as
        /// `Renderer` binds it), every parameter in turn.
        ///
        /// A row of a batch is usually a small dictionary: walking its entries once and
        /// comparing names costs less than hashing a name per source, and finds the same
        /// values (a member the element lacks is nil, or its member count for `count`, as in
        /// `DAOValue.member`).
        static func bind(_ sources: UnsafeBufferPointer<BindingSource>, for element: DAOValue, in scope: DAOScope,
                         to statement: Statement, scratch: inout BindingScratch) throws {
            let fields: [String: DAOValue]?
            switch element {
            case .dictionary(let d), .model(_, let d): fields = d.count <= onePassLimit ? d : nil
            default: fields = nil
            }
            guard let fields, sources.count <= 64 else {
                for (index, source) in sources.enumerated() {
                    let value = source.member.map { element.member($0) } ?? scope.lookup(source.path)
                    try statement.bind(bound(value, source), toParameter: index + 1, scratch: &scratch)
                }
                return
            }
            var unbound: UInt64 = sources.count == 64 ? .max : (1 << UInt64(sources.count)) - 1
            for (key, value) in fields {
                let length = key.utf8.count
                for index in 0..<sources.count where sources[index].isMember(key, length: length) {
                    try statement.bind(bound(value, sources[index]), toParameter: index + 1, scratch: &scratch)
                    unbound &= ~(1 << UInt64(index))
                }
            }
            while unbound != 0 {
                let index = unbound.trailingZeroBitCount
                unbound &= unbound - 1
                let source = sources[index]
                let value = source.member.map { $0 == "count" ? .integer(Int64(fields.count)) : .nil } ?? scope.lookup(source.path)
                try statement.bind(bound(value, source), toParameter: index + 1, scratch: &scratch)
            }
        }

        @inline(__always) private static func bound(_ value: DAOValue, _ source: BindingSource) -> DatabaseValue {
            value.isNil && source.nilAsEmpty ? .text("") : value.databaseValue
        }
    }

    /// The statements the call ran, one per element, as `Renderer.render` renders them.
    func renderedStatements() -> [RenderedSQL] {
        guard let sql else { return [] }
        return elements.map { element in
            let scope = self.scope.binding(item, to: element)
            return RenderedSQL(sql: sql, bindings: plan.references.map { $0.value(in: scope).databaseValue },
                               marks: PreviewMarks(placeholders: placeholders, inlined: []), encryptedBindings: [], location: location)
        }
    }
}
