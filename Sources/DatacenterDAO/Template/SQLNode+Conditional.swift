/// A compiled `true="expr"` or `false="expr"` test.
///
/// A class, immutable like the nodes that hold it: rendering tests a condition where it is
/// stored, where a struct (an expression, its text and its location) was copied per test.
package final class DAOCondition: Sendable {
    /// The expression.
    package let expression: Expression
    /// True for `true=`, false for `false=`.
    package let expected: Bool
    /// Where the attribute is.
    package let location: SourceLocation

    /// A test that holds when `expression` is true (`expected` true) or false (`expected`
    /// false).
    package init(expression: Expression, expected: Bool, location: SourceLocation) {
        self.expression = expression
        self.expected = expected
        self.location = location
    }

    /// This test with the names `argument` places among a method's arguments read by
    /// position (`Expression.resolvingArguments`).
    func resolvingArguments(_ argument: ([String]) -> Int?) -> DAOCondition {
        DAOCondition(expression: expression.resolvingArguments(argument), expected: expected, location: location)
    }

    /// Whether the body should render for the names in `scope`.
    package func holds(in scope: DAOScope) throws -> Bool {
        do {
            return try expression.isTrue(in: scope) == expected
        } catch let error as ExpressionError {
            throw DAOError.expression(error, at: location)
        }
    }
}

/// `<if true|false="expr">`: the body renders when the test holds.
package final class IfNode: SQLNode {
    /// The test.
    package let condition: DAOCondition
    /// The body.
    package let body: any SQLNode
    package let location: SourceLocation

    /// An `<if>` that renders `body` when `condition` holds.
    package init(condition: DAOCondition, body: any SQLNode, location: SourceLocation) {
        self.condition = condition
        self.body = body
        self.location = location
    }

    package func render(into context: inout RenderContext) throws {
        if try condition.holds(in: context.scope) { try body.render(into: &context) }
    }
}

/// `<choose>`: the first `<when>` whose test holds renders, else `<otherwise>` if any.
package final class ChooseNode: SQLNode {
    /// The `<when>` branches in order.
    package let branches: [(condition: DAOCondition, body: any SQLNode)]
    /// The `<otherwise>` body.
    package let otherwise: (any SQLNode)?
    package let location: SourceLocation

    /// A `<choose>` of `branches` in order, with `otherwise` for when no test holds.
    package init(branches: [(condition: DAOCondition, body: any SQLNode)], otherwise: (any SQLNode)?, location: SourceLocation) {
        self.branches = branches
        self.otherwise = otherwise
        self.location = location
    }

    package func render(into context: inout RenderContext) throws {
        for branch in branches where try branch.condition.holds(in: context.scope) {
            try branch.body.render(into: &context)
            return
        }
        try otherwise?.render(into: &context)
    }
}
