/// A property that a `<crypt>` rule encrypts, found in a plain object among a call's
/// arguments: crypt rules apply to models of their class, so that value is written as it
/// is. Tools warn with it before a write a user meant to encrypt goes out in plain text.
public struct PlainCryptField: Sendable, Equatable {
    /// The argument holding the object (0-based), itself or inside an array.
    public let argument: Int
    /// The property.
    public let property: String
    /// The model classes whose `<crypt>` rules name the property.
    public let classes: [String]
}

extension DAOConfig {
    /// The properties of plain objects (`.dictionary`, not `.model`) among `arguments`, at
    /// any depth of arrays and objects, that a `<crypt>` rule names: each once per argument.
    public func plainCryptFields(in arguments: [DAOValue]) -> [PlainCryptField] {
        let classesByProperty = Dictionary(grouping: cryptRules, by: \.property).mapValues { $0.map(\.className).sorted() }
        guard !classesByProperty.isEmpty else { return [] }
        var found: [PlainCryptField] = []
        for (index, argument) in arguments.enumerated() {
            var properties = Set<String>()
            func visit(_ value: DAOValue) {
                switch value {
                case .dictionary(let fields):
                    properties.formUnion(fields.keys.filter { classesByProperty[$0] != nil })
                    fields.values.forEach(visit)
                case .model(_, let fields): fields.values.forEach(visit)
                case .array(let elements): elements.forEach(visit)
                default: break
                }
            }
            visit(argument)
            found += properties.sorted().map { PlainCryptField(argument: index, property: $0, classes: classesByProperty[$0] ?? []) }
        }
        return found
    }
}
