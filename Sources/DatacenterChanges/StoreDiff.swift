import DatacenterDAO
import DatacenterKit
import Foundation

/// `datacenter diff`: what changed between two versions of the same stores, by value.
///
/// Each store pair is read in one transaction on each side (`StorePair`), table by table
/// with one query each (`TableRowDiff`), and interpreted by what the store records of its
/// tables: KV entries decoded by type and decrypted, DAO crypt columns and disk-cache values
/// decrypted with the value keys. A value encrypted anew with the same content is not a
/// change (`RowChange.Kind.reencrypted`), nor is a KV entry written again with the same value
/// or a cache entry only used (`touched`); a value no key opens is shown locked, and changed
/// when its stored bytes did.
public struct StoreDiff: Sendable {
    /// The value keys: KV values, DAO crypt columns and disk caches decrypt with them.
    public let keys: KeyRing
    /// The database keys of encrypted store files.
    public let databaseKeys: DatabaseKeyList
    /// How long to wait for another connection's lock, in seconds.
    public let busyTimeout: Double
    /// True to fill each changed row's `unchanged` columns too (a grid shows whole rows).
    public var wholeRows = false

    /// A diff opening stores with `databaseKeys` and decrypting values with `keys`.
    public init(keys: KeyRing = .empty, databaseKeys: DatabaseKeyList = .empty, busyTimeout: Double = 5) {
        self.keys = keys
        self.databaseKeys = databaseKeys
        self.busyTimeout = busyTimeout
    }

    /// The rows of one table of one store that differ between `a` and `b` (the table's KV
    /// entries, cache entries or rows, read as `run` reads them), sent to `sink` without
    /// the store's other changes: what a grid of one business, table or cache shows.
    /// - throws: `ChangeError` when neither side has the store; what opening it throws.
    public func run(_ a: ChangeSource, _ b: ChangeSource, store name: String, table: String, into sink: ChangeSink) throws {
        guard let pair = ChangeSource.pairs(a, b).first(where: { $0.name == name }) else {
            throw ChangeError(path: name, reason: "no such store on either side")
        }
        guard let storeA = pair.a, let storeB = pair.b else { return }
        let stores = try StorePair(a: storeA.path, b: storeB.path, databaseKeys: databaseKeys, busyTimeout: busyTimeout)
        defer { stores.close() }
        sink.beginStore(name, presence: .both)
        // A table on one side only, or whose columns changed, has no rows to compare.
        if let layout = try TableLayout.of(table, schema: "aux", in: stores.db),
           try TableLayout.of(table, schema: "main", in: stores.db) == layout {
            _ = try rows(of: table, layout: layout, in: stores, catalog: try catalog(stores), into: sink)
        }
        sink.endStore()
    }

    /// Sends every difference between `a` and `b` to `sink`, store by store in name order;
    /// returns how many changes of value there were (stores added or removed, schema
    /// changes and rows added, removed or changed; not re-encryptions or touches).
    /// - throws: what opening a store throws (naming it); `ChangeError`.
    @discardableResult
    public func run(_ a: ChangeSource, _ b: ChangeSource, into sink: ChangeSink) throws -> Int {
        var count = 0
        for (name, storeA, storeB) in ChangeSource.pairs(a, b) {
            guard let storeA, let storeB else {
                sink.beginStore(name, presence: storeA == nil ? .onlyInB : .onlyInA)
                sink.endStore()
                count += 1
                continue
            }
            sink.beginStore(name, presence: .both)
            let pair = try StorePair(a: storeA.path, b: storeB.path, databaseKeys: databaseKeys, busyTimeout: busyTimeout)
            defer { pair.close() }
            count += try diff(pair, into: sink)
            sink.endStore()
        }
        return count
    }

    /// Writes the statements that turn each store of `a` into `b`'s (`SQLDiffWriter`), each
    /// store's under a `-- name` comment line; returns how many statements.
    @discardableResult
    public func sql(_ a: ChangeSource, _ b: ChangeSource, write: @escaping (String) -> Void) throws -> Int {
        var count = 0
        let single = ChangeSource.pairs(a, b).count == 1
        for (name, storeA, storeB) in ChangeSource.pairs(a, b) {
            guard let storeA, let storeB else {
                write("-- \(name): only in \(storeA == nil ? "B" : "A") (a whole file: no statement makes or removes it)")
                count += 1
                continue
            }
            let pair = try StorePair(a: storeA.path, b: storeB.path, databaseKeys: databaseKeys, busyTimeout: busyTimeout)
            defer { pair.close() }
            var header = single ? nil : "-- \(name)"
            let writer = SQLDiffWriter { line in
                if let text = header { write(text); header = nil }
                write(line)
            }
            try writer.run(pair)
            count += writer.statements
        }
        return count
    }

