import Foundation
import DatacenterKit

/// A node of a compiled SQL template, MyBatis style: each kind of node renders itself into
/// the call's context. Nodes are immutable and built once when the config loads; they are
/// classes, so a tree holds and passes its children by reference, not by copying them.
///
/// `location` and `render(into:)` are documented here once; each node's own doc comment
/// says which element it stands for and what it renders.
package protocol SQLNode: AnyObject, Sendable {
    /// Where the node starts in the config.
    var location: SourceLocation { get }
    /// Appends this node's SQL for the call in `context`.
    /// - throws: `DAOError` (`.render`, `.expression`) naming the node's location.
    func render(into context: inout RenderContext) throws
}

/// A `<crypt class="C" property="p"/>` rule.
package struct DAOCryptRule: Sendable, Hashable {
    /// The model type name.
    package let className: String
    /// The property encrypted.
    package let property: String

    /// The rule that encrypts `property` of models of type `className`.
    package init(className: String, property: String) {
        self.className = className
        self.property = property
    }
}

/// A list of nodes rendered in order (MyBatis's mixed node); stops when a trim halts.
package final class SequenceNode: SQLNode {
    /// The children.
    package let children: [any SQLNode]
    package let location: SourceLocation

    /// Set when every child is text, `${T}` or a `#{}` reference: the SQL is then the same
    /// for every call on a table, and `Renderer` only looks up the bound values.
    let staticPlan: StaticStatementPlan?
    /// For each child, whether it is a dynamic element (not text, `${T}` or a reference):
    /// its edges are where two elements' text meet (`RenderBuffer.markElementEdge`).
    private let isElement: [Bool]

    /// A sequence that renders `children` in order.
    package init(_ children: [any SQLNode], location: SourceLocation) {
        self.children = children
        self.location = location
        self.staticPlan = StaticStatementPlan(children, location: location)
        self.isElement = children.map { !($0 is TextNode || $0 is TableNameNode || $0 is ReferenceNode) }
    }

    package func render(into context: inout RenderContext) throws {
        for (index, child) in children.enumerated() {
            if context.halt != nil { return }
            if isElement[index] { context.buffer.markElementEdge() }
            try child.render(into: &context)
            if isElement[index] { context.buffer.markElementEdge() }
        }
    }
}

/// The precompiled form of a statement without dynamic parts (text, `${T}` and `#{}` only):
/// its normalized SQL is built once per table name, so a call only looks up its bindings.
/// This is what makes a method-level foreach insert cost little more than binding values.
final class StaticStatementPlan: Sendable {
    /// The `#{}` references in placeholder order.
    let references: [ReferenceNode]
    /// Where the first `${T}` is (for the missing-table-name error), when there is one.
    let tableLocation: SourceLocation?
    /// The normalized SQL with a NUL byte where the table name goes.
    private let template: [UInt8]
    /// The offsets of the placeholders in `template`.
    private let templatePlaceholders: [Int]
    /// Where the statement starts in the config.
    let location: SourceLocation
    /// The statement of the table name used last (one DAO object usually uses one).
    private let cached = LockedState<(table: String, statement: StaticStatement)?>(nil)

    /// The statement for one table name.
    struct StaticStatement: Sendable {
        /// The SQL, with `?` for each reference.
        let sql: String
        /// The UTF-8 offsets of the placeholders in `sql`.
        let placeholders: [Int]
    }

    /// The `${T}` nodes, in the order of the NUL bytes that stand for them in `template`.
    private let tableNodes: [TableNameNode]

    /// nil when some child is dynamic.
    init?(_ children: [any SQLNode], location: SourceLocation) {
        var writer = SQLWriter()
        var references: [ReferenceNode] = []
        var tableLocation: SourceLocation?
        var tableNodes: [TableNameNode] = []
        for child in children {
            switch child {
            case let text as TextNode:
                var t = text.text
                t.withUTF8 { writer.template($0) }
            case let table as TableNameNode:
                tableLocation = tableLocation ?? table.location
                // A NUL where the name goes: the plan's statements take its text from the
                // node, so a `${T}` inside quotes writes the name as it does there.
                tableNodes.append(table)
                var sentinel = "\u{0}"
                sentinel.withUTF8 { writer.template($0) }
            case let reference as ReferenceNode where reference.mode == .bind:
                references.append(reference)
                writer.placeholder()
            default:
                return nil
            }
        }
        self.references = references
        self.tableLocation = tableLocation
        self.tableNodes = tableNodes
        self.template = writer.sql
        self.templatePlaceholders = writer.marks.placeholders
        self.location = location
    }

    /// The statement for `table`.
    /// - throws: `DAOError.render` when the SQL uses `${T}` and `table` is empty.
    func statement(forTable table: String) throws -> StaticStatement {
        if let statement = cached.withLock({ $0?.table == table ? $0?.statement : nil }) { return statement }
        if let tableLocation, table.isEmpty { throw DAOError.render("${T} used but no table name is set", at: tableLocation) }
        let names = try tableNodes.map { Array(try $0.text(for: table).utf8) }
        var bytes: [UInt8] = []
        var placeholders: [Int] = []
        bytes.reserveCapacity(template.count + (names.first?.count ?? 0) * names.count)
        var next = 0, nextName = 0
        for (offset, byte) in template.enumerated() {
            if next < templatePlaceholders.count, templatePlaceholders[next] == offset {
                placeholders.append(bytes.count)
                next += 1
            }
            if byte == 0 {
                bytes += names[nextName]
                nextName += 1
            } else {
                bytes.append(byte)
            }
        }
        let sql = String(decoding: bytes, as: UTF8.self)
        let statement = StaticStatement(sql: sql, placeholders: placeholders)
        cached.withLock { $0 = (table, statement) }
        return statement
    }
}
