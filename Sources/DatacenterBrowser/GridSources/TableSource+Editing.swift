import DatacenterKit
import Foundation

extension TableSource: EditableSource {
    /// `WHERE` for one row by its paging key, with the key's values.
    private func rowFilter(_ row: GridRow) throws -> (String, [DatabaseValue]) {
        if let editRefusal { throw BrowserEditError(message: editRefusal) }
        guard !usesOffset, row.key.count == keyColumns.count, !keyColumns.isEmpty else {
            throw BrowserEditError(message: "\(table) has no rowid or primary key: its rows cannot be edited here (`datacenter sql` can write them: the console here is read-only)")
        }
        let clause = keyColumns.map { Database.quoteIdentifier($0) + " = ?" }.joined(separator: " AND ")
        return (clause, row.key)
    }

    func editRefusal(row: GridRow, column: Int, keys: KeyRing) -> String? {
        if let editRefusal { return editRefusal }
        guard columns.indices.contains(column), row.cells.indices.contains(column) else { return "no such column" }
        let name = columns[column]
        if case .locked(let reason) = row.cells[column].encryption {
            return "\(name) is encrypted and locked (\(reason)): editing it needs the key that opens it (--key)"
        }
        if encryptedColumns.contains(name), keys.isEmpty {
            return "\(name) is encrypted: editing it needs a --key"
        }
        return nil
    }

    func deleteRefusal(row: GridRow) -> String? { editRefusal }

    var insertRefusal: String? { isView ? editRefusal : nil }

    func editText(row: GridRow, column: Int) -> String {
        guard row.cells.indices.contains(column), case .database(let value) = row.cells[column].content else { return "" }
        return TypedValue.literal(value)
    }

    func stageUpdate(row: GridRow, column: Int, text: String, keys: KeyRing) throws -> StagedEdit? {
        if let refusal = editRefusal(row: row, column: column, keys: keys) { throw BrowserEditError(message: refusal) }
        let (filter, keyValues) = try rowFilter(row)
        var value = TypedValue.parse(text)
        // The value the row holds (decrypted where the column is encrypted): typing it again
        // changes nothing, so nothing is staged.
        if case .database(let current) = row.cells[column].content, current == value { return nil }
        var shown = value.description
        let encrypts = encryptedColumns.contains(columns[column]) && !value.isNull
        let newValue = StagedValue(cell: ValueFormatter.cell(value), encryptedOnCommit: encrypts)
        if encrypts {
            // A crypt column stays encrypted: the text is encrypted with the newest key given.
            let plain: Data
            switch value {
            case .text(let s): plain = Data(s.utf8)
            case .blob(let d): plain = d
            default: plain = Data(text.utf8)
            }
            value = .blob(try keys.encrypt(plain))
            // The review shows what will be written before it is encrypted, so a typo is
            // caught before the commit (as the DAO preview marks a value it encrypts).
            shown += " /*encrypted*/"
        }
        let sql = "UPDATE \(Database.quoteIdentifier(table)) SET \(Database.quoteIdentifier(columns[column])) = ? WHERE \(filter)"
        var edit = StagedEdit(storePath: store.path, action: .execute(sql: sql, arguments: [value] + keyValues),
                              preview: Self.inline(sql, [shown] + keyValues.map(\.description)), target: table)
        edit.newValue = newValue
        return edit
    }

    func stageDelete(row: GridRow) throws -> StagedEdit {
        if let refusal = deleteRefusal(row: row) { throw BrowserEditError(message: refusal) }
        let (filter, keyValues) = try rowFilter(row)
        let sql = "DELETE FROM \(Database.quoteIdentifier(table)) WHERE \(filter)"
        return StagedEdit(storePath: store.path, action: .execute(sql: sql, arguments: keyValues),
                          preview: Self.inline(sql, keyValues.map(\.description)), target: table)
    }

    func stageInsert(text: String, keys: KeyRing) throws -> StagedEdit {
        if let insertRefusal { throw BrowserEditError(message: insertRefusal) }
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
                display += " /*encrypted*/"
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
    func editRefusal(row: GridRow, column: Int, keys: KeyRing) -> String? {
        guard column == columns.count - 1 else { return "only the VALUE column of a KV entry can be edited" }
        guard let key = row.key.first?.stringValue, row.cells.indices.contains(column) else { return "no key" }
        if row.cells[column].typeName == KVEncoding.archive.rawValue { return "\(key) holds an archived object: only the app can write it" }
        if case .locked(let reason) = row.cells[column].encryption {
            return reason == "custom crypt" ? "\(key) is encrypted with the app's custom crypt: it cannot be rewritten here"
                : "\(key) is encrypted and locked (\(reason)): editing it needs the key that opens it (--key)"
        }
        return nil
    }

    func deleteRefusal(row: GridRow) -> String? { row.key.first?.stringValue == nil ? "no key" : nil }

    var insertRefusal: String? { "new KV entries are added with `datacenter kv set`" }

    func editText(row: GridRow, column: Int) -> String {
        guard row.cells.indices.contains(column), case .kv(let value) = row.cells[column].content else { return "" }
        return value.displayString
    }

    func stageUpdate(row: GridRow, column: Int, text: String, keys: KeyRing) throws -> StagedEdit? {
        if let refusal = editRefusal(row: row, column: column, keys: keys) { throw BrowserEditError(message: refusal) }
        guard let key = row.key.first?.stringValue, let entry = try store.entry(forKey: key, business: business) else {
            throw BrowserEditError(message: "the key is gone")
        }
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
        if case .kv(let current) = row.cells[column].content, current == value { return nil }
        let encrypted = entry.options.contains(.defaultEncrypted)
        if encrypted, keys.isEmpty { throw BrowserEditError(message: "\(key) is encrypted: editing it needs a --key") }
        // An encrypted value shows as typed, marked: the commit encrypts it (a typo is caught here).
        let shown = ((try? valueDescription(value)) ?? "?") + (encrypted ? " /*encrypted*/" : "")
        let preview = "INSERT OR REPLACE INTO datacenter_kv(business, key, value, encoding, options, modified) VALUES ("
            + [DatabaseValue.text(business).description, DatabaseValue.text(key).description, shown,
               "'\(entry.encoding.rawValue)'", String(entry.options.rawValue), "now"].joined(separator: ", ") + ")"
        var edit = StagedEdit(storePath: store.path,
                              action: .setKV(business: business, key: key, value: value, encryption: encrypted ? .default : .none,
                                             options: entry.options.subtracting([.defaultEncrypted, .customEncrypted])),
                              preview: preview, target: business)
        let old = row.cells[column]
        edit.newValue = StagedValue(cell: GridCell(text: ValueFormatter.cut(value.displayString), role: .grid, typeName: old.typeName,
                                                   content: .kv(value)),
                                    encryptedOnCommit: encrypted)
        return edit
    }

    func stageDelete(row: GridRow) throws -> StagedEdit {
        guard let key = row.key.first?.stringValue else { throw BrowserEditError(message: "no key") }
        return StagedEdit(storePath: store.path, action: .removeKV(business: business, key: key),
                          preview: "DELETE FROM datacenter_kv WHERE business = \(DatabaseValue.text(business)) AND key = \(DatabaseValue.text(key))",
                          target: business)
    }

    func stageInsert(text: String, keys: KeyRing) throws -> StagedEdit {
        throw BrowserEditError(message: insertRefusal ?? "")
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
