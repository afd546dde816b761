import DatacenterKit

/// A config file that cannot be loaded: where (`file:line:column`) and what is at fault.
///
/// Its description has the shape compilers use, so editors and terminals link to it:
/// `demo.xml:12:5: error: unknown element <fi> (did you mean <if>?)`.
public struct DAOConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public enum Kind: Sendable, Equatable {
        /// libxml2 refused the file (not well-formed XML); its message.
        case xmlSyntax(String)
        /// The file could not be read.
        case unreadable(String)
        /// The root element is not `<module>`.
        case notAModule(found: String)
        /// An element the dialect does not have here, with a suggestion.
        case unknownElement(String, suggestion: String?)
        /// An element that exists, in a place it may not appear (`<when>` outside `<choose>`).
        case misplacedElement(String, context: String)
        /// An attribute the element does not take, with a suggestion.
        case unknownAttribute(String, element: String, suggestion: String?)
        /// A required attribute is missing.
        case missingAttribute(String, element: String)
        /// An attribute value the dialect does not accept.
        case invalidAttribute(String, element: String, value: String, expected: String)
        /// `${name}` names no const, sql fragment or table; with a suggestion.
        case unknownName(String, suggestion: String?)
        /// Consts or fragments that reference each other in a loop.
        case referenceCycle([String])
        /// A `#{}`, `@{}`, `${}` or `%{}` that cannot be read.
        case badReference(String, reason: String)
        /// An expression that does not compile.
        case badExpression(ExpressionError)
        /// Two methods with one id and the same argument count.
        case duplicateMethod(String, arity: Int, first: SourceLocation)
        /// Two definitions of one const, fragment or map.
        case duplicateDefinition(String, kind: String, first: SourceLocation)
        /// Text (or other elements) beside `<step>`s in one body.
        case stepMixedWithText
        /// A `<step>` inside a `<step>`.
        case nestedStep
        /// `<try>` with company in its method, or without `<except>`.
        case badTry(String)
        /// A name used twice where it must be unique (an argument, a foreach item).
        case duplicateName(String, reason: String)
        /// The module's `initializer` names no `update` method without arguments.
        case unknownInitializer(String, suggestion: String?)
        /// A reference to a map that is not defined.
        case unknownMap(String, suggestion: String?)
        /// A `@{}`, `#{}`, `${T}` or `<format>` inside a string literal, quoted identifier or
        /// comment of the template (`context` says which): values are written only into
        /// plain SQL (see `TemplateContextCheck`).
        case valueInQuotedText(String, context: String)
        /// A dynamic element whose text (`part`: its body, open and close, separator, prefix,
        /// join) ends in another lexical state than it started in: `state` is where it ends.
        case unbalancedText(element: String, part: String, state: String)
        /// A `--` comment inside an element that trims its text (`<where>`, `<set>`,
        /// `<trim>`, `<foreach>`): trimming can drop the newline that ends it.
        case lineCommentInTrimmedText(element: String)
        /// A `<!DOCTYPE>` declaring entities, a reference to an entity, or another XML
        /// construct whose text would not reach the SQL (a processing instruction); `what`.
        case unsupportedXML(String)
        /// `${}` references chained deeper than `DAOLimits.spliceDepth`, starting at the named
        /// const or fragment (or statement text when the name is empty).
        case spliceTooDeep(String, limit: Int)
        /// `${}` splicing made the named const or fragment (or a statement text when the name
        /// is empty) larger than `DAOLimits.splicedSize` bytes.
        case splicedTooLarge(String, limit: Int)
        /// An element with more than `DAOLimits.attributesPerElement` attributes.
        case tooManyAttributes(element: String, limit: Int)
        /// An attribute value longer than `DAOLimits.attributeLength` bytes.
        case attributeTooLong(String, element: String, limit: Int)
    }

    /// What is wrong.
    public let kind: Kind
    /// Where.
    public let location: SourceLocation

    /// An error of `kind` at `location`.
    public init(_ kind: Kind, at location: SourceLocation) {
        self.kind = kind
        self.location = location
    }

    /// The message without the location. Input it quotes (names, values) is shortened to a
    /// short excerpt with control characters escaped (`Excerpt`), so a message stays one line.
    public var message: String {
        func hint(_ s: String?) -> String { s.map { " (did you mean \($0)?)" } ?? "" }
        func q(_ s: String) -> String { Excerpt.of(s) }
        switch kind {
        case .xmlSyntax(let m): return "malformed XML: \(Excerpt.of(m, limit: 160))"
        case .unreadable(let m): return "cannot read the config: \(m)"
        case .notAModule(let found): return "the root element is <\(q(found))>, expected <module>"
        case .unknownElement(let name, let s): return "unknown element <\(q(name))>" + hint(s.map { "<\($0)>" })
        case .misplacedElement(let name, let context): return "<\(q(name))> is not allowed \(context)"
        case .unknownAttribute(let name, let element, let s):
            return "unknown attribute '\(q(name))' on <\(q(element))>" + hint(s.map { "'\($0)'" })
        case .missingAttribute(let name, let element): return "<\(q(element))> needs the attribute '\(name)'"
        case .invalidAttribute(let name, let element, let value, let expected):
            return "invalid \(q(name))=\"\(q(value))\" on <\(q(element))>: expected \(expected)"
        case .unknownName(let name, let s): return "unknown name ${\(q(name))}" + hint(s.map(q))
        case .referenceCycle(let names): return "reference cycle: " + names.map { "${\(q($0))}" }.joined(separator: " → ")
        case .badReference(let text, let reason): return "bad reference \(q(text)): \(reason)"
        case .badExpression(let e): return e.description
        case .duplicateMethod(let id, let arity, let first):
            return "duplicate method '\(q(id))' with \(arity) argument(s); the first is at \(first)"
        case .duplicateDefinition(let name, let kind, let first): return "duplicate \(kind) '\(q(name))'; the first is at \(first)"
        case .stepMixedWithText: return "text or elements beside <step>: a body of steps holds only <step> elements"
        case .nestedStep: return "<step> cannot contain another <step>"
        case .badTry(let why): return "bad <try>: \(why)"
        case .duplicateName(let name, let reason): return "duplicate name '\(q(name))': \(reason)"
        case .unknownInitializer(let name, let s):
            return "initializer '\(q(name))' names no <update> method without arguments" + hint(s.map { "'\(q($0))'" })
        case .unknownMap(let name, let s): return "unknown map ':\(q(name))'" + hint(s.map { "':\(q($0))'" })
        case .valueInQuotedText(let what, let context) where context.hasSuffix("comment"):
            let fix = what.hasPrefix("#") || what.hasPrefix("@") || what.hasPrefix("$")
                ? "a comment is not SQL, so nothing is written or bound there; write " + q(what) + " outside the comment"
                : "values are written only into plain SQL"
            return "\(q(what)) inside \(context): \(fix)"
        case .valueInQuotedText(let what, let context):
            let fix = what.hasPrefix("#") ? "a ? there is text, not a parameter; bind the whole value with " + q(what) + " outside the quotes"
                : what.hasPrefix("@") ? "its value would be written into them and could end them; write " + q(what)
                    + " outside the quotes (it is quoted as one literal) or bind it with #" + q(String(what.dropFirst()))
                : "values are written only into plain SQL"
            return "\(q(what)) inside \(context): \(fix)"
        case .unbalancedText(let element, let part, let state):
            return "the \(part) of <\(element)> ends inside \(state) it did not start in: a quote or comment must close "
                + "within the element that opens it"
        case .unsupportedXML(let what): return what
        case .lineCommentInTrimmedText(let element):
            return "a -- comment inside <\(element)>: trimming its text can remove the newline that ends the comment, "
                + "which would then swallow the SQL after it; use /* */"
        case .spliceTooDeep(let name, let limit):
            let what = name.isEmpty ? "this text" : "${\(q(name))}"
            return "${} references nest more than \(limit) levels deep from \(what) (the limit on splice depth)"
        case .splicedTooLarge(let name, let limit):
            let what = name.isEmpty ? "this text" : "${\(q(name))}"
            return "splicing ${} references makes \(what) larger than \(limit) bytes (the limit on spliced size)"
        case .tooManyAttributes(let element, let limit):
            return "<\(q(element))> has more than \(limit) attributes (the most an element may have): split it (consts can be "
                + "declared over several <const> elements)"
        case .attributeTooLong(let name, let element, let limit):
            return "the value of '\(q(name))' on <\(q(element))> is longer than \(limit) bytes (the most the XML parser reads "
                + "in one attribute)"
        }
    }

    /// `file:line:column: error: message`.
    public var description: String { "\(location): error: \(message)" }
}

