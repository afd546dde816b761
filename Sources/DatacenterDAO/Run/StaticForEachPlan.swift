import DatacenterKit

/// A method-level foreach whose body is one static statement (text, `${T}` and `#{}`
/// only), such as a batch insert: the way `DAOCallPlan.staticForEach` runs it.
///
/// Every element runs the same SQL, so the statement is prepared once and each element's
/// values are bound straight to it: no `RenderedSQL`, scope copy or binding array is built
/// per element. Each value, and whether it is encrypted, comes from the renderer's own
/// function (`ReferenceNode.binding(in:cryptRules:)`) with the element bound in the scope,
/// so the statement runs with exactly what `Renderer.render` would render, in the same
/// transaction. The rendered statements are built only if the result's `statements` are
/// read (rendering is pure, so they are the ones that ran).
struct StaticForEachPlan: Sendable {
    /// The body's statement.
    let statement: StaticStatementPlan
    /// The method-level `foreach`.
    let forEach: DAOForEachSpec

    /// One call's batch: its elements and SQL, checked as `Renderer.render` checks them and
    /// in the same order; nil when the statement renders empty (the general path runs it).
    /// - throws: what `Renderer.render` throws.
    func batch(for call: DAOCall) throws -> Batch? {
        let method = call.method
        try method.checkArguments(call.arguments)
        let scope = DAOScope(names: method.arguments, values: call.arguments, globals: call.globals)
        let elements = try Renderer.forEachElements(of: method, forEach: forEach, in: scope)
        var sql: String?
        if !elements.isEmpty {
            let rendered = try statement.statement(forTable: call.table)
            guard !rendered.sql.isEmpty else { return nil }
            sql = rendered.sql
        }
        return Batch(plan: self, method: method, table: call.table, cryptRules: call.cryptRules, encryptor: call.encryptor,
                     elements: elements, scope: scope, sql: sql)
    }

    /// A call of a `StaticForEachPlan` method, ready to run.
    struct Batch: Sendable {
        let plan: StaticForEachPlan
        let method: DAOMethod
        /// The table `${T}` names.
        let table: String
        let cryptRules: Set<DAOCryptRule>
        let encryptor: any DataCrypt
        let elements: [DAOValue]
        /// The call's arguments and globals.
        let scope: DAOScope
        /// The SQL; nil when there are no elements (nothing renders, not even `${T}`).
        let sql: String?

