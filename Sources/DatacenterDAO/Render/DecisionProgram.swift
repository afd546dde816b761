import DatacenterKit

/// The decision pass of a dynamic template (`RenderedTextCache`), compiled once when the
/// config loads: the template's `<if>`, `<choose>`, `<foreach>`, `${T}` and `#{}` nodes as a
/// flat list of instructions, its text and trims left out.
///
/// A call whose shape was rendered before needs only its decisions (the branches taken and
/// the elements iterated) and its bound values; walking the node tree for them would go
/// through every node's rendering, a render buffer and its regions, to write no text. The
/// program visits the same nodes in the same order as rendering and asks them the same
/// questions (a condition's `holds`, a collection's `elements`, a reference's `binding`), so
/// it finds the bound values and errors rendering finds; the equivalence tests
/// (`RenderedTextCacheTests`) hold the text it takes from the cache to the text rendered
/// each time.
///
/// Only a template whose text its decisions determine compiles (`init(template:)` is nil
/// otherwise): text, `${T}`, `#{}`, `<if>`, `<choose>`, `<foreach>` and trims without
/// `onVoid`. In such a template a trim only reworks text, so the pass skips it.
final class DecisionProgram: Sendable {
    /// One instruction: plain values (indices into the program's tables), so stepping
    /// through the program copies no reference. A body is the instructions after its
    /// opening one, up to `end`.
    enum Instruction: Sendable {
        /// A `#{}`: the value of `references[reference]` is bound.
        case bind(reference: Int)
        /// A `#{}` naming the innermost loop item itself (`#{s}` in `<foreach item="s">`):
        /// the element bound is its value, found without a lookup.
        case bindItem(reference: Int)
        /// A `#{}` whose path starts from argument `argument` of the method, which no loop
        /// item around it shadows: found from the argument by position.
        case bindArgument(reference: Int, argument: Int)
        /// A `${T}` at `tableLocations[location]`: the table name must be set.
        case tableName(location: Int)
        /// An `<if>` testing `conditions[condition]`: its body, up to `end`, runs when the
        /// test holds (decision 1, else 0).
        case ifThen(condition: Int, end: Int)
        /// A `<when>` of a `<choose>` testing `conditions[condition]` (decision `index`): when
        /// it holds, its body (up to `bodyEnd`) runs and the choose ends at `end`; else the
        /// next branch is tried at `bodyEnd`.
        case when(condition: Int, index: Int32, bodyEnd: Int, end: Int)
        /// A `<choose>` none of whose `<when>`s held: decision `index`; the `<otherwise>`
        /// body, if any, follows.
        case otherwise(index: Int32)
        /// The `<foreach>` `loops[loop]`: its body, up to `end`, once per element, the item
        /// bound to it. Its collection starts from argument `argument` when not nil.
        case forEach(loop: Int, argument: Int?, end: Int)
        /// A `<foreach>` whose body is one `#{}` of its item itself (`in (#{id}, …)`, the
        /// commonest loop): each element is bound as it is, by `references[reference]`. The
        /// item is not put in the scope: nothing in the body looks a name up, and a one-name
        /// path is never a crypt property (`DAOScope.isEncrypted`), so the element binds as
        /// the body would bind it.
        case forEachItem(loop: Int, argument: Int?, reference: Int)
    }

    /// The instructions.
    let instructions: [Instruction]
    /// What the instructions name.
    private let references: [ReferenceNode]
    private let conditions: [DAOCondition]
    private let loops: [ForEachNode]
    private let tableLocations: [SourceLocation]

    /// The program of `template` for a method taking `arguments`, nil when its text is not a
    /// function of its decisions. A `#{}` of an argument or of a loop item is bound by
    /// position; the pass must then run on a scope of these arguments (`DAOScope(names:
    /// values:globals:)`, as every call renders), and looks the name up otherwise.
    init?(template: any SQLNode, arguments: [DAOArgumentSpec]) {
        var compiler = Compiler(arguments: arguments)
        guard compiler.compile(template) else { return nil }
        instructions = compiler.code
        references = compiler.references
        conditions = compiler.conditions
        loops = compiler.loops
        tableLocations = compiler.tableLocations
    }

