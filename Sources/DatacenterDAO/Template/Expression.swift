/// A compiled expression of a `true=`/`false=` attribute: parsed once at load time, evaluated
/// per call against the call's arguments.
///
/// For example:
/// ```swift
/// let e = try Expression(compiling: "(title != nil and year > 2010) or authors.count >= 2")
/// try e.isTrue(in: DAOScope(["title": nil, "year": 2000, "authors": ["a", "b"]]))  // true
/// ```
package struct Expression: Sendable, Equatable, CustomStringConvertible {
    /// The expression as written.
    package let text: String
    let root: ExpressionNode

    /// Compiles `text`.
    /// - throws: `ExpressionError` with the 1-based position of the token at fault.
    package init(compiling text: String) throws {
        self.text = text
        let tokens = try ExpressionTokenizer(text: text).tokens()
        var parser = ExpressionParser(text: text, tokens: tokens)
        root = try parser.parseAll()
    }

    private init(text: String, root: ExpressionNode) {
        self.text = text
        self.root = root
    }

    /// This expression with each name that `argument` places among a method's arguments
    /// read by that position (`ExpressionNode.argument`): what the decision pass evaluates,
    /// resolved when the config loads.
    func resolvingArguments(_ argument: ([String]) -> Int?) -> Expression {
        Expression(text: text, root: root.resolvingArguments(argument))
    }

    /// The value of the expression for the given names.
    /// - throws: `ExpressionError` for a type error (a string in arithmetic, division by zero).
    package func evaluate(in scope: DAOScope) throws -> DAOValue {
        try ExpressionEvaluator.evaluate(root, in: scope, text: text)
    }

    /// The truthiness of the value: nil, false, 0 and empty strings or collections are false.
    package func isTrue(in scope: DAOScope) throws -> Bool {
        ExpressionEvaluator.truthy(try evaluate(in: scope))
    }

    /// The names the expression reads (first element of each chained access).
    package var referencedNames: Set<String> { root.names }

    package var description: String { text }
}

/// The abstract syntax tree of an expression.
indirect enum ExpressionNode: Sendable, Equatable {
    case literal(DAOValue)
    /// A name with its chained members, and the 1-based position of the name.
    case path([String], position: Int)
    /// A path whose name is the method's argument at position `argument` (see
    /// `DAOScope.lookup(_:argument:)`), resolved by the decision pass when the config loads.
    case argument(Int, path: [String], position: Int)
    case unary(UnaryOperator, ExpressionNode, position: Int)
    case binary(BinaryOperator, ExpressionNode, ExpressionNode, position: Int)

    var names: Set<String> {
        switch self {
        case .literal: return []
        case .path(let parts, _), .argument(_, let parts, _): return parts.first.map { [$0] } ?? []
        case .unary(_, let e, _): return e.names
        case .binary(_, let l, let r, _): return l.names.union(r.names)
        }
    }

    /// This node with each path that `argument` places among a method's arguments read by
    /// that position.
    func resolvingArguments(_ argument: ([String]) -> Int?) -> ExpressionNode {
        switch self {
        case .literal, .argument: return self
        case .path(let parts, let position):
            guard let index = argument(parts) else { return self }
            return .argument(index, path: parts, position: position)
        case .unary(let op, let operand, let position):
            return .unary(op, operand.resolvingArguments(argument), position: position)
        case .binary(let op, let lhs, let rhs, let position):
            return .binary(op, lhs.resolvingArguments(argument), rhs.resolvingArguments(argument), position: position)
        }
    }
}

/// A prefix operator, decided when the expression compiles (not compared as text per call).
enum UnaryOperator: String, Sendable, Equatable {
    case not
    case plus = "+"
    case minus = "-"
}

/// An infix operator, decided when the expression compiles (not compared as text per call).
enum BinaryOperator: String, Sendable, Equatable {
    case or, xor, and
    case equal = "==", notEqual = "!="
    case less = "<", greater = ">", lessOrEqual = "<=", greaterOrEqual = ">="
    case plus = "+", minus = "-"
    case times = "*", divide = "/", integerDivide = "\\", remainder = "%"

