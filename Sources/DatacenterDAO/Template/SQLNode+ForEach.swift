/// `<foreach item collection open separator close reverse>`: the body once per element.
///
/// Each iteration's output is trimmed of surrounding whitespace, and iterations that render
/// nothing are left out (with their separator). **Decision**: an empty or nil collection
/// renders nothing, not even `open`/`close`.
package final class ForEachNode: SQLNode {
    /// The name each element is bound to.
    package let item: String
    /// The chained access of the collection.
    package let collection: [String]
    /// Written before the first element.
    package let open: String
    /// Written between elements.
    package let separator: String
    /// Written after the last element.
    package let close: String
    /// Iterate from the last element.
    package let reverse: Bool
    /// The body.
    package let body: any SQLNode
    package let location: SourceLocation
    /// Set when the body is one `#{}` reference (blank text around it aside) and `open`,
    /// `separator` and `close` hold no quote: every iteration then renders exactly one bound
    /// value, never blank, so the loop writes them straight, without a region per iteration
    /// (the commonest foreach: `in (#{id}, …)`).
    private let soleBoundReference: ReferenceNode?

    /// A `<foreach>` over the array at `collection`, binding each element to `item`.
    package init(item: String, collection: [String], open: String, separator: String, close: String,
                reverse: Bool, body: any SQLNode, location: SourceLocation) {
        self.item = item
        self.collection = collection
        self.open = open
        self.separator = separator
        self.close = close
        self.reverse = reverse
        self.body = body
        self.location = location
        self.soleBoundReference = ForEachNode.soleBoundReference(of: body)
    }

    private static func soleBoundReference(of body: any SQLNode) -> ReferenceNode? {
        if let reference = body as? ReferenceNode { return reference.mode == .bind ? reference : nil }
        guard let sequence = body as? SequenceNode else { return nil }
        var found: ReferenceNode?
        for child in sequence.children {
            if let text = child as? TextNode, TextScan.isBlank(text.text) { continue }
            guard found == nil, let reference = child as? ReferenceNode, reference.mode == .bind else { return nil }
            found = reference
        }
        return found
    }

    /// The elements the body renders for, in order (`reverse` applied); nil for a nil
    /// collection, which renders as an empty one.
    /// - throws: `DAOError.render` when the collection is neither nil nor an array.
    func elements(in scope: DAOScope) throws -> [DAOValue]? {
        try elements(of: scope.lookup(collection))
    }

    /// `elements(in:)` of the collection's value, `value`.
    func elements(of value: DAOValue) throws -> [DAOValue]? {
        switch value {
        case .nil: return nil
        case .array(let elements): return reverse ? elements.reversed() : elements
        default:
            throw DAOError.render("foreach collection '\(collection.joined(separator: "."))' is \(value.kindPhrase), not an array",
                                  at: location)
        }
    }

    package func render(into context: inout RenderContext) throws {
        guard let elements = try elements(in: context.scope) else { return }
        if let reference = soleBoundReference {
            guard !elements.isEmpty else { return }
            context.buffer.append(text: open)
            for (index, element) in elements.enumerated() {
                if index > 0 { context.buffer.append(text: separator) }
                context.scope.push(item, element)
                defer { context.scope.pop() }
                try reference.render(into: &context)
            }
            context.buffer.append(text: close)
            return
        }
        // The whole output is one region; each iteration is a region inside it, rendered as
        // if it were the first, trimmed, and dropped when blank.
        let output = context.buffer.openRegion()
        var wroteAny = false
        for element in elements {
            let iteration = context.buffer.openRegion()
            context.scope.push(item, element)
            defer { context.scope.pop() }
            try body.render(into: &context)
            context.buffer.trimWhitespace(iteration)
            if context.buffer.isBlank(iteration) {
                context.buffer.drop(iteration)
            } else {
                context.buffer.close(iteration, prefix: wroteAny ? separator : open)
                wroteAny = true
            }
            if context.halt != nil { break }
        }
        guard wroteAny else { context.buffer.drop(output); return }
        context.buffer.append(text: close)
        context.buffer.close(output)
    }
}
