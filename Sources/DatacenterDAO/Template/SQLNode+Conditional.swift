/// A compiled `true="expr"` or `false="expr"` test.
public struct DAOCondition: Sendable {
    /// The expression.
    public let expression: Expression
    /// True for `true=`, false for `false=`.
    public let expected: Bool
    /// Where the attribute is.
    public let location: SourceLocation

    /// A test that holds when `expression` is true (`expected` true) or false (`expected`
    /// false).
    public init(expression: Expression, expected: Bool, location: SourceLocation) {
        self.expression = expression
        self.expected = expected
        self.location = location
    }

    /// Whether the body should render for the names in `scope`.
    public func holds(in scope: DAOScope) throws -> Bool {
        do {
            return try expression.isTrue(in: scope) == expected
        } catch let error as ExpressionError {
            throw DAOError.expression(error, at: location)
        }
    }
}

/// `<if true|false="expr">`: the body renders when the test holds.
public final class IfNode: SQLNode {
    /// The test.
    public let condition: DAOCondition
    /// The body.
    public let body: any SQLNode
    public let location: SourceLocation

    /// An `<if>` that renders `body` when `condition` holds.
    public init(condition: DAOCondition, body: any SQLNode, location: SourceLocation) {
        self.condition = condition
        self.body = body
        self.location = location
    }

    public func render(into context: inout RenderContext) throws {
        if try condition.holds(in: context.scope) { try body.render(into: &context) }
    }
}

/// `<choose>`: the first `<when>` whose test holds renders, else `<otherwise>` if any.
public final class ChooseNode: SQLNode {
    /// The `<when>` branches in order.
    public let branches: [(condition: DAOCondition, body: any SQLNode)]
    /// The `<otherwise>` body.
    public let otherwise: (any SQLNode)?
    public let location: SourceLocation

    /// A `<choose>` of `branches` in order, with `otherwise` for when no test holds.
    public init(branches: [(condition: DAOCondition, body: any SQLNode)], otherwise: (any SQLNode)?, location: SourceLocation) {
        self.branches = branches
        self.otherwise = otherwise
        self.location = location
    }

    public func render(into context: inout RenderContext) throws {
        for branch in branches where try branch.condition.holds(in: context.scope) {
            try branch.body.render(into: &context)
            return
        }
        try otherwise?.render(into: &context)
    }
}
