/// A bad expression in a `true=`/`false=` attribute, found while compiling it (load time) or
/// evaluating it (call time). Names the expression and the 1-based character position at fault.
///
/// For example: `bad expression "a > " at position 5: expected a value, found the end`.
public struct ExpressionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The whole expression as written.
    public let expression: String
    /// 1-based character position in `expression` of the token at fault.
    public let position: Int
    /// What went wrong (never the value of an argument: it may be secret).
    public let message: String

    /// An error in `expression` at 1-based character `position`; `message` must not quote an
    /// argument's value.
    public init(expression: String, position: Int, message: String) {
        self.expression = expression
        self.position = position
        self.message = message
    }

    /// The expression is quoted as a short excerpt around `position` (`Excerpt`), so a long
    /// expression never floods the error line.
    public var description: String {
        "bad expression \"\(Excerpt.around(expression, position: position))\" at position \(position): \(message)"
    }
}
