import DatacenterChanges
import DatacenterDAO
import DatacenterKit
import Foundation
import DatacenterText

/// A node of the browser's tree.
package struct TreeNode: Sendable, Equatable {
    /// What selecting the node shows.
    package enum Kind: Sendable, Equatable {
        /// A store file; its children are the groups found in it.
        case store(path: String)
        /// A heading over leaves of one kind (KV businesses, DAO tables, LRU caches, tables).
        case group
        /// The values of one KV business.
        case kvBusiness(store: String, business: String)
        /// A table a DAO module created, as its metadata records it: its encrypted columns, its
        /// module and the path of the module's config.
        case daoTable(store: String, table: String, encryptedColumns: [String], module: String, configPath: String)
        /// The entries of one LRU disk cache.
        case cache(store: String, name: String)
        /// Any other table or view of the store.
        case table(store: String, name: String)
        /// The rows of a SELECT run in the SQL console: not in the tree, but shown in the grid
        /// (and read again, sorted and filtered) as a leaf is.
        case query(store: String, sql: String)
        /// A column of a table, view or DAO table, under it in the tree: Enter opens the
        /// table's grid on that column.
        case column(store: String, table: String, name: String)
        /// What changed since the mark (`m`, then `M`): each store, business, table and cache
        /// with changes, counted; `mark` is the snapshot's folder, `live` the root or file
        /// compared with it. Not in the tree.
        case changes(mark: String, live: String)
        /// The changes since the mark of one table of store `store` (its name in the
        /// snapshot): a business's KV entries, a cache's entries or a table's rows, in
        /// `section`. Not in the tree.
        case changesOf(mark: String, live: String, store: String, table: String, section: ChangeSection)
        /// A pivot of a grid's rows (`W`): its SELECT is written when its column values are
        /// read. Not in the tree.
        case pivot(store: String, table: PivotTable)
    }

    /// Identifies the node in the tree (which nodes are open, which one the grid shows): its
    /// file's path, then the group and the leaf's name, joined by `#`.
    package let id: String
    /// The text shown for the node.
    package let label: String
    /// Dimmed text after the label (counts, module and version…).
    package let detail: String
    /// What the node is, and where its data lives.
    package let kind: Kind
    /// The nodes under this one, in display order; empty for a leaf.
    package var children: [TreeNode]

    /// The store file the node's data lives in (nil for a group).
    package var storePath: String? {
        switch kind {
        case .store(let path): return path
        case .group, .changes, .changesOf: return nil
        case .kvBusiness(let path, _), .daoTable(let path, _, _, _, _), .cache(let path, _), .table(let path, _), .query(let path, _), .pivot(let path, _),
             .column(let path, _, _):
            return path
        }
    }

    /// True for a grid of a query the browser or the console wrote (`:`, `F`, `I`, `W`): its
    /// label names it, and Esc stops it while it is read.
    package var isQuery: Bool {
        switch kind {
        case .query, .pivot: return true
        default: return false
        }
    }

    /// True for nodes that open a grid (a table's may have its columns under it too).
    package var isLeaf: Bool {
        switch kind {
        case .store, .group, .column: return false
        default: return true
        }
    }
}

/// Why the browser could not open what it was given.
package struct BrowserOpenError: Error, CustomStringConvertible {
    package let description: String

    /// The error that says `description`.
    package init(description: String) { self.description = description }
}