    /// Builds a program, node by node.
    private struct Compiler {
        /// The method's arguments, and the items of the loops around the node compiled.
        let arguments: [DAOArgumentSpec]
        var items: [String] = []
        var code: [Instruction] = []
        var references: [ReferenceNode] = []
        var conditions: [DAOCondition] = []
        var loops: [ForEachNode] = []
        var tableLocations: [SourceLocation] = []

        /// Appends the instructions of `node`; false when it has a part whose text is not
        /// a function of the decisions (`@{}`, `<format>`, an `onVoid` trim).
        mutating func compile(_ node: any SQLNode) -> Bool {
            switch node {
            case is TextNode:
                return true
            case let table as TableNameNode:
                tableLocations.append(table.location)
                code.append(.tableName(location: tableLocations.count - 1))
                return true
            case let reference as ReferenceNode:
                guard reference.mode == .bind else { return false }
                references.append(reference)
                code.append(bind(reference, at: references.count - 1))
                return true
            case let sequence as SequenceNode:
                return sequence.children.allSatisfy { compile($0) }
            case let node as IfNode:
                conditions.append(node.condition.resolvingArguments(argument(of:)))
                let condition = conditions.count - 1
                let start = code.count
                code.append(.otherwise(index: 0)) // replaced below, once the body's end is known
                guard compile(node.body) else { return false }
                code[start] = .ifThen(condition: condition, end: code.count)
                return true
            case let node as ChooseNode:
                var starts: [(start: Int, condition: Int)] = []
                for branch in node.branches {
                    conditions.append(branch.condition.resolvingArguments(argument(of:)))
                    starts.append((code.count, conditions.count - 1))
                    code.append(.otherwise(index: 0)) // replaced below, once the body's end is known
                    guard compile(branch.body) else { return false }
                }
                let otherwiseAt = code.count
                code.append(.otherwise(index: Int32(node.branches.count)))
                if let otherwise = node.otherwise, !compile(otherwise) { return false }
                for (index, branch) in starts.enumerated() {
                    code[branch.start] = .when(condition: branch.condition, index: Int32(index),
                                               bodyEnd: index + 1 < starts.count ? starts[index + 1].start : otherwiseAt, end: code.count)
                }
                return true
            case let node as ForEachNode:
                loops.append(node)
                let loop = loops.count - 1
                let start = code.count
                code.append(.otherwise(index: 0)) // replaced below
                let collection = argument(of: node.collection)
                items.append(node.item)
                defer { items.removeLast() }
                guard compile(node.body) else { return false }
                if code.count == start + 2, case .bindItem(let reference) = code[start + 1] {
                    code.removeLast()
                    code[start] = .forEachItem(loop: loop, argument: collection, reference: reference)
                } else {
                    code[start] = .forEach(loop: loop, argument: collection, end: code.count)
                }
                return true
            case let node as TrimNode:
                return node.onVoid == nil && compile(node.body)
            default:
                return false
            }
        }

        /// The argument `path` starts from where it is read now (inside the loops of
        /// `items`), as `DAOScope.lookup` would find it; nil when it is not an argument's.
        func argument(of path: [String]) -> Int? {
            DAOScope.argumentIndex(ofRootOf: path, among: arguments, shadowedBy: items)
        }

        /// How `reference` (`references[index]`) is bound: by position when it names the
        /// innermost loop item or starts from an argument no loop item shadows (as
        /// `DAOScope.lookup` would find them), else by lookup.
        func bind(_ reference: ReferenceNode, at index: Int) -> Instruction {
            if let name = DAOScope.soleName(of: reference.path), let innermost = items.last, DAOScope.same(name, innermost) {
                return .bindItem(reference: index)
            }
            guard let argument = argument(of: reference.path) else { return .bind(reference: index) }
            return .bindArgument(reference: index, argument: argument)
        }
    }

    /// What a decision pass found: the decisions, and the bound values in placeholder order
    /// with the positions of those a crypt rule covers.
    struct Outcome {
        var decisions: [Int32] = []
        var bound = BoundValues(capacity: 8)
    }