/// Suggestions for misspelled names: config names here, subcommand names on the command line.
package enum DidYouMean {
    /// The candidate closest to `name` by edit distance (case-insensitive), when it is close
    /// enough to be a likely typo (distance ≤ 2, and less than the name's length).
    ///
    /// Bounded work: no suggestion for a name longer than `DAOLimits.suggestionNameLength`
    /// characters, and a candidate whose length differs by more than 2 (or that is that long
    /// too) is skipped without comparing, so each comparison costs at most 64 × 66 steps.
    package static func suggest(_ name: String, among candidates: some Sequence<String>) -> String? {
        let limit = DAOLimits.suggestionNameLength
        // A character is at most a few UTF-8 bytes; the byte count is known without a walk.
        guard name.utf8.count <= 8 * limit, name.count <= limit else { return nil }
        let lower = Array(name.lowercased())
        var best: (String, Int)?
        for candidate in candidates where candidate != name {
            guard candidate.utf8.count <= 8 * (limit + 2) else { continue }
            let other = Array(candidate.lowercased())
            guard abs(other.count - lower.count) <= 2 else { continue } // the distance is at least that
            let d = distance(lower, other)
            if d <= 2, d < max(name.count, 2), best.map({ d < $0.1 }) ?? true { best = (candidate, d) }
        }
        return best?.0
    }

    /// Edit distance counting a swap of neighbours as one edit (optimal string alignment).
    static func distance(_ a: String, _ b: String) -> Int { distance(Array(a), Array(b)) }

    /// Edit distance of two character arrays, in O(a.count × b.count) time.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        WorkMeter.count(.distanceCells, a.count * b.count)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var beforePrevious = previous
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1) // a transposition
                }
            }
            beforePrevious = previous
            previous = current
        }
        return previous[b.count]
    }
}
