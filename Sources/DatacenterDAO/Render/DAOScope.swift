/// The names visible while a method renders: its arguments (and `foreach` items), then the
/// DAO object's global arguments.
///
/// For example: `DAOScope(["id": 1], globals: ["uid": "u1"]).lookup(["uid"])` is `"u1"`.
///
/// A call's arguments are kept as the method's names beside the values as passed, and loop
/// items on a small stack, so rendering a call builds no dictionary: a method has few
/// arguments, and comparing a handful of short names beats hashing them.
public struct DAOScope: Sendable {
    /// Names given as a dictionary (`init(_:globals:)`).
    private var named: [String: DAOValue]
    /// A method's argument names and the values passed, in call order (a later duplicate
    /// name wins, as it did when they were put into a dictionary in order).
    private var argumentNames: [DAOArgumentSpec] = []
    private var argumentValues: [DAOValue] = []
    /// Loop items bound while rendering, innermost last; each shadows everything else.
    private var items: [(name: String, value: DAOValue)] = []
    /// The DAO object's global arguments, read when no local has the name.
    public let globals: [String: DAOValue]

    /// A scope of named `locals` (the method's arguments by name) over the DAO object's `globals`.
    public init(_ locals: [String: DAOValue] = [:], globals: [String: DAOValue] = [:]) {
        self.named = locals
        self.globals = globals
    }

    /// A scope holding a method's arguments: `names[i].name` is `values[i]`.
    init(names: [DAOArgumentSpec], values: [DAOValue], globals: [String: DAOValue]) {
        self.named = [:]
        self.argumentNames = names
        self.argumentValues = values
        self.globals = globals
    }

    /// Arguments by name, and loop items bound while rendering.
    public var locals: [String: DAOValue] {
        var all = named
        for (spec, value) in zip(argumentNames, argumentValues) { all[spec.name] = value }
        for item in items { all[item.name] = item.value }
        return all
    }

    /// The value bound to `name` in this scope (items, arguments, then globals), or nil.
    private func root(_ name: String) -> DAOValue? {
        var i = items.count - 1
        while i >= 0 {
            if DAOScope.same(items[i].name, name) { return items[i].value }
            i -= 1
        }
        if let i = DAOScope.lastIndex(of: name, among: argumentNames) { return argumentValues[i] }
        if !named.isEmpty, let value = named[name] { return value }
        return globals.isEmpty ? nil : globals[name]
    }

    /// `a == b`, rejecting names of different lengths first (most names differ in length,
    /// and that test is cheaper than comparing).
    @inline(__always) static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a == b
    }

    /// The argument of `name` among `names`: the last one (a later duplicate wins).
    @inline(__always) private static func lastIndex(of name: String, among names: [DAOArgumentSpec]) -> Int? {
        var i = names.count - 1
        while i >= 0 {
            if DAOScope.same(names[i].name, name) { return i }
            i -= 1
        }
        return nil
    }

    /// The name a path's first step looks up: without its `$` (`$id` reads `id`).
    @inline(__always) private static func rootName(_ first: String) -> String {
        // The byte test is a quick filter; `hasPrefix` decides, as it always did.
        guard first.utf8.first == UInt8(ascii: "$"), first.hasPrefix("$") else { return first }
        return String(first.dropFirst())
    }

    /// The value of a chained access such as `["model", "content"]`; nil when unknown.
    public func lookup(_ path: [String]) -> DAOValue {
        lookup(path[...])
    }

    /// `lookup` of a part of a path (the holder of a crypt property, without a copy).
    func lookup(_ path: ArraySlice<String>) -> DAOValue {
        guard let first = path.first else { return .nil }
        let root = self.root(DAOScope.rootName(first)) ?? .nil
        return path.count == 1 ? root : root.value(at: path.dropFirst())
    }

    /// The member of the loop item `item` that `lookup(path)` reads while `item` is the
    /// innermost item bound (the innermost item shadows every other name): for a path
    /// `[item, name]` (`$item` too) it is `name`, and `lookup(path)` is then
    /// `element.member(name)` for the element bound. nil for any other path.
    static func itemMember(of path: [String], item: String) -> String? {
        guard path.count == 2, same(rootName(path[0]), item) else { return nil }
        return path[1]
    }

    /// The name a path of one step looks up (without its `$`); nil for chained access.
    static func soleName(of path: [String]) -> String? {
        path.count == 1 ? rootName(path[0]) : nil
    }

    /// The position among `arguments` of the argument whose value `path` starts from, in a
    /// call's scope where loop items named `items` are bound (they shadow it): nil when an
    /// item or no argument has the name (a global).
    static func argumentIndex(ofRootOf path: [String], among arguments: [DAOArgumentSpec], shadowedBy items: [String]) -> Int? {
        guard let first = path.first else { return nil }
        let name = rootName(first)
        guard !items.contains(where: { same($0, name) }) else { return nil }
        return lastIndex(of: name, among: arguments)
    }

    /// `lookup(path)`, for a path that `argumentIndex(ofRootOf:...)` found starts from the
    /// argument at `argument`: read by position in a scope made of the method's arguments
    /// (`init(names:values:globals:)`), looked up in any other (and when `argument` is nil).
    func lookup(_ path: [String], argument: Int?) -> DAOValue {
        guard let argument, let root = self.argument(at: argument) else { return lookup(path) }
        return path.count == 1 ? root : root.value(at: path.dropFirst())
    }

    /// The value of the loop item bound last (there is one: a pass inside a loop's body).
    var innermostItem: DAOValue { items[items.count - 1].value }

    /// The value passed for argument `index` of a scope made of a method's arguments
    /// (`init(names:values:globals:)`); nil for a scope made otherwise.
    func argument(at index: Int) -> DAOValue? {
        index < argumentValues.count ? argumentValues[index] : nil
    }

    /// The position among `arguments` of the argument a call's scope reads for `path`, when
    /// the path is one name that an argument has (`lookup` finds that argument: a scope of
    /// a method's arguments has no items or named locals); nil for chained access or a name
    /// no argument has (a global).
    static func argumentIndex(of path: [String], among arguments: [DAOArgumentSpec]) -> Int? {
        path.count == 1 ? argumentIndex(ofRootOf: path, among: arguments, shadowedBy: []) : nil
    }

    /// True when `name` is an argument, a loop item or a global.
    public func contains(_ name: String) -> Bool { root(name) != nil }

    /// A copy with `name` bound to `value` (a loop item), shadowing anything of that name.
    public func binding(_ name: String, to value: DAOValue) -> DAOScope {
        var copy = self
        copy.push(name, value)
        return copy
    }

    /// Binds `name` to `value` (a loop item) until the matching `pop`.
    mutating func push(_ name: String, _ value: DAOValue) { items.append((name, value)) }

    /// Rebinds the item bound last to `value` (the next element of a loop).
    mutating func rebindLast(_ value: DAOValue) { items[items.count - 1].value = value }

    /// Unbinds the item bound last.
    mutating func pop() { items.removeLast() }
}
