import DatacenterKit
import Foundation

/// Turns a select's rows into its `result`: scalars, dictionaries, models and maps, with
/// `<crypt>` columns decrypted for the class the rows become.
struct ResultMapper {
    /// The config's `<map>`s by id.
    let maps: [String: DAOMap]
    /// The config's `<crypt>` rules.
    let cryptRules: Set<DAOCryptRule>
    let decryptor: any DataCrypt
    let registry: DAOModelRegistry

    /// A mapper for `config`'s maps and crypt rules (only those are kept, not the whole config).
    init(config: DAOConfig, decryptor: any DataCrypt, registry: DAOModelRegistry) {
        self.maps = config.maps
        self.cryptRules = config.cryptRules
        self.decryptor = decryptor
        self.registry = registry
    }

    /// True when `type` is one value read from the first row that `mapFirstRow(of:as:)` builds
    /// straight from the statement: a scalar or a dictionary (nothing to decrypt or decode,
    /// and nothing that can fail).
    static func readsFirstRowDirectly(_ type: DAOResultType) -> Bool {
        guard !type.isArray else { return false }
        switch type.element {
        case .model, .map: return false
        default: return true
        }
    }

    /// The value of a `readsFirstRowDirectly` type for the row `statement` is on: what `map`
    /// returns for that row, without building the row first (no crypt rule or map is read,
    /// so no mapper is needed).
    static func mapFirstRow(of statement: Statement, as type: DAOResultType) -> DAOValue {
        switch type.element {
        case .dictionary:
            return .dictionary(RowDictionaryTemplates.dictionary(ofRowOf: statement))
        default:
            let row = Row(columnNames: [], values: [statement.columnCount > 0 ? statement.value(at: 0) : .null])
            return mapPlain(row, type.element) ?? .nil
        }
    }

    /// The mapped value, and decoded objects when the type is registered.
    func map(_ rows: [Row], as type: DAOResultType?) throws -> (DAOValue, [any Sendable]) {
        guard let type else { return (.nil, []) }
        let used = type.isArray ? rows : Array(rows.prefix(1))
        var values: [DAOValue] = []
        var objects: [any Sendable] = []
        for row in used {
            let value = try map(row, type.element)
            values.append(value)
            if let name = value.modelTypeName, let object = try registry.decode(value, as: name) { objects.append(object) }
        }
        if type.isArray { return (.array(values), objects) }
        return (values.first ?? .nil, objects)
    }

    private func map(_ row: Row, _ element: DAOResultType.Element) throws -> DAOValue {
        switch element {
        case .model(let className):
            var fields: [String: DAOValue] = [:]
            for (column, value) in zip(row.columnNames, row.values) {
                fields[column] = try decryptIfNeeded(value, className: className, property: column)
            }
            return .model(className, fields)
        case .map(let id):
            guard let map = maps[id] else { throw DAOError.resultMapping("no map '\(id)'") }
            var fields: [String: DAOValue] = [:]
            for (column, value) in zip(row.columnNames, row.values) {
                let property = map.property(forColumn: column)
                fields[property] = try decryptIfNeeded(value, className: map.className, property: property)
            }
            return .model(map.className, fields)
        default:
            return Self.mapPlain(row, element) ?? .nil
        }
    }

    /// The value of a scalar or `{}` result for `row`; nil for models and maps, which need
    /// the config's maps and crypt rules.
    static func mapPlain(_ row: Row, _ element: DAOResultType.Element) -> DAOValue? {
        let first = row.values.first ?? .null
        switch element {
        case .int, .longLong:
            switch first {
            case .integer(let i): return .integer(i)
            case .real(let d): return d.isFinite && abs(d) < 9.2e18 ? .integer(Int64(d)) : .nil
            case .text(let s): return Int64(s.trimmingCharacters(in: .whitespaces)).map(DAOValue.integer) ?? .nil
            default: return .nil
            }
        case .bool:
            switch first {
            case .integer(let i): return .bool(i != 0)
            case .real(let d): return .bool(d != 0)
            case .text(let s): return .bool(["1", "true", "yes"].contains(s.lowercased()))
            default: return .nil
            }
        case .double:
            if case .text(let s) = first { return Double(s).map(DAOValue.double) ?? .nil }
            return first.doubleValue.map(DAOValue.double) ?? .nil
        case .string:
            switch first {
            case .text(let s): return .string(s)
            case .integer(let i): return .string(String(i))
            case .real(let d): return .string(String(d))
            case .blob(let d): return String(data: d, encoding: .utf8).map(DAOValue.string) ?? .nil
            case .null: return .nil
            }
        case .binary:
            switch first {
            case .blob(let d): return .data(d)
            case .text(let s): return .data(Data(s.utf8))
            case .null: return .nil
            default: return .data(Data(first.description.utf8))
            }
        case .dictionary:
            return .dictionary(Dictionary(zip(row.columnNames, row.values.map(DAOValue.init)), uniquingKeysWith: { _, last in last }))
        case .model, .map:
            return nil
        }
    }

    private func decryptIfNeeded(_ value: DatabaseValue, className: String, property: String) throws -> DAOValue {
        guard cryptRules.contains(DAOCryptRule(className: className, property: property)),
              case .blob(let ciphertext) = value else { return DAOValue(value) }
        return try CryptColumn.decrypt(ciphertext, with: decryptor)
    }
}

/// How crypt columns are stored.
///
/// **Decision**: a crypt property is stored as a BLOB holding the crypt's output for the
/// value's bytes (text as UTF-8; numbers as their text). On read, decrypted bytes that are
/// valid UTF-8 become a string, others stay data; a non-BLOB value is read as is (it was
/// written before the column was encrypted).
enum CryptColumn {
    static func encrypt(_ value: DatabaseValue, with crypt: any DataCrypt) throws -> DatabaseValue {
        let plaintext: Data
        switch value {
        case .null: return .null
        case .text(let s): plaintext = Data(utf8Of: s)
        case .blob(let d): plaintext = d
        case .integer(let i): plaintext = Data(utf8Of: String(i))
        case .real(let d): plaintext = Data(utf8Of: String(d))
        }
        do {
            return .blob(try crypt.encrypt(plaintext))
        } catch {
            throw DAOError.crypt("encryption failed: \(error)")
        }
    }

    static func decrypt(_ ciphertext: Data, with crypt: any DataCrypt) throws -> DAOValue {
        let plaintext: Data
        do {
            plaintext = try crypt.decrypt(ciphertext)
        } catch {
            throw DAOError.crypt("decryption failed: \(error)")
        }
        if let text = String(data: plaintext, encoding: .utf8) { return .string(text) }
        return .data(plaintext)
    }
}