/// What the browser browses — a data-center root or one SQLite file — opened read-only,
/// with the tree of stores, KV businesses, DAO tables, caches and other tables.
///
/// Shared by the input loop and the command runner's threads: what is set when it opens
/// (the tree, the stores' names, the write settings) never changes, and what is added later
/// (stores opened on first use, DAO configs loaded) is only reached with its lock held.
package final class BrowserCatalog: Sendable {
    /// The root or file, for the header.
    package let title: String
    /// The keys tried on encrypted values.
    package let keys: KeyRing
    /// The keys of encrypted database files (SQLCipher's format), newest first: every file
    /// the browser opens — to read, to commit, to run a DAO method — opens with the one that fits.
    package let databaseKeys: DatabaseKeyList
    /// What the header says of some keys, by fingerprint: `app key` for the one derived
    /// from the app key, so a reader knows which secret opened a value.
    package let keyLabels: [String: String]
    /// The SQLCipher settings the database file (or the root's common store) opened with, as
    /// the header shows them (`SQLCipher 4`, or the pragmas of custom settings); nil for plain.
    package let databaseSettings: DatabaseCipherSettings?
    /// False to refuse staging edits and even confirmed DAO writes (`browse --read-only`).
    package let allowsWrites: Bool
    /// How long a commit or a DAO write waits for another connection's lock (an app writing
    /// the same store) before failing, in seconds.
    package let busyTimeout: Double
    /// The top-level nodes.
    package let roots: [TreeNode]
    /// The DAO configs given with `--config`, kept for a catalog opened again (`o`, `R`).
    package let configFiles: [ConfigFile]

    /// A DAO config given with `--config`, and its file.
    package struct ConfigFile: Sendable {
        /// The file it was read from.
        package let path: String
        /// The config.
        package let config: DAOConfig
    }
    /// Each store file's name in words, by path: `common`, `user bob`, `version storage`.
    private let storeNames: [String: String]
    private let center: DataCenter?
    private let state: LockedState<State>

    /// The data-center root browsed, or nil for a single SQLite file.
    package var rootPath: String? { center?.rootPath }
    /// The user the root had as current when this catalog was read (marked in the tree).
    package var currentUserId: String? { center?.currentUserId }

    /// What is added after the catalog opened, behind its lock.
    fileprivate struct State {
        /// The store files opened so far, by path (each opened once, read-only).
        var stores: [String: Store] = [:]
        /// The DAO configs loaded from the paths the stores' metadata record, by path.
        var recordedConfigs: [String: DAOConfig] = [:]
    }

    /// Opens a data-center root (a folder) or a SQLite file, read-only.
    /// - parameter allowsWrites: false to refuse staging edits and DAO write methods at the
    ///   key (`--read-only`); the files are opened read-only either way.
    /// - parameter busyTimeout: how long a commit or a DAO write waits for another
    ///   connection's lock, in seconds.
    /// - throws: `BrowserOpenError` for a missing path, or a file that is not SQLite.
    /// - parameter keyLabels: names for some keys in the header, by fingerprint.
    /// - parameter databaseKeys: the keys of encrypted database files, newest first.
    /// - parameter databaseSettings: the SQLCipher settings the file opened with, for the header.
    /// - parameter configFiles: DAO configs (`--config`, `loadConfigFiles(at:)`): each is
    ///   attached to the table its `tableName` names in every store, whether or not this
    ///   engine recorded the table (a database pulled off a device has none of its metadata).
    package init(path: String, keys: KeyRing, keyLabels: [String: String] = [:], databaseKeys: DatabaseKeyList = .empty,
                 databaseSettings: DatabaseCipherSettings? = nil, allowsWrites: Bool = true, busyTimeout: Double = 5,
                 configFiles: [ConfigFile] = []) throws {
        self.keys = keys
        self.configFiles = configFiles
        self.databaseKeys = databaseKeys
        self.databaseSettings = databaseSettings
        self.keyLabels = keyLabels
        self.allowsWrites = allowsWrites
        self.busyTimeout = busyTimeout
        title = path
        let state = LockedState(State())
        self.state = state
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw BrowserOpenError(description: "\(path) does not exist")
        }
        if isDirectory.boolValue {
            guard FileManager.default.fileExists(atPath: path + "/datacenter.json") || FileManager.default.fileExists(atPath: path + "/common.sqlite") else {
                throw BrowserOpenError(description: "\(path) is a folder but not a data-center root (no datacenter.json or common.sqlite)")
            }
            let center = try DataCenter(rootPath: path, crypt: keys, readOnly: true, databaseKeys: databaseKeys)
            self.center = center
            var builder = TreeBuilder(center: center, keys: keys, databaseKeys: databaseKeys, state: state,
                                      configFiles: configFiles)
            var nodes: [TreeNode] = []
            // A store that cannot be read is shown as damaged, with the reason; the others open.
            if FileManager.default.fileExists(atPath: center.commonStorePath) {
                nodes.append(try builder.storeNodeOrDamaged(path: center.commonStorePath, label: "common", name: "common") {
                    try center.cacheStorePaths(forUser: nil)
                })
            }
            for user in center.users() {
                let label = "user " + user + (user == center.currentUserId ? " (current)" : "")
                nodes.append(try builder.storeNodeOrDamaged(path: try center.storePath(forUser: user), label: label, name: "user " + user) {
                    try center.cacheStorePaths(forUser: user)
                })
            }
            let version = path + "/version/common.sqlite"
            if FileManager.default.fileExists(atPath: version) {
                nodes.append(try builder.storeNodeOrDamaged(path: version, label: "version storage", name: "version storage") { [] })
            }
            // DAO databases kept in files of their own under the root (`daoWithPath:databasePath:`).
            for file in center.daoDatabasePaths {
                let name = "DAO database " + String(file.dropFirst(center.rootPath.count + 1))
                nodes.append(try builder.storeNodeOrDamaged(path: file, label: name, name: name) { [] })
            }
            roots = nodes
            storeNames = builder.storeNames
        } else {
            center = nil
            var builder = TreeBuilder(center: nil, keys: keys, databaseKeys: databaseKeys, state: state,
                                      configFiles: configFiles)
            do {
                let file = (path as NSString).lastPathComponent
                roots = [try builder.storeNode(path: path, label: file, name: file, cacheFiles: [])]
            } catch let error as DatabaseError {
                throw BrowserOpenError(description: error.isNotADatabase ? "\(path) is not a SQLite database (or it is damaged): \(error.message)" : "\(error)")
            }
            storeNames = builder.storeNames
        }
    }

    /// The store file at `path`, opened read-only once.
    package func store(at path: String) throws -> Store {
        try BrowserCatalog.store(at: path, center: center, keys: keys, databaseKeys: databaseKeys, state: state)
    }

    /// The store file at `path` from `state`, or opened read-only (through `center` when
    /// browsing a root) and kept there.
    fileprivate static func store(at path: String, center: DataCenter?, keys: KeyRing, databaseKeys: DatabaseKeyList,
                                  state: LockedState<State>) throws -> Store {
        try state.withLock { state in
            if let store = state.stores[path] { return store }
            let store = try center?.store(atPath: path) ?? Store(path: path, crypt: keys, readOnly: true, databaseKeys: databaseKeys)
            // The console's SQL reads through this connection too (its SELECTs page here).
            try store.queue.write { db in try BrowserSQLFunctions.register(on: db, crypt: keys) }
            state.stores[path] = store
            return store
        }
    }

    /// Reads the DAO configs at `path` (an XML file, or a folder of them) for `configFiles`;
    /// the errors of those that did not load, each naming its file and place.
    package static func loadConfigFiles(at path: String) -> (files: [ConfigFile], errors: [String]) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return ([], ["\(path) does not exist"]) }
        let paths = isDirectory.boolValue
            ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".xml") }.sorted().map { path + "/" + $0 }
            : [path]
        var files: [ConfigFile] = []
        var errors: [String] = []
        for file in paths {
            do { files.append(ConfigFile(path: file, config: try DAOConfig(contentsOfFile: file))) } catch { errors.append("\(error)") }
        }
        return (files, errors)
    }

    /// The DAO config of a DAO table: the `--config` file at `recordedPath`, else the one
    /// given for `module`, else the file the store's metadata records (when it exists).
    package func config(module: String, recordedPath: String) throws -> DAOConfig {
        if let given = configFiles.first(where: { $0.path == recordedPath }) ?? configFiles.first(where: { $0.config.module.name == module }) {
            return given.config
        }
        if let config = state.withLock({ $0.recordedConfigs[recordedPath] }) { return config }
        guard FileManager.default.fileExists(atPath: recordedPath) else {
            throw BrowserOpenError(description: "the config of module \(module) is not at its recorded path \(recordedPath); pass it with --config")
        }
        let config = try DAOConfig(contentsOfFile: recordedPath)
        state.withLock { $0.recordedConfigs[recordedPath] = config }
        return config
    }

    /// The rows of a console SELECT on the store at `path`, the result columns that read
    /// straight from a crypt column shown decrypted (`CryptSQL`).
    package func querySource(store path: String, select sql: String) throws -> QuerySource {
        try consoleQuery(store: path, select: sql).source
    }

    /// `querySource`, and what the console says of the values the query reads as stored
    /// (`CryptReading.note`), if anything. A result holding whole `datacenter_kv` rows shows
    /// their values decoded, as the KV grid does (`KVRowColumns`).
    func consoleQuery(store path: String, select sql: String) throws -> (source: QuerySource, note: String?) {
        let store = try store(at: path)
        let crypt = cryptColumns(inStore: path)
        let reading = store.queue.read { db in CryptSQL.reading(of: sql, on: db, cryptColumns: crypt) }
        // Whole KV rows decoded; should the wrapped query not read (it always should), the rows as they are.
        if let kvRow = reading.kvRow, let source = try? QuerySource(store: store, select: kvRow.decoding(sql), title: sql,
                                                                     encryptedColumns: reading.decryptedColumns, crypt: keys) {
            return (source, reading.note(decodedKVRow: true))
        }
        return (try QuerySource(store: store, select: sql, encryptedColumns: reading.decryptedColumns, crypt: keys),
                reading.note(decodedKVRow: false))
    }

    /// The crypt columns of the store at `path`, by table: its DAO tables' (recorded or
    /// named by a `--config`).
    package func cryptColumns(inStore path: String) -> [String: Set<String>] {
        var columns: [String: Set<String>] = [:]
        func walk(_ nodes: [TreeNode]) {
            for node in nodes {
                if case let .daoTable(store, table, encrypted, _, _) = node.kind, store == path, !encrypted.isEmpty {
                    columns[table, default: []].formUnion(encrypted)
                }
                walk(node.children)
            }
        }
        walk(roots)
        return columns
    }

    /// The `--config` files without a `tableName`: offered on any table (`d`).
    package var configFilesForAnyTable: [ConfigFile] {
        configFiles.filter { $0.config.module.tableName.isEmpty }
    }

    /// The grid source a leaf node shows.
    package func source(for kind: TreeNode.Kind) throws -> GridSource? {
        switch kind {
        case .store, .group, .column: return nil
        case let .kvBusiness(path, business): return try KVBusinessSource(store: try store(at: path), business: business)
        case let .daoTable(path, table, encrypted, _, _):
            return try TableSource(store: try store(at: path), table: table, encryptedColumns: Set(encrypted), crypt: keys)
        case let .cache(path, name):
            let store = try store(at: path)
            return try CacheSource(store: store, info: try CacheCatalog.cache(named: name, in: store))
        case let .table(path, name): return try TableSource(store: try store(at: path), table: name, crypt: keys)
        case let .query(path, sql): return try querySource(store: path, select: sql)
        case let .pivot(path, table):
            let sql = try store(at: path).queue.read { try table.select(on: $0) }
            return try querySource(store: path, select: sql)
        case let .changes(mark, live): return try ChangesSummarySource(mark: mark, live: live, catalog: self)
        case let .changesOf(mark, live, store, table, section):
            return try ChangedRowsSource(mark: mark, live: live, store: store, table: table, section: section, catalog: self)
        }
    }

    /// The data version (`PRAGMA data_version`) of the stores at `paths`, each read on its
    /// store's connection (opened read-only when not yet), added up: it changes when another
    /// connection commits to any of them (a grid of changes follows the app's writes by
    /// it). A store that does not open is left out; nil when none does.
    package func dataVersion(ofStoresAt paths: [String]) throws -> Int64? {
        var total: Int64?
        for path in paths {
            guard let store = try? store(at: path) else { continue }
            // Not a cached statement: its answer would stay the one it first gave.
            let version = try store.queue.read { try $0.scalar("PRAGMA data_version", cached: false)?.int64Value } ?? 0
            total = (total ?? 0) &+ version
        }
        return total
    }

    /// The store file at `path` in words, for every place that shows or writes its data:
    /// which store (common, a user, version storage) and which file, e.g.
    /// `user bob · user.sqlite`; a file browsed on its own is its file name.
    package func storeName(for path: String) -> String {
        let file = (path as NSString).lastPathComponent
        guard let name = storeNames[path] else { return file }
        return name == file ? file : name + " · " + file
    }

    /// The paths of the store files browsed (a root's stores and cache files, or the file).
    package var storePaths: [String] { storeNames.keys.sorted() }

    /// The label suffix of a store that cannot be read.
    package static let damagedMark = " (damaged)"
}

