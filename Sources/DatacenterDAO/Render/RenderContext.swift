/// Everything one rendering pass reads and writes.
package struct RenderContext: Sendable {
    /// Why rendering stopped early.
    package enum Halt: Sendable, Equatable {
        /// `onVoid="quit"`: run nothing, succeed.
        case quit
        /// `onVoid="ignoreAfter"`: run what is rendered so far.
        case ignoreAfter
    }

    /// The names visible now.
    package var scope: DAOScope
    /// The table name for `${T}`.
    package let tableName: String
    /// The crypt rules of the config.
    package let cryptRules: Set<DAOCryptRule>
    /// Set by an `onVoid` trim whose body was empty; sequences stop rendering then.
    package var halt: Halt?
    var buffer = RenderBuffer()

    init(scope: DAOScope, tableName: String, cryptRules: Set<DAOCryptRule>) {
        self.scope = scope
        self.tableName = tableName
        self.cryptRules = cryptRules
    }

    /// True when a `<crypt>` rule covers the value at `path` (see `DAOScope.isEncrypted`).
    func isEncrypted(_ path: [String]) -> Bool { scope.isEncrypted(path, by: cryptRules) }
}

extension DAOScope {
    /// True when one of `rules` covers the value at `path`: its holder is a model of the
    /// rule's class and the last step is the rule's property.
    func isEncrypted(_ path: [String], by rules: Set<DAOCryptRule>) -> Bool {
        guard path.count >= 2, !rules.isEmpty, let property = path.last,
              let className = lookup(path.dropLast()).modelTypeName else { return false }
        return rules.contains(DAOCryptRule(className: className, property: property))
            || rules.contains(DAOCryptRule(className: className.split(separator: ".").last.map(String.init) ?? className,
                                           property: property))
    }
}