        /// Runs the statement once per element on `db` (inside the caller's transaction) and
        /// returns each element's mapped result when `results` is given.
        /// - throws: `DAOError`; an element's failure stops the batch (the caller's
        ///   transaction rolls back the elements before it).
        func run(on db: Database, results: Executor.ResultMapping?) throws -> (results: [DAOValue], objects: [any Sendable]) {
            guard let sql else { return ([], []) }
            let references = plan.statement.references
            var values: [DAOValue] = []
            var objects: [any Sendable] = []
            do {
                let statement = try Executor.statement(sql, on: db, method: method.id, at: plan.statement.location)
                try statement.checkParameterCount(references.count)
                let returnsRows = statement.columnCount > 0
                var scope = self.scope
                scope.push(plan.forEach.item, .nil)
                // `#{item.member}` is the element's member: read straight from the element.
                let members = references.map { DAOScope.itemMember(of: $0.path, item: plan.forEach.item) }
                // Texts and blobs are bound from scratch memory: every parameter is bound again
                // for each element, and the bindings are cleared before the scratch goes.
                var scratch = BindingScratch()
                defer { statement.clearBindings() }
                // The scope is read for other references, and for crypt rules (a member's holder).
                let readsScope = members.contains(nil) || !cryptRules.isEmpty
                let memberNames = members.map { $0 ?? "" }
                // The byte length of each ASCII member name (-1 for another name): a key of
                // fewer bytes cannot equal it, so the pair is ruled out before `==` runs. Only
                // the names are checked for ASCII, once per batch: a key's length is known at
                // once, and a non-ASCII key equal to an ASCII name is always longer, never
                // shorter (canonical equivalents of ASCII text, such as the Kelvin sign for K,
                // take more bytes), so `==` still decides every pair not ruled out.
                let memberLengths = memberNames.map { $0.utf8.allSatisfy { $0 < 0x80 } ? $0.utf8.count : -1 }
                // One bit per parameter (none past 64: those are all bound by lookup).
                let allParameters: UInt64 = references.count >= 64 ? .max : (1 << UInt64(references.count)) - 1
                let memberMask: UInt64 = references.count > 64 ? 0
                    : members.indices.reduce(0) { mask, index in members[index] == nil ? mask : mask | 1 << UInt64(index) }
                try references.withUnsafeBufferPointer { references in
                    try memberNames.withUnsafeBufferPointer { memberNames in
                        for element in elements {
                            if readsScope { scope.rebindLast(element) }
                            scratch.startRow()
                            // The members of a small dictionary are found in one pass over its entries,
                            // comparing names as the dictionary compares keys (`==`): cheaper than hashing
                            // every name, and the same value `member(_:)` finds. Members it lacks, and
                            // every other reference, are looked up as the renderer looks them up.
                            var unbound = allParameters
                            switch element {
                            case .dictionary(let fields) where fields.count <= 16 && memberMask != 0,
                                 .model(_, let fields) where fields.count <= 16 && memberMask != 0:
                                for (key, value) in fields {
                                    var candidates = memberMask & unbound
                                    guard candidates != 0 else { break }
                                    let keyLength = key.utf8.count
                                    while candidates != 0 {
                                        let index = candidates.trailingZeroBitCount
                                        candidates &= candidates - 1
                                        // An ASCII name equals no string of fewer bytes: a
                                        // non-ASCII string equal to it is longer (the Kelvin
                                        // sign, 3 bytes, equals K).
                                        if keyLength < memberLengths[index] { continue }
                                        guard memberNames[index] == key else { continue }
                                        let binding = references[index].binding(of: value, in: scope, cryptRules: cryptRules)
                                        try bind(binding, at: index, to: statement, scratch: &scratch)
                                        unbound &= ~(1 << UInt64(index))
                                    }
                                }
                            default:
                                break
                            }
                            for index in references.indices where references.count > 64 || unbound & (1 << UInt64(index)) != 0 {
                                let binding = if let member = members[index] {
                                    references[index].binding(of: element.member(member), in: scope, cryptRules: cryptRules)
                                } else {
                                    references[index].binding(in: scope, cryptRules: cryptRules)
                                }
                                try bind(binding, at: index, to: statement, scratch: &scratch)
                            }
                            guard let results else {
                                try statement.executeBound()
                                continue
                            }
                            let collector = returnsRows ? results.collector(for: statement) : results.empty
                            if returnsRows {
                                let readsAll = results.readsAllRows
                                try statement.forEachBoundRow { collector.add($0); return readsAll }
                                statement.keep(collector.newLayout, for: method)
                            } else {
                                try statement.executeBound()
                            }
                            let (value, decoded) = try collector.finish()
                            values.append(value)
                            objects += decoded
                        }
                    }
                }
            } catch let error as DatabaseError {
                throw DAOError.database(error)
            }
            return (values, objects)
        }

        /// Binds a reference's value (encrypted when a crypt rule covers it, as the executor
        /// encrypts a rendered binding) to parameter `index + 1`.
        @inline(__always)
        private func bind(_ binding: (value: DAOValue, encrypted: Bool), at index: Int, to statement: Statement,
                          scratch: inout BindingScratch) throws {
            let value = binding.value.databaseValue
            let bound = binding.encrypted ? try CryptColumn.encrypt(value, with: encryptor) : value
            try statement.bind(bound, toParameter: index + 1, scratch: &scratch)
        }

        /// The statements the call ran, one per element, as `Renderer.render` renders them.
        func renderedStatements() -> [RenderedSQL] {
            guard sql != nil else { return [] }
            return elements.compactMap { element in
                try? Renderer.renderStatic(plan.statement, scope: scope.binding(plan.forEach.item, to: element),
                                           tableName: table, cryptRules: cryptRules)
            }
        }
    }
}