/// Builds the catalog's tree while it opens: a node per store, and under it the groups
/// found in the file. Opens each store once, into the catalog's state, and notes each
/// store file's name in words.
private struct TreeBuilder {
    let center: DataCenter?
    let keys: KeyRing
    let databaseKeys: DatabaseKeyList
    let state: LockedState<BrowserCatalog.State>
    /// The `--config` files, attached to the tables their `tableName`s name.
    let configFiles: [BrowserCatalog.ConfigFile]
    /// The names given so far, by store path (`BrowserCatalog.storeName(for:)`).
    var storeNames: [String: String] = [:]

    /// The store file at `path`, opened once (`BrowserCatalog.store(at:)`).
    func store(at path: String) throws -> Store {
        try BrowserCatalog.store(at: path, center: center, keys: keys, databaseKeys: databaseKeys, state: state)
    }

    /// The node of a store of a root; a store that cannot be opened or read (not SQLite,
    /// damaged, not a regular file) is a node labelled damaged, with the reason as its
    /// detail and nothing under it, so the rest of the root can still be browsed.
    mutating func storeNodeOrDamaged(path: String, label: String, name: String,
                                     cacheFiles: () throws -> [String]) throws -> TreeNode {
        do {
            return try storeNode(path: path, label: label, name: name, cacheFiles: cacheFiles())
        } catch where DamagedStore.isDamage(error, inEncryptedRoot: center?.isDatabaseEncrypted ?? false) {
            state.withLock { _ = $0.stores.removeValue(forKey: path) }
            return TreeNode(id: path, label: label + BrowserCatalog.damagedMark,
                            detail: TerminalText.visible(DamagedStore(path: path, error: error).reason, limit: 120),
                            kind: .store(path: path), children: [])
        }
    }