    /// How tightly the operator binds: `or` loosest, `* / \ %` tightest.
    var bindingPower: Int {
        switch self {
        case .or: return 1
        case .xor: return 2
        case .and: return 3
        case .equal, .notEqual: return 5
        case .less, .greater, .lessOrEqual, .greaterOrEqual: return 6
        case .plus, .minus: return 7
        case .times, .divide, .integerDivide, .remainder: return 8
        }
    }
}

/// A Pratt parser: each binary operator has a binding power; `not` binds looser than
/// comparisons (so `not a == b` is `not (a == b)`), unary `+ -` tighter than `* /`.
struct ExpressionParser {
    let text: String
    let tokens: [ExpressionToken]
    var index = 0

    init(text: String, tokens: [ExpressionToken]) {
        self.text = text
        self.tokens = tokens
    }

    private var current: ExpressionToken { tokens[min(index, tokens.count - 1)] }

    private func fail(_ message: String, _ token: ExpressionToken) -> ExpressionError {
        ExpressionError(expression: text, position: token.position, message: message)
    }

    private func describe(_ token: ExpressionToken) -> String {
        switch token.kind {
        case .end: return "the end"
        case .op(let o): return "'\(o)'"
        case .path(let p): return "'\(Excerpt.of(p.joined(separator: ".")))'"
        case .integer(let i): return "\(i)"
        case .double(let d): return "\(d)"
        case .string: return "a string"
        case .nilLiteral: return "nil"
        case .trueLiteral: return "true"
        case .falseLiteral: return "false"
        }
    }

    mutating func parseAll() throws -> ExpressionNode {
        if case .end = current.kind { throw fail("the expression is empty", current) }
        let node = try parse(minimumPower: 0).node
        guard case .end = current.kind else { throw fail("expected an operator, found \(describe(current))", current) }
        return node
    }

    /// How many parentheses and prefix operators enclose the token being read: the parser
    /// recurses once per level, so this is checked on the way in, before the stack grows.
    private var depth = 0

    /// One more level of nesting at `token`.
    /// - throws: past `DAOLimits.expressionDepth`.
    private mutating func enter(_ token: ExpressionToken) throws {
        depth += 1
        try check(height: depth, at: token)
    }

    private func check(height: Int, at token: ExpressionToken) throws {
        guard height <= DAOLimits.expressionDepth else {
            throw fail("the expression nests more than \(DAOLimits.expressionDepth) levels deep "
                       + "(parentheses, prefix operators and chained operators each count)", token)
        }
    }

    /// Parses operators of more than `minimumPower`; returns the tree and its height. A chain
    /// `a + b + c` builds a left-deep tree without recursing, but evaluating it recurses per
    /// operator, so the height is bounded like the nesting.
    mutating func parse(minimumPower: Int) throws -> (node: ExpressionNode, height: Int) {
        var (left, height) = try parsePrefix()
        while case .op(let text) = current.kind, let op = BinaryOperator(rawValue: text), op.bindingPower > minimumPower {
            let token = current
            index += 1
            let right = try parse(minimumPower: op.bindingPower)
            height = max(height, right.height) + 1
            try check(height: height, at: token)
            left = .binary(op, left, right.node, position: token.position)
        }
        return (left, height)
    }

    mutating func parsePrefix() throws -> (node: ExpressionNode, height: Int) {
        let token = current
        index += 1
        switch token.kind {
        case .integer(let i): return (.literal(.integer(i)), 1)
        case .double(let d): return (.literal(.double(d)), 1)
        case .string(let s): return (.literal(.string(s)), 1)
        case .nilLiteral: return (.literal(.nil), 1)
        case .trueLiteral: return (.literal(.bool(true)), 1)
        case .falseLiteral: return (.literal(.bool(false)), 1)
        case .path(let parts): return (.path(parts, position: token.position), 1)
        case .op("("):
            try enter(token)
            defer { depth -= 1 }
            let inner = try parse(minimumPower: 0)
            guard case .op(")") = current.kind else { throw fail("expected ')', found \(describe(current))", current) }
            index += 1
            return (inner.node, inner.height + 1)
        case .op("not"), .op("-"), .op("+"):
            try enter(token)
            defer { depth -= 1 }
            let (op, power): (UnaryOperator, Int) = switch token.kind {
            case .op("not"): (.not, 4)
            case .op("-"): (.minus, 8)
            default: (.plus, 8)
            }
            let operand = try parse(minimumPower: power)
            let height = operand.height + 1
            try check(height: height, at: token)
            return (.unary(op, operand.node, position: token.position), height)
        default: break
        }
        index -= 1
        throw fail("expected a value, found \(describe(token))", token)
    }
}