    // MARK: One store

    /// What the store records of its tables, read from B (A where B has none).
    private struct Catalog {
        var daoCryptColumns: [String: Set<String>] = [:]
        var caches: [String: (name: String, encrypted: Bool)] = [:]
    }

    private func catalog(_ pair: StorePair) throws -> Catalog {
        var catalog = Catalog()
        for schema in ["main", "aux"] {
            let tables = Set(try pair.db.query("SELECT name FROM \(schema).sqlite_schema WHERE type = 'table'").compactMap { $0[0].stringValue })
            if tables.contains("datacenter_dao_tables") {
                for row in try pair.db.query("SELECT table_name, encrypted_columns FROM \(schema).datacenter_dao_tables") {
                    guard let table = row[0].stringValue else { continue }
                    let names = row[1].stringValue.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String] } ?? []
                    catalog.daoCryptColumns[table] = Set(names)
                }
            }
            if tables.contains("datacenter_caches") {
                for row in try pair.db.query("SELECT name, table_name, crypted FROM \(schema).datacenter_caches") {
                    guard let name = row[0].stringValue, let table = row[1].stringValue else { continue }
                    catalog.caches[table] = (name, (row[2].int64Value ?? 0) != 0)
                }
            }
        }
        return catalog
    }

    /// The differences of one store pair; returns the count of changes of value.
    private func diff(_ pair: StorePair, into sink: ChangeSink) throws -> Int {
        var count = 0
        let a = try pair.objects(in: "main")
        let b = try pair.objects(in: "aux")
        let inA = Dictionary(a.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let inB = Dictionary(b.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var compared: [(name: String, layout: TableLayout)] = []
        for name in Set(inA.keys).union(inB.keys).sorted(by: SQLDiffWriter.binaryOrder) {
            let objectA = inA[name], objectB = inB[name]
            guard let object = objectB ?? objectA, object.sql != nil || object.type == "table" else { continue }
            if objectA == nil || objectB == nil {
                sink.schemaChange(SchemaChange(kind: objectA == nil ? .added : .removed, type: object.type, name: name, note: nil))
                count += 1
                continue
            }
            guard let objectA, let objectB, object.type == "table", !object.isVirtualTable else {
                if objectA != objectB {
                    sink.schemaChange(SchemaChange(kind: .changed, type: object.type, name: name, note: nil))
                    count += 1
                }
                continue
            }
            let layoutA = try TableLayout.of(name, schema: "main", in: pair.db)
            let layoutB = try TableLayout.of(name, schema: "aux", in: pair.db)
            guard let layoutA, layoutA == layoutB else {
                sink.schemaChange(SchemaChange(kind: .changed, type: "table", name: name,
                                               note: layoutA == nil ? "its rows have no key to compare them by"
                                                   : "its columns changed: rows not compared"))
                count += 1
                continue
            }
            if objectA.sql != objectB.sql {
                sink.schemaChange(SchemaChange(kind: .changed, type: "table", name: name, note: nil))
                count += 1
            }
            compared.append((name, layoutA))
        }
        let catalog = try catalog(pair)
        for (name, layout) in compared {
            count += try rows(of: name, layout: layout, in: pair, catalog: catalog, into: sink)
        }
        return count
    }

    /// The rows of table `name` (laid out as `layout` on both sides) that differ, sent to
    /// `sink`; returns the changes of value.
    private func rows(of name: String, layout: TableLayout, in pair: StorePair, catalog: Catalog, into sink: ChangeSink) throws -> Int {
        let reader = RowReader(table: name, layout: layout, keys: keys, section: section(of: name, catalog: catalog),
                               cryptColumns: catalog.daoCryptColumns[name] ?? [], cacheEncrypted: catalog.caches[name]?.encrypted ?? false,
                               wholeRows: wholeRows)
        var count = 0
        try TableRowDiff(table: name, layout: layout).forEachChange(in: pair.db) { raw in
            if let change = reader.change(raw) {
                sink.rowChange(change)
                if change.kind.changesValue { count += 1 }
            }
            return true
        }
        return count
    }

    private func section(of table: String, catalog: Catalog) -> ChangeSection {
        if table == "datacenter_kv" { return .kv(business: "") }
        if let cache = catalog.caches[table] { return .cache(name: cache.name) }
        if catalog.daoCryptColumns[table] != nil { return .dao(table: table) }
        return .table(table)
    }
}