    /// The node of the store at `path`, named `name` (as are its `cacheFiles`), with its
    /// groups: KV businesses, DAO tables, LRU caches (in it and in `cacheFiles`), other tables.
    mutating func storeNode(path: String, label: String, name: String, cacheFiles: [String]) throws -> TreeNode {
        storeNames[path] = name
        for file in cacheFiles where file != path && storeNames[file] == nil { storeNames[file] = name }
        let store = try self.store(at: path)
        var groups: [TreeNode] = []
        let businesses = try store.kv.allBusinesses()
        if !businesses.isEmpty {
            groups.append(TreeNode(id: path + "#kv", label: "KV businesses", detail: "\(businesses.count)", kind: .group, children: try businesses.map { b in
                TreeNode(id: path + "#kv#" + b, label: b, detail: "\(try store.kv.count(business: b))", kind: .kvBusiness(store: path, business: b), children: [])
            }))
        }
        let (daoTables, allTables) = try store.queue.read { db -> ([TableVersions.Entry], [String]) in
            let dao = try Store.tableExists(TableVersions.metadataTableName, in: db) ? try TableVersions.entries(in: db) : []
            let tables = try db.query("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name")
                .compactMap { $0[0].stringValue }
            return (dao.filter { entry in tables.contains(entry.tableName) }, tables)
        }
        // Tables this engine did not record, attached to the `--config` files naming them: a
        // database pulled off a device gets its DAO panel and its crypt columns decrypted.
        let attached = allTables.flatMap { table in
            configFiles.filter { file in
                file.config.module.tableName == table
                    && !daoTables.contains { $0.tableName == table && $0.module == file.config.module.name }
            }.map { (table: table, file: $0) }
        }
        if !daoTables.isEmpty || !attached.isEmpty {
            func crypt(_ columns: [String]) -> String { columns.isEmpty ? "" : " [crypt: " + columns.joined(separator: ", ") + "]" }
            let recordedNodes = try daoTables.map { e in
                let id = path + "#dao#" + e.tableName
                return TreeNode(id: id, label: e.tableName,
                                detail: e.module + (e.version.map { " v" + $0 } ?? "") + crypt(e.encryptedColumns),
                                kind: .daoTable(store: path, table: e.tableName, encryptedColumns: e.encryptedColumns,
                                                module: e.module, configPath: e.configPath),
                                children: try columnNodes(of: e.tableName, in: store, path: path, parent: id, crypt: Set(e.encryptedColumns)))
            }
            let attachedNodes = try attached.map { a in
                // Two configs may name one table: both are listed, each under its module.
                let id = path + "#dao#" + a.table + "#" + a.file.path
                return TreeNode(id: id, label: a.table,
                                detail: a.file.config.module.name + " (--config)" + crypt(a.file.config.encryptedColumns),
                                kind: .daoTable(store: path, table: a.table, encryptedColumns: a.file.config.encryptedColumns,
                                                module: a.file.config.module.name, configPath: a.file.path),
                                children: try columnNodes(of: a.table, in: store, path: path, parent: id,
                                                          crypt: Set(a.file.config.encryptedColumns)))
            }
            let nodes = recordedNodes + attachedNodes
            groups.append(TreeNode(id: path + "#dao", label: "DAO tables", detail: "\(nodes.count)", kind: .group, children: nodes))
        }
        var cacheNodes: [TreeNode] = []
        var cacheTables: Set<String> = []
        for file in [path] + cacheFiles.filter({ $0 != path }) {
            let cacheStore = try self.store(at: file)
            for info in try CacheCatalog.caches(in: cacheStore) {
                if file == path { cacheTables.insert(info.tableName) }
                cacheNodes.append(TreeNode(id: file + "#cache#" + info.name, label: info.name,
                                           detail: "\(info.entryCount)/\(info.capacity)" + (info.isEncrypted ? " crypted" : "") + (info.isUserDependent ? " per-user" : ""),
                                           kind: .cache(store: file, name: info.name), children: []))
            }
        }
        if !cacheNodes.isEmpty {
            groups.append(TreeNode(id: path + "#caches", label: "LRU caches", detail: "\(cacheNodes.count)", kind: .group, children: cacheNodes))
        }
        let hidden = Store.internalTables.union([TableVersions.tableName, TableVersions.metadataTableName])
            .union(daoTables.map(\.tableName)).union(attached.map(\.table)).union(cacheTables)
        let others = allTables.filter { !hidden.contains($0) }
        if !others.isEmpty {
            groups.append(TreeNode(id: path + "#tables", label: "Tables", detail: "\(others.count)", kind: .group, children: try others.map { name in
                let id = path + "#table#" + name
                return TreeNode(id: id, label: name, detail: "", kind: .table(store: path, name: name),
                                children: try columnNodes(of: name, in: store, path: path, parent: id, crypt: []))
            }))
        }
        let fileName = (path as NSString).lastPathComponent
        return TreeNode(id: path, label: label, detail: fileName == label ? "" : fileName, kind: .store(path: path), children: groups)
    }

