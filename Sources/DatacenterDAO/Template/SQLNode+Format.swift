/// `<format prefix="set" pairs="values" join=","/>`: a dictionary argument written as
/// `prefix k1 = ? join k2 = ?`, values bound.
///
/// **Decision**: keys in sorted order, so the SQL is stable and its statement is cached; a
/// key must be a plain identifier (it is written into the SQL); an empty or nil dictionary
/// renders nothing, not even the prefix.
package final class FormatNode: SQLNode {
    /// Written before the pairs.
    package let prefix: String
    /// The chained access of the dictionary.
    package let pairs: [String]
    /// Written between pairs.
    package let join: String
    package let location: SourceLocation

    /// A `<format>` of the dictionary at `pairs`.
    package init(prefix: String, pairs: [String], join: String, location: SourceLocation) {
        self.prefix = prefix
        self.pairs = pairs
        self.join = join
        self.location = location
    }

    package func render(into context: inout RenderContext) throws {
        let value = context.scope.lookup(pairs)
        if value.isNil { return }
        guard let fields = value.fields else {
            throw DAOError.render("format pairs '\(pairs.joined(separator: "."))' is \(value.kindPhrase), not a dictionary", at: location)
        }
        guard !fields.isEmpty else { return }
        context.buffer.append(text: " " + prefix + " ")
        for (index, key) in fields.keys.sorted().enumerated() {
            guard FormatNode.isIdentifier(key) else {
                throw DAOError.render("format key '\(key)' is not a plain column name", at: location)
            }
            if index > 0 { context.buffer.append(text: join + " ") }
            context.buffer.append(text: key + " = ")
            let encrypted = value.modelTypeName.map { context.cryptRules.contains(DAOCryptRule(className: $0, property: key)) } ?? false
            context.buffer.append(bound: fields[key] ?? .nil, encrypted: encrypted)
        }
        context.buffer.append(text: " ")
    }

    static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.first, first.isLetter || first == "_" else { return false }
        return s.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" }
    }
}
