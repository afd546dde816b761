import DatacenterKit

/// The decision pass of a dynamic template (`RenderedTextCache`), compiled once when the
/// config loads: the template's `<if>`, `<choose>`, `<foreach>`, `${T}` and `#{}` nodes as a
/// flat list of instructions, its text and trims left out.
///
/// A call whose shape was rendered before needs only its decisions (the branches taken and
/// the elements iterated) and its bound values; walking the node tree for them went through
/// every node's rendering, a render buffer and its regions, to write no text. The program
/// visits the same nodes in the same order and asks them the same questions (a condition's
/// `holds`, a reference's `binding`), so it gives the decisions, bound values and errors of
/// `Renderer`'s decision pass; the equivalence tests (`RenderedTextCacheTests`) hold the
/// text it finds to the text rendered each time.
///
/// Only a template whose text its decisions determine compiles (`init(template:)` is nil
/// otherwise): text, `${T}`, `#{}`, `<if>`, `<choose>`, `<foreach>` and trims without
/// `onVoid`. In such a template a trim only reworks text, so the pass skips it.
final class DecisionProgram: Sendable {
    /// One instruction. A body is the instructions after its opening one, up to `end`.
    enum Instruction: Sendable {
        /// A `#{}`: its value is bound.
        case bind(ReferenceNode)
        /// A `${T}`: the table name must be set.
        case tableName(SourceLocation)
        /// An `<if>`: its body, up to `end`, runs when the test holds (decision 1, else 0).
        case ifThen(IfNode, end: Int)
        /// The `<when>` `index` of a `<choose>` (decision `index`): when its test holds, its
        /// body (up to `bodyEnd`) runs and the choose ends at `end`; else the next branch is
        /// tried at `bodyEnd`.
        case when(ChooseNode, index: Int32, bodyEnd: Int, end: Int)
        /// A `<choose>` none of whose `<when>`s held: decision `index`; the `<otherwise>`
        /// body, if any, follows.
        case otherwise(index: Int32)
        /// A `<foreach>`: its body, up to `end`, once per element, the item bound to it.
        case forEach(ForEachNode, end: Int)
    }

    /// The instructions.
    let instructions: [Instruction]

    /// The program of `template`, nil when its text is not a function of its decisions.
    init?(template: any SQLNode) {
        var instructions: [Instruction] = []
        guard DecisionProgram.compile(template, into: &instructions) else { return nil }
        self.instructions = instructions
    }

    /// Appends the instructions of `node`; false when it has a part whose text is not a
    /// function of the decisions (`@{}`, `<format>`, an `onVoid` trim).
    private static func compile(_ node: any SQLNode, into code: inout [Instruction]) -> Bool {
        switch node {
        case is TextNode:
            return true
        case let table as TableNameNode:
            code.append(.tableName(table.location))
            return true
        case let reference as ReferenceNode:
            guard reference.mode == .bind else { return false }
            code.append(.bind(reference))
            return true
        case let sequence as SequenceNode:
            return sequence.children.allSatisfy { compile($0, into: &code) }
        case let node as IfNode:
            let start = code.count
            code.append(.tableName(node.location)) // replaced below, once the body's end is known
            guard compile(node.body, into: &code) else { return false }
            code[start] = .ifThen(node, end: code.count)
            return true
        case let node as ChooseNode:
            var starts: [Int] = []
            for (index, branch) in node.branches.enumerated() {
                starts.append(code.count)
                code.append(.otherwise(index: Int32(index))) // replaced below, once the body's end is known
                guard compile(branch.body, into: &code) else { return false }
            }
            let otherwiseAt = code.count
            code.append(.otherwise(index: Int32(node.branches.count)))
            if let otherwise = node.otherwise, !compile(otherwise, into: &code) { return false }
            for (index, start) in starts.enumerated() {
                code[start] = .when(node, index: Int32(index), bodyEnd: index + 1 < starts.count ? starts[index + 1] : otherwiseAt,
                                    end: code.count)
            }
            return true
        case let node as ForEachNode:
            let start = code.count
            code.append(.tableName(node.location)) // replaced below
            guard compile(node.body, into: &code) else { return false }
            code[start] = .forEach(node, end: code.count)
            return true
        case let node as TrimNode:
            return node.onVoid == nil && compile(node.body, into: &code)
        default:
            return false
        }
    }

    /// What a decision pass found: the decisions, and the bound values in placeholder order
    /// with the positions of those a crypt rule covers.
    struct Outcome {
        var decisions: [Int32] = []
        var bindings: [DatabaseValue] = []
        var encrypted: [Int] = []
    }

    /// Runs the pass for the names in `scope`.
    /// - throws: what rendering throws for these names (`DAOError.render`, `.expression`).
    func run(scope: DAOScope, tableName: String, cryptRules: Set<DAOCryptRule>) throws -> Outcome {
        var outcome = Outcome()
        outcome.decisions.reserveCapacity(8)
        outcome.bindings.reserveCapacity(8)
        var scope = scope
        try run(0..<instructions.count, scope: &scope, tableName: tableName, cryptRules: cryptRules, into: &outcome)
        return outcome
    }

    private func run(_ range: Range<Int>, scope: inout DAOScope, tableName: String, cryptRules: Set<DAOCryptRule>,
                     into outcome: inout Outcome) throws {
        var next = range.lowerBound
        while next < range.upperBound {
            switch instructions[next] {
            case .bind(let reference):
                let (value, encrypted) = reference.binding(in: scope, cryptRules: cryptRules)
                if encrypted { outcome.encrypted.append(outcome.bindings.count) }
                outcome.bindings.append(value.databaseValue)
                next += 1
            case .tableName(let location):
                try TableNameNode.check(tableName, at: location)
                next += 1
            case .ifThen(let node, let end):
                let holds = try node.condition.holds(in: scope)
                outcome.decisions.append(holds ? 1 : 0)
                next = holds ? next + 1 : end
            case .when(let node, let index, let bodyEnd, let end):
                guard try node.branches[Int(index)].condition.holds(in: scope) else {
                    next = bodyEnd
                    continue
                }
                outcome.decisions.append(index)
                try run(next + 1..<bodyEnd, scope: &scope, tableName: tableName, cryptRules: cryptRules, into: &outcome)
                next = end
            case .otherwise(let index):
                outcome.decisions.append(index)
                next += 1
            case .forEach(let node, let end):
                let elements = try node.elements(in: scope)
                outcome.decisions.append(Int32(truncatingIfNeeded: elements?.count ?? 0)) // nil as an empty collection
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
}