    /// The columns of `table` as nodes under it: the name, then the declared type, `pk` for a
    /// primary-key column and `crypt` for one stored encrypted.
    private func columnNodes(of table: String, in store: Store, path: String, parent: String, crypt: Set<String>) throws -> [TreeNode] {
        let rows = try store.queue.read { try $0.query("PRAGMA table_info(\(Database.quoteLiteral(table)))") }
        return rows.compactMap { row in
            guard let name = row[1].stringValue else { return nil }
            let type = row[2].stringValue ?? ""
            let detail = [type, (row[5].int64Value ?? 0) > 0 ? "pk" : "", crypt.contains(name) ? "crypt" : ""]
                .filter { !$0.isEmpty }.joined(separator: " ")
            return TreeNode(id: parent + "#column#" + name, label: name, detail: detail,
                            kind: .column(store: path, table: table, name: name), children: [])
        }
    }
}

extension BrowserCatalog {
    /// What the header says of what is browsed: the root or file, the settings an app must
    /// give to open it (in SQLCipher's pragma names), and the keys given, by fingerprint.
    var headerSummary: String {
        var summary = title
        if let settings = databaseSettings { summary += " │ db: " + settings.summary }
        if !keys.isEmpty {
            summary += " │ keys: " + keys.keys.map { key in
                keyLabels[key.fingerprint].map { "\(key.fingerprint) (\($0))" } ?? key.fingerprint
            }.joined(separator: ",")
        }
        return summary
    }
}
