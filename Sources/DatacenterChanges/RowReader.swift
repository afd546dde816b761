import DatacenterDAO
import DatacenterKit
import Foundation

/// Turns a table's raw row difference into a change of value, as the store's records say to
/// read the table: a KV entry decoded and decrypted, a DAO row's crypt columns decrypted, a
/// cache entry's value decrypted and decoded, any other row as stored.
struct RowReader {
    /// The table read.
    let table: String
    let layout: TableLayout
    let keys: KeyRing
    /// Where the table's rows are (`.kv` with an empty business: each row says its own).
    let section: ChangeSection
    /// A DAO table's crypt columns.
    let cryptColumns: Set<String>
    /// True for a disk cache whose values are encrypted.
    let cacheEncrypted: Bool
    /// True to fill a changed row's `unchanged` columns (`StoreDiff.wholeRows`).
    var wholeRows = false

    /// The change `raw` is, or nil when it changes nothing a reader of values sees and is no
    /// re-encryption or touch either.
    func change(_ raw: RawRowChange) -> RowChange? {
        switch section {
        case .kv: return kvChange(raw)
        case .cache(let name): return cacheChange(raw, name: name)
        case .dao, .table: return rowChange(raw)
        }
    }

    // MARK: Any table, DAO tables

    private func rowChange(_ raw: RawRowChange) -> RowChange? {
        let key = Array(zip(layout.keyColumns, raw.key)).map { (column: $0.0, value: $0.1) }
        var old: [(column: String, value: ShownValue)] = []
        var new: [(column: String, value: ShownValue)] = []
        var unchanged: [(column: String, value: ShownValue)] = []
        var reencrypted = false
        for (index, column) in layout.dataColumns.enumerated() {
            let isCrypt = cryptColumns.contains(column)
            guard raw.changed[index] else {
                if wholeRows, raw.kind == .updated { unchanged.append((column, shown(raw.new[index], crypt: isCrypt))) }
                continue
            }
            switch raw.kind {
            case .inserted:
                new.append((column, shown(raw.new[index], crypt: isCrypt)))
            case .deleted:
                old.append((column, shown(raw.old[index], crypt: isCrypt)))
            case .updated:
                let before = shown(raw.old[index], crypt: isCrypt), after = shown(raw.new[index], crypt: isCrypt)
                if isCrypt, before == after, !isLocked(before) {
                    reencrypted = true
                    if wholeRows { unchanged.append((column, after)) }
                    continue
                }
                old.append((column, before))
                new.append((column, after))
            }
        }
        let kind: RowChange.Kind
        switch raw.kind {
        case .inserted: kind = .added
        case .deleted: kind = .removed
        case .updated:
            if old.isEmpty, new.isEmpty {
                guard reencrypted else { return nil }
                kind = .reencrypted
            } else {
                kind = .changed
            }
        }
        return RowChange(section: section, table: table, columns: layout.dataColumns, kind: kind, key: key, old: old, new: new,
                         unchanged: unchanged)
    }

    /// A column's value as shown: a crypt column's decrypted (or locked).
    private func shown(_ value: DatabaseValue, crypt: Bool) -> ShownValue {
        guard crypt, case .blob = value else { return .database(value) }
        do { return .decrypted(try CryptColumn.plaintext(of: value, with: keys)) } catch {
            return .locked(keys.keys.isEmpty ? "no key" : "no key given opens it")
        }
    }

    private func isLocked(_ value: ShownValue) -> Bool {
        if case .locked = value { return true }
        return false
    }

    // MARK: KV entries

    private func column(_ name: String) -> Int? { layout.dataColumns.firstIndex(of: name) }

