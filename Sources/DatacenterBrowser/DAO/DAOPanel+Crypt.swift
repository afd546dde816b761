import DatacenterDAO
import DatacenterKit
import Foundation

/// The DAO panel's rule for encrypted columns, checked before a write is offered for
/// confirmation (so the reason names the argument), and enforced while it runs by
/// `CryptColumnGuard` (so nothing else can slip through).
///
/// The DAO engine encrypts a bound value only when it is a property named by `<crypt>` of a
/// model of the rule's class (`{"$model": "MessageModel", …}` in a field). A statement that
/// writes the table and names one of its encrypted columns (an INSERT or UPDATE, or a
/// REPLACE) must therefore have at least one encrypted binding, and a key to encrypt with;
/// otherwise the write is refused.
extension DAOPanel {
    /// Why the call would write an encrypted column in plaintext, or nil when it would not.
    static func cryptRefusal(_ call: RenderedCall, fields: [Field], values: [DAOValue], config: DAOConfig,
                             encryptedColumns: Set<String>, hasKey: Bool) -> String? {
        guard !encryptedColumns.isEmpty else { return nil }
        for statement in call.statements where !statement.skipped && writes(statement.sql) {
            let named = identifiers(in: statement.sql).intersection(encryptedColumns.map { $0.lowercased() })
            guard let column = named.sorted().first else { continue }
            if statement.encryptedBindings.isEmpty {
                return "column \(column) is encrypted, but no value for it would be: " + modelHint(fields: fields, values: values, config: config)
            }
            if !hasKey { return "column \(column) is encrypted and no key was given (open the browser with --key)" }
        }
        return nil
    }

    /// Which arguments to give as models: the ones holding plain objects (a likely slip),
    /// else every argument; with the `<crypt>` classes of the config.
    private static func modelHint(fields: [Field], values: [DAOValue], config: DAOConfig) -> String {
        let classes = Set(config.cryptRules.map(\.className)).sorted()
        let example = classes.first.map { "{\"$model\": \"\($0)\", …}" } ?? "a model"
        func holdsObject(_ value: DAOValue) -> Bool {
            switch value {
            case .dictionary: return true
            case .array(let elements): return elements.contains(where: holdsObject)
            default: return false
            }
        }
        let suspects = zip(fields, values).filter { holdsObject($0.1) }.map { "$" + $0.0.name }
        let names = (suspects.isEmpty ? fields.map { "$" + $0.name } : suspects).joined(separator: ", ")
        let rules = config.cryptRules.sorted { ($0.className, $0.property) < ($1.className, $1.property) }
            .map { "<crypt class=\"\($0.className)\" property=\"\($0.property)\">" }.joined(separator: ", ")
        return "give \(names.isEmpty ? "the argument" : names) as \(example) (a plain object or string is not encrypted; \(rules))"
    }

    /// True when `sql` starts with a keyword that writes rows (INSERT, UPDATE, REPLACE).
    static func writes(_ sql: String) -> Bool {
        let first = sql.drop { $0.isWhitespace || $0 == "(" }.prefix { $0.isLetter }.lowercased()
        return ["insert", "update", "replace"].contains(first)
    }

    /// The identifiers of `sql`, lowercased, outside string literals (quoted identifiers
    /// without their quotes).
    static func identifiers(in sql: String) -> Set<String> {
        var names = Set<String>()
        var current = ""
        var quote: Character?
        for c in sql {
            if let q = quote {
                if c == q {
                    if q != "'" { names.insert(current.lowercased()) }
                    current = ""
                    quote = nil
                } else if q != "'" {
                    current.append(c)
                }
                continue
            }
            if c.isLetter || c.isNumber || c == "_" {
                current.append(c)
                continue
            }
            if !current.isEmpty { names.insert(current.lowercased()) }
            current = ""
            if c == "'" || c == "\"" || c == "`" { quote = c } else if c == "[" { quote = "]" }
        }
        if !current.isEmpty { names.insert(current.lowercased()) }
        return names
    }

    /// The bindings as SQL literals, an encrypted one as `<encrypted: N bytes>` (the size of
    /// its ciphertext under `crypt`) or `<encrypted: no key>`: the plaintext is not repeated.
    static func bindings(of statement: RenderedSQL, crypt: any DataCrypt) -> String {
        let encrypted = Set(statement.encryptedBindings)
        return statement.bindings.enumerated().map { index, value in
            guard encrypted.contains(index) else { return value.description }
            let plaintext: Data
            switch value {
            case .text(let text): plaintext = Data(text.utf8)
            case .blob(let data): plaintext = data
            default: plaintext = Data(value.description.utf8)
            }
            guard let ciphertext = try? crypt.encrypt(plaintext) else { return "<encrypted: no key>" }
            return "<encrypted: \(ciphertext.count) bytes>"
        }.joined(separator: ", ")
    }
}