/// Evaluates an expression tree with the dialect's rules.
///
/// **Decision** (see docs/DAO-DIALECT.md): nil, false, 0 and empty string/collection are
/// false; an ordering comparison with nil is false, `nil == nil` is true; strings compare
/// lexicographically; arithmetic with nil yields nil; a string mixed with a number in
/// arithmetic or ordering, or division by zero, is an error with its position.
///
/// Static functions of the node, the scope and the expression's text (for errors): an
/// evaluator holding copies of them made every condition of a call copy its whole scope.
enum ExpressionEvaluator {
    static func truthy(_ value: DAOValue) -> Bool {
        switch value {
        case .nil: return false
        case .bool(let b): return b
        case .integer(let i): return i != 0
        case .double(let d): return d != 0
        case .string(let s): return !s.isEmpty
        case .data(let d): return !d.isEmpty
        case .date: return true
        case .array(let a): return !a.isEmpty
        case .dictionary(let d): return !d.isEmpty
        case .model: return true
        }
    }

    private static func fail(_ message: String, _ position: Int, _ text: String) -> ExpressionError {
        ExpressionError(expression: text, position: position, message: message)
    }

    /// The value of `node` for the names in `scope`; `text` is the whole expression, which
    /// errors quote.
    static func evaluate(_ node: ExpressionNode, in scope: DAOScope, text: String) throws -> DAOValue {
        func evaluate(_ node: ExpressionNode) throws -> DAOValue { try ExpressionEvaluator.evaluate(node, in: scope, text: text) }
        func fail(_ message: String, _ position: Int) -> ExpressionError { ExpressionEvaluator.fail(message, position, text) }
        switch node {
        case .literal(let v): return v
        case .path(let parts, _): return scope.lookup(parts)
        case .argument(let index, let parts, _): return scope.lookup(parts, argument: index)
        case .unary(let op, let operand, let position):
            let v = try evaluate(operand)
            switch op {
            case .not: return .bool(!Self.truthy(v))
            case .plus, .minus:
                switch v {
                case .nil: return .nil
                case .integer(let i):
                    if op == .plus { return v }
                    guard i != .min else { throw fail("integer overflow", position) }
                    return .integer(-i)
                case .double(let d): return .double(op == .minus ? -d : d)
                case .bool(let b): return .integer(op == .minus ? (b ? -1 : 0) : (b ? 1 : 0))
                default: throw fail("cannot apply unary '\(op.rawValue)' to \(v.kindPhrase)", position)
                }
            }
        case .binary(let op, let lhs, let rhs, let position):
            switch op {
            case .and:
                guard Self.truthy(try evaluate(lhs)) else { return .bool(false) }
                return .bool(Self.truthy(try evaluate(rhs)))
            case .or:
                if Self.truthy(try evaluate(lhs)) { return .bool(true) }
                return .bool(Self.truthy(try evaluate(rhs)))
            case .xor:
                return .bool(Self.truthy(try evaluate(lhs)) != Self.truthy(try evaluate(rhs)))
            default: break
            }
            let l = try evaluate(lhs)
            let r = try evaluate(rhs)
            switch op {
            case .equal: return .bool(Self.equal(l, r))
            case .notEqual: return .bool(!Self.equal(l, r))
            case .less, .greater, .lessOrEqual, .greaterOrEqual: return .bool(try compare(op, l, r, position, text))
            default: return try arithmetic(op, l, r, position, text)
            }
        }
    }