    private func kvChange(_ raw: RawRowChange) -> RowChange? {
        guard layout.keyColumns == ["business", "key"], let value = column("value"), let encoding = column("encoding"),
              let options = column("options") else { return rowChange(raw) }
        let business = raw.key[0].stringValue ?? ""
        let keyText = raw.key[1]
        let modified = column("modified")
        func entry(_ values: [DatabaseValue]) -> Result<KVValue, Unreadable> {
            do {
                let entry = try KVStore.entry(business: business, key: keyText.stringValue ?? "", value: values[value],
                                              encoding: values[encoding], options: values[options],
                                              modified: modified.map { values[$0] } ?? .null)
                return .success(try KVStore.decode(entry, defaultCrypt: keys))
            } catch let error as KVError {
                if case .needsCustomCrypt = error { return .failure(Unreadable(reason: "encrypted with the app's own crypt")) }
                if case .cannotDecrypt = error { return .failure(Unreadable(reason: keys.keys.isEmpty ? "no key" : "no key given opens it")) }
                return .failure(Unreadable(reason: "\(error)"))
            } catch {
                return .failure(Unreadable(reason: "\(error)"))
            }
        }
        func shown(_ result: Result<KVValue, Unreadable>) -> ShownValue {
            switch result {
            case .success(let value): return .kv(value)
            case .failure(let unreadable): return .locked(unreadable.reason)
            }
        }
        let section = ChangeSection.kv(business: business)
        let key = [(column: "key", value: keyText)]
        let columns = ["value", "options"]
        switch raw.kind {
        case .inserted:
            return RowChange(section: section, table: table, columns: columns, kind: .added, key: key, old: [], new: [("value", shown(entry(raw.new)))])
        case .deleted:
            return RowChange(section: section, table: table, columns: columns, kind: .removed, key: key, old: [("value", shown(entry(raw.old)))], new: [])
        case .updated:
            let before = entry(raw.old), after = entry(raw.new)
            var old: [(column: String, value: ShownValue)] = []
            var new: [(column: String, value: ShownValue)] = []
            let sameValue: Bool
            switch (before, after) {
            case (.success(let x), .success(let y)): sameValue = x == y
            default: sameValue = !raw.changed[value] && !raw.changed[encoding]
            }
            if !sameValue {
                old.append(("value", shown(before)))
                new.append(("value", shown(after)))
            }
            if raw.changed[options] {
                old.append(("options", .database(raw.old[options])))
                new.append(("options", .database(raw.new[options])))
            }
            if !old.isEmpty { return RowChange(section: section, table: table, columns: columns, kind: .changed, key: key, old: old, new: new) }
            let kind: RowChange.Kind = raw.changed[value] ? .reencrypted : .touched
            return RowChange(section: section, table: table, columns: columns, kind: kind, key: key, old: [], new: [])
        }
    }

    /// Why a KV entry does not decode.
    struct Unreadable: Error {
        let reason: String
    }

    // MARK: Disk caches

    private func cacheChange(_ raw: RawRowChange, name: String) -> RowChange? {
        guard layout.keyColumns == ["key"], let value = column("value"), let encoding = column("encoding") else {
            return rowChange(raw)
        }
        let expires = column("expires")
        let keyText = raw.key[0]
        func decoded(_ values: [DatabaseValue]) -> ShownValue {
            guard case .blob(let bytes) = values[value] else { return .database(values[value]) }
            do {
                return .cache(try CacheCatalog.decode(stored: bytes, encoding: values[encoding].stringValue ?? "data", encrypted: cacheEncrypted,
                                                      cache: name, key: keyText.stringValue ?? "", crypt: keys))
            } catch {
                return .locked(cacheEncrypted ? (keys.keys.isEmpty ? "no key" : "no key given opens it") : "\(error)")
            }
        }
        let section = ChangeSection.cache(name: name)
        let key = [(column: "key", value: keyText)]
        let columns = ["value", "expires"]
        switch raw.kind {
        case .inserted:
            return RowChange(section: section, table: table, columns: columns, kind: .added, key: key, old: [], new: [("value", decoded(raw.new))])
        case .deleted:
            return RowChange(section: section, table: table, columns: columns, kind: .removed, key: key, old: [("value", decoded(raw.old))], new: [])
        case .updated:
            var old: [(column: String, value: ShownValue)] = []
            var new: [(column: String, value: ShownValue)] = []
            if raw.changed[value] || raw.changed[encoding] {
                let before = decoded(raw.old), after = decoded(raw.new)
                if before != after || isLocked(before) || raw.changed[encoding] {
                    old.append(("value", before))
                    new.append(("value", after))
                }
            }
            if let expires, raw.changed[expires] {
                old.append(("expires", .database(raw.old[expires])))
                new.append(("expires", .database(raw.new[expires])))
            }
            if !old.isEmpty { return RowChange(section: section, table: table, columns: columns, kind: .changed, key: key, old: old, new: new) }
            return RowChange(section: section, table: table, columns: columns, kind: raw.changed[value] ? .reencrypted : .touched, key: key, old: [], new: [])
        }
    }
}
