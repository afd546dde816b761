/// The names visible while a method renders: its arguments (and `foreach` items), then the
/// DAO object's global arguments.
///
/// For example: `DAOScope(["id": 1], globals: ["uid": "u1"]).lookup(["uid"])` is `"u1"`.
public struct DAOScope: Sendable {
    /// Arguments by name, and loop items bound while rendering.
    public private(set) var locals: [String: DAOValue]
    /// The DAO object's global arguments, read when no local has the name.
    public let globals: [String: DAOValue]

    public init(_ locals: [String: DAOValue] = [:], globals: [String: DAOValue] = [:]) {
        self.locals = locals
        self.globals = globals
    }

    /// The value of a chained access such as `["model", "content"]`; nil when unknown.
    public func lookup(_ path: [String]) -> DAOValue {
        guard var name = path.first else { return .nil }
        if name.hasPrefix("$") { name.removeFirst() }
        let root = locals[name] ?? globals[name] ?? .nil
        return root.value(at: path.dropFirst())
    }

    /// True when `name` is an argument, a loop item or a global.
    public func contains(_ name: String) -> Bool { locals[name] != nil || globals[name] != nil }

    /// A copy with `name` bound to `value` (a loop item), shadowing anything of that name.
    public func binding(_ name: String, to value: DAOValue) -> DAOScope {
        var copy = self
        copy.locals[name] = value
        return copy
    }
}
