/// A node of a compiled SQL template, MyBatis style: each kind of node renders itself into
/// the call's context. Nodes are immutable and built once when the config loads.
public protocol SQLNode: Sendable {
    /// Where the node starts in the config.
    var location: SourceLocation { get }
    /// Appends this node's SQL for the call in `context`.
    /// - throws: `DAOError` (`.render`, `.expression`) naming the node's location.
    func render(into context: inout RenderContext) throws
}

/// A `<crypt class="C" property="p"/>` rule.
public struct DAOCryptRule: Sendable, Hashable {
    /// The model type name.
    public let className: String
    /// The property encrypted.
    public let property: String

    public init(className: String, property: String) {
        self.className = className
        self.property = property
    }
}

/// Everything one rendering pass reads and writes.
public struct RenderContext: Sendable {
    /// Why rendering stopped early.
    public enum Halt: Sendable, Equatable {
        /// `onVoid="quit"`: run nothing, succeed.
        case quit
        /// `onVoid="ignoreAfter"`: run what is rendered so far.
        case ignoreAfter
    }

    /// The names visible now.
    public var scope: DAOScope
    /// The table name for `${T}`.
    public let tableName: String
    /// The crypt rules of the config.
    public let cryptRules: Set<DAOCryptRule>
    /// Set by an `onVoid` trim whose body was empty; sequences stop rendering then.
    public var halt: Halt?
    var buffer: RenderBuffer

    init(scope: DAOScope, tableName: String, cryptRules: Set<DAOCryptRule>, buffer: RenderBuffer = RenderBuffer()) {
        self.scope = scope
        self.tableName = tableName
        self.cryptRules = cryptRules
        self.buffer = buffer
    }

    /// Renders `node` into a fresh buffer that starts in this buffer's quote state, and
    /// returns that buffer; the scope and halt are shared with this context.
    mutating func renderDetached(_ node: any SQLNode, scope: DAOScope? = nil) throws -> RenderBuffer {
        let savedBuffer = buffer
        let savedScope = self.scope
        buffer = RenderBuffer(openQuote: savedBuffer.openQuote)
        if let scope { self.scope = scope }
        defer {
            buffer = savedBuffer
            self.scope = savedScope
        }
        try node.render(into: &self)
        return buffer
    }

    /// True when a `<crypt>` rule covers the value at `path` (its holder is a model of the
    /// rule's class and the last step is the rule's property).
    func isEncrypted(_ path: [String]) -> Bool {
        guard path.count >= 2, !cryptRules.isEmpty, let property = path.last,
              let className = scope.lookup(Array(path.dropLast())).modelTypeName else { return false }
        return cryptRules.contains(DAOCryptRule(className: className, property: property))
            || cryptRules.contains(DAOCryptRule(className: className.split(separator: ".").last.map(String.init) ?? className,
                                                property: property))
    }
}

/// A list of nodes rendered in order (MyBatis's mixed node); stops when a trim halts.
public struct SequenceNode: SQLNode {
    /// The children.
    public let children: [any SQLNode]
    public let location: SourceLocation

    public init(_ children: [any SQLNode], location: SourceLocation) {
        self.children = children
        self.location = location
    }

    public func render(into context: inout RenderContext) throws {
        for child in children {
            if context.halt != nil { return }
            try child.render(into: &context)
        }
    }
}