    /// Runs the pass for the names in `scope`, which it leaves as it found it (loop items
    /// are bound and unbound as the pass goes; taken `inout` so that the call's scope is not
    /// copied, five references retained and released, for this).
    /// - throws: what rendering throws for these names (`DAOError.render`, `.expression`).
    func run(scope: inout DAOScope, tableName: String, cryptRules: Set<DAOCryptRule>) throws -> Outcome {
        var outcome = Outcome()
        outcome.decisions.reserveCapacity(8)
        try run(0..<instructions.count, scope: &scope, tableName: tableName, cryptRules: cryptRules, into: &outcome)
        return outcome
    }

    /// Runs the instructions of `range` (the whole program, or a body), binding loop items
    /// in `scope` as it goes.
    private func run(_ range: Range<Int>, scope: inout DAOScope, tableName: String, cryptRules: Set<DAOCryptRule>,
                     into outcome: inout Outcome) throws {
        var next = range.lowerBound
        while next < range.upperBound {
            switch instructions[next] {
            case .bind(let reference):
                let (value, encrypted) = references[reference].binding(in: scope, cryptRules: cryptRules)
                outcome.bound.append(value, encrypted: encrypted)
                next += 1
            case .bindItem(let reference):
                let (value, encrypted) = references[reference].binding(of: scope.innermostItem, in: scope, cryptRules: cryptRules)
                outcome.bound.append(value, encrypted: encrypted)
                next += 1
            case .bindArgument(let reference, let argument):
                let reference = references[reference]
                let found = scope.lookup(reference.path, argument: argument)
                let (value, encrypted) = reference.binding(of: found, in: scope, cryptRules: cryptRules)
                outcome.bound.append(value, encrypted: encrypted)
                next += 1
            case .tableName(let location):
                try TableNameNode.check(tableName, at: tableLocations[location])
                next += 1
            case .ifThen(let condition, let end):
                let holds = try conditions[condition].holds(in: scope)
                outcome.decisions.append(holds ? 1 : 0)
                next = holds ? next + 1 : end
            case .when(let condition, let index, let bodyEnd, let end):
                guard try conditions[condition].holds(in: scope) else {
                    next = bodyEnd
                    continue
                }
                outcome.decisions.append(index)
                try run(next + 1..<bodyEnd, scope: &scope, tableName: tableName, cryptRules: cryptRules, into: &outcome)
                next = end
            case .otherwise(let index):
                outcome.decisions.append(index)
                next += 1
            case .forEachItem(let loop, let argument, let reference):
                let elements = try self.elements(of: loop, argument: argument, in: scope, into: &outcome)
                let reference = references[reference]
                for element in elements ?? [] {
                    let (value, encrypted) = reference.binding(of: element, in: scope, cryptRules: cryptRules)
                    outcome.bound.append(value, encrypted: encrypted)
                }
                next += 1
            case .forEach(let loop, let argument, let end):
                let node = loops[loop]
                let elements = try self.elements(of: loop, argument: argument, in: scope, into: &outcome)
                if let elements, !elements.isEmpty {
                    scope.push(node.item, .nil)
                    defer { scope.pop() }
                    for element in elements {
                        scope.rebindLast(element)
                        try run(next + 1..<end, scope: &scope, tableName: tableName, cryptRules: cryptRules, into: &outcome)
                    }
                }
                next = end
            }
        }
    }

    /// The elements `loops[loop]` iterates (nil for a nil collection), its collection read
    /// from argument `argument` when not nil; their count is noted as the loop's decision (a
    /// nil collection as an empty one).
    @inline(__always)
    private func elements(of loop: Int, argument: Int?, in scope: DAOScope, into outcome: inout Outcome) throws -> [DAOValue]? {
        let node = loops[loop]
        let elements = try node.elements(of: scope.lookup(node.collection, argument: argument))
        outcome.decisions.append(Int32(truncatingIfNeeded: elements?.count ?? 0))
        return elements
    }
}
