import DatacenterKit
import Foundation

extension TableSource: EditableSource {
    /// `WHERE` for one row by its paging key, with the key's values.
    private func rowFilter(_ row: GridRow) throws -> (String, [DatabaseValue]) {
        guard !usesOffset, row.key.count == keyColumns.count, !keyColumns.isEmpty else {
            throw BrowserEditError(message: "\(table) has no rowid or primary key: its rows cannot be edited here (use the SQL console)")
        }
        let clause = keyColumns.map { Database.quoteIdentifier($0 == "rowid" ? "_rowid_" : $0) + " = ?" }.joined(separator: " AND ")
        return (clause, row.key)
    }

    func stageUpdate(row: GridRow, column: Int, text: String, keys: KeyRing) throws -> StagedEdit {
        guard columns.indices.contains(column) else { throw BrowserEditError(message: "no such column") }
        let (filter, keyValues) = try rowFilter(row)
        var value = TypedValue.parse(text)
        var shown = value.description
        if encryptedColumns.contains(columns[column]), !value.isNull {
            // A crypt column stays encrypted: the text is encrypted with the newest key given.
            guard !keys.isEmpty else { throw BrowserEditError(message: "\(columns[column]) is encrypted: editing it needs a --key") }
            let plain: Data
            switch value {
            case .text(let s): plain = Data(s.utf8)
            case .blob(let d): plain = d
            default: plain = Data(text.utf8)
            }
            value = .blob(try keys.encrypt(plain))
            shown = "<\(plain.count) bytes, encrypted>"
        }
        let sql = "UPDATE \(Database.quoteIdentifier(table)) SET \(Database.quoteIdentifier(columns[column])) = ? WHERE \(filter)"
        return StagedEdit(storePath: store.path, action: .execute(sql: sql, arguments: [value] + keyValues),
                          preview: Self.inline(sql, [shown] + keyValues.map(\.description)), target: table)
    }

    func stageDelete(row: GridRow) throws -> StagedEdit {
        let (filter, keyValues) = try rowFilter(row)
        let sql = "DELETE FROM \(Database.quoteIdentifier(table)) WHERE \(filter)"
        return StagedEdit(storePath: store.path, action: .execute(sql: sql, arguments: keyValues),
                          preview: Self.inline(sql, keyValues.map(\.description)), target: table)
    }

    func stageInsert(text: String, keys: KeyRing) throws -> StagedEdit {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], !object.isEmpty else {
            throw BrowserEditError(message: "an insert is a JSON object of column values, e.g. {\"title\": \"hi\"}")
        }
        let names = object.keys.sorted()
        if let unknown = names.first(where: { !columns.contains($0) }) {
            throw BrowserEditError(message: "\(table) has no column \(unknown) (columns: \(columns.joined(separator: ", ")))")
        }
        var values: [DatabaseValue] = []
        var shown: [String] = []
        for name in names {
            var value = TypedValue.fromJSON(object[name]!)
            var display = value.description
            if encryptedColumns.contains(name), !value.isNull {
                guard !keys.isEmpty else { throw BrowserEditError(message: "\(name) is encrypted: inserting needs a --key") }
                let plain = Data((value.stringValue ?? value.description).utf8)
                value = .blob(try keys.encrypt(plain))
                display = "<\(plain.count) bytes, encrypted>"
            }
            values.append(value)
            shown.append(display)
        }
        let sql = "INSERT INTO \(Database.quoteIdentifier(table))(\(names.map(Database.quoteIdentifier).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: names.count).joined(separator: ", ")))"
        return StagedEdit(storePath: store.path, action: .execute(sql: sql, arguments: values), preview: Self.inline(sql, shown), target: table)
    }

    /// The SQL with each `?` replaced by the next shown value.
    static func inline(_ sql: String, _ values: [String]) -> String {
        var out = ""
        var rest = values[...]
        for character in sql {
            if character == "?", let value = rest.popFirst() { out += value } else { out.append(character) }
        }
        return out
    }
}

extension KVBusinessSource: EditableSource {
    func stageUpdate(row: GridRow, column: Int, text: String, keys: KeyRing) throws -> StagedEdit {
        guard let key = row.key.first?.stringValue, let entry = try store.entry(forKey: key, business: business) else {
            throw BrowserEditError(message: "the key is gone")
        }
        guard column == columns.count - 1 else { throw BrowserEditError(message: "only the VALUE column of a KV entry can be edited") }
        guard !entry.options.contains(.customEncrypted) else {
            throw BrowserEditError(message: "\(key) is encrypted with the app's custom crypt: it cannot be rewritten here")
        }
        let value: KVValue
        switch entry.encoding {
        case .string: value = .string(text)
        case .integer:
            guard let v = Int64(text) else { throw BrowserEditError(message: "\(key) holds an int: '\(text)' is not one") }
            value = .integer(v)
        case .double:
            guard let d = Double(text) else { throw BrowserEditError(message: "\(key) holds a double: '\(text)' is not one") }
            value = .double(d)
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1": value = .bool(true)
            case "false", "no", "0": value = .bool(false)
            default: throw BrowserEditError(message: "\(key) holds a bool: use true or false")
            }
        case .json:
            guard (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil else {
                throw BrowserEditError(message: "\(key) holds JSON: the text is not valid JSON")
            }
            value = .json(Data(text.utf8))
        case .plist:
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]),
                  let plist = try? PropertyListValue(jsonObject: object) else {
                throw BrowserEditError(message: "\(key) holds a property list: write it as JSON ($data, $date for data and dates)")
            }
            value = .plist(plist)
        case .archive:
            throw BrowserEditError(message: "\(key) holds an archived object: only the app can write it")
        }
        let encrypted = entry.options.contains(.defaultEncrypted)
        if encrypted, keys.isEmpty { throw BrowserEditError(message: "\(key) is encrypted: editing it needs a --key") }
        let shown = encrypted ? "<encrypted \(entry.encoding.rawValue)>" : (try? valueDescription(value)) ?? "?"
        let preview = "INSERT OR REPLACE INTO datacenter_kv(business, key, value, encoding, options, modified) VALUES ("
            + [DatabaseValue.text(business).description, DatabaseValue.text(key).description, shown,
               "'\(entry.encoding.rawValue)'", String(entry.options.rawValue), "now"].joined(separator: ", ") + ")"
        return StagedEdit(storePath: store.path,
                          action: .setKV(business: business, key: key, value: value, encryption: encrypted ? .default : .none,
                                         options: entry.options.subtracting([.defaultEncrypted, .customEncrypted])),
                          preview: preview, target: business)
    }

    func stageDelete(row: GridRow) throws -> StagedEdit {
        guard let key = row.key.first?.stringValue else { throw BrowserEditError(message: "no key") }
        return StagedEdit(storePath: store.path, action: .removeKV(business: business, key: key),
                          preview: "DELETE FROM datacenter_kv WHERE business = \(DatabaseValue.text(business)) AND key = \(DatabaseValue.text(key))",
                          target: business)
    }

    func stageInsert(text: String, keys: KeyRing) throws -> StagedEdit {
        throw BrowserEditError(message: "new KV entries are added with `datacenter kv set`")
    }

    private func valueDescription(_ value: KVValue) throws -> String {
        switch value {
        case .string(let s): return DatabaseValue.text(s).description
        case .integer(let i): return String(i)
        case .double(let d): return String(d)
        case .bool(let b): return b ? "1" : "0"
        default: return DatabaseValue.text(value.displayString).description
        }
    }
}