    /// Equality: numbers (and bools) numerically, strings by content, nil only equals nil.
    static func equal(_ l: DAOValue, _ r: DAOValue) -> Bool {
        switch (l, r) {
        case (.nil, .nil): return true
        case (.nil, _), (_, .nil): return false
        case (.integer(let a), .integer(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.date(let a), .date(let b)): return a == b
        default:
            if let a = numeric(l), let b = numeric(r) { return a == b }
            return l == r
        }
    }

    static func numeric(_ v: DAOValue) -> Double? {
        switch v {
        case .integer, .double, .bool: return v.doubleValue
        default: return nil
        }
    }

    private static func compare(_ op: BinaryOperator, _ l: DAOValue, _ r: DAOValue, _ position: Int, _ text: String) throws -> Bool {
        if l.isNil || r.isNil { return false }
        let order: Int
        switch (l, r) {
        case (.integer(let a), .integer(let b)): order = a < b ? -1 : (a == b ? 0 : 1)
        case (.string(let a), .string(let b)): order = a < b ? -1 : (a == b ? 0 : 1)
        case (.date(let a), .date(let b)): order = a < b ? -1 : (a == b ? 0 : 1)
        default:
            guard let a = Self.numeric(l), let b = Self.numeric(r) else {
                throw fail("cannot compare \(l.kindPhrase) with \(r.kindPhrase) using '\(op.rawValue)'", position, text)
            }
            order = a < b ? -1 : (a == b ? 0 : 1)
        }
        switch op {
        case .less: return order < 0
        case .greater: return order > 0
        case .lessOrEqual: return order <= 0
        default: return order >= 0
        }
    }

    private static func arithmetic(_ op: BinaryOperator, _ l: DAOValue, _ r: DAOValue, _ position: Int, _ text: String) throws -> DAOValue {
        func fail(_ message: String, _ position: Int) -> ExpressionError { ExpressionEvaluator.fail(message, position, text) }
        if l.isNil || r.isNil { return .nil }
        if op == .plus, case .string(let a) = l, case .string(let b) = r { return .string(a + b) }
        guard let ld = Self.numeric(l), let rd = Self.numeric(r) else {
            throw fail("cannot apply '\(op.rawValue)' to \(l.kindPhrase) and \(r.kindPhrase)", position)
        }
        let li = l.int64Value, ri = r.int64Value
        let bothIntegers: Bool
        switch (l, r) {
        case (.double, _), (_, .double): bothIntegers = false
        default: bothIntegers = true
        }
        if bothIntegers, let a = li, let b = ri {
            let result: (Int64, Bool)
            switch op {
            case .plus: result = a.addingReportingOverflow(b)
            case .minus: result = a.subtractingReportingOverflow(b)
            case .times: result = a.multipliedReportingOverflow(by: b)
            case .integerDivide, .remainder, .divide:
                guard b != 0 else { throw fail("division by zero", position) }
                if op == .divide && a % b != 0 { return .double(Double(a) / Double(b)) }
                result = op == .remainder ? a.remainderReportingOverflow(dividingBy: b) : a.dividedReportingOverflow(by: b)
            default: throw fail("unknown operator '\(op.rawValue)'", position)
            }
            guard !result.1 else { throw fail("integer overflow", position) }
            return .integer(result.0)
        }
        switch op {
        case .plus: return .double(ld + rd)
        case .minus: return .double(ld - rd)
        case .times: return .double(ld * rd)
        case .divide:
            guard rd != 0 else { throw fail("division by zero", position) }
            return .double(ld / rd)
        case .integerDivide:
            guard rd != 0 else { throw fail("division by zero", position) }
            let q = (ld / rd).rounded(.towardZero)
            guard let i = Int64(exactly: q) else { throw fail("integer overflow", position) }
            return .integer(i)
        case .remainder:
            guard rd != 0 else { throw fail("division by zero", position) }
            return .double(ld.truncatingRemainder(dividingBy: rd))
        default: throw fail("unknown operator '\(op.rawValue)'", position)
        }
    }
}
