/// Values to bind to a statement's parameters.
///
/// Positional values fill anonymous `?` and indexed `?N` parameters (`?N` takes the N-th value);
/// named values fill `:name`, `@name` and `$name` (the key is the name without its prefix).
public struct StatementArguments: Sendable, Equatable {
    /// Values by position, for `?` and `?N`.
    public var positional: [DatabaseValue]
    /// Values by name, for `:name`, `@name` and `$name`.
    public var named: [String: DatabaseValue]

    /// Arguments by position and by name; either may be empty.
    public init(_ positional: [DatabaseValue] = [], named: [String: DatabaseValue] = [:]) {
        self.positional = positional
        self.named = named
    }

    /// No arguments.
    public static let none = StatementArguments([], named: [:])

    /// True when there is nothing to bind.
    public var isEmpty: Bool { positional.isEmpty && named.isEmpty }
}

extension StatementArguments: ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// `[a, b]`: positional arguments.
    public init(arrayLiteral elements: DatabaseValue...) { self.init(elements) }
    /// `["name": v]`: named arguments (a repeated name keeps its last value).
    public init(dictionaryLiteral elements: (String, DatabaseValue)...) {
        self.init([], named: Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
