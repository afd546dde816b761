import DatacenterKit

/// The `TableVersions` table of a store (table name → version of the config that made it)
/// and the metadata table that lets a browser find DAO tables without their configs.
public enum TableVersions {
    /// The versions table's name, as the original product names it.
    public static let tableName = "TableVersions"
    /// The metadata table: one row per DAO table.
    public static let metadataTableName = "datacenter_dao_tables"

    static let schema = """
        CREATE TABLE IF NOT EXISTS TableVersions(tableName TEXT PRIMARY KEY NOT NULL, version TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS datacenter_dao_tables(table_name TEXT PRIMARY KEY, module TEXT, version TEXT,
            config_path TEXT, encrypted_columns TEXT);
        """

    /// Creates both tables when missing.
    public static func createTables(in db: Database) throws {
        guard try !Store.tableExists(tableName, in: db) || !Store.tableExists(metadataTableName, in: db) else { return }
        try db.executeScript(schema)
    }

    /// The stored version of `table`, or nil.
    public static func version(of table: String, in db: Database) throws -> DAOVersion? {
        guard try Store.tableExists(tableName, in: db) else { return nil }
        guard let text = try db.scalar("SELECT version FROM TableVersions WHERE tableName = ?", [.text(table)])?.stringValue else { return nil }
        return DAOVersion(text)
    }

    /// Records `version` for `table`.
    public static func setVersion(_ version: DAOVersion, of table: String, in db: Database) throws {
        try db.execute("INSERT OR REPLACE INTO TableVersions(tableName, version) VALUES (?, ?)", [.text(table), .text(version.text)])
    }

    /// Forgets `table` (its version and metadata row).
    public static func forget(_ table: String, in db: Database) throws {
        try createTables(in: db)
        try db.execute("DELETE FROM TableVersions WHERE tableName = ?", [.text(table)])
        try db.execute("DELETE FROM datacenter_dao_tables WHERE table_name = ?", [.text(table)])
    }

    /// Records which module and config own `table`, and its encrypted columns (a JSON array).
    public static func recordMetadata(table: String, config: DAOConfig, version: DAOVersion?, in db: Database) throws {
        let columns = DAOValue.array(config.encryptedColumns.map(DAOValue.string)).jsonText
        try db.execute("""
            INSERT OR REPLACE INTO datacenter_dao_tables(table_name, module, version, config_path, encrypted_columns)
            VALUES (?, ?, ?, ?, ?)
            """, [.text(table), .text(config.module.name), version.map { .text($0.text) } ?? .null, .text(config.path), .text(columns)])
    }

    /// One row of the metadata table.
    public struct Entry: Sendable, Equatable {
        public let tableName: String
        public let module: String
        public let version: String?
        public let configPath: String
        public let encryptedColumns: [String]
    }

    /// Every DAO table recorded in the store (for a browser).
    public static func entries(in db: Database) throws -> [Entry] {
        guard try Store.tableExists(metadataTableName, in: db) else { return [] }
        return try db.query("SELECT table_name, module, version, config_path, encrypted_columns FROM datacenter_dao_tables ORDER BY table_name")
            .map { row in
                let json = row[4].stringValue ?? "[]"
                let columns = DAOValueDecoding.structured(.string(json)).elements?.compactMap(\.stringValue) ?? []
                return Entry(tableName: row[0].stringValue ?? "", module: row[1].stringValue ?? "", version: row[2].stringValue,
                             configPath: row[3].stringValue ?? "", encryptedColumns: columns)
            }
    }
}

/// Brings one table to the config's version before its first use by a DAO object: runs the
/// initializer for a missing table, resets or upgrades an older one, refuses a newer one.
struct TableVersioning {
    let config: DAOConfig
    let table: String
    let globals: [String: DAOValue]
    let executor: Executor
    let notify: (DAOEvent, [String: DAOValue]) -> Void

    var db: Database { executor.db }

    func prepare() throws {
        try TableVersions.createTables(in: db)
        let exists = try Store.tableExists(table, in: db)
        let stored = try TableVersions.version(of: table, in: db)
        let target = config.module.version
        if !exists {
            try create()
        } else if let target {
            if let stored {
                if stored > target {
                    throw DAOError.downgrade(table: table, stored: stored.text, config: target.text)
                }
                if stored < target { try upgrade(from: stored, to: target) }
            } else {
                try db.inTransaction { try TableVersions.setVersion(target, of: table, in: db) }
            }
        }
        try db.inTransaction {
            try TableVersions.recordMetadata(table: table, config: config, version: config.module.version, in: db)
        }
    }

    /// Runs the initializer in one transaction and records the version.
    private func create() throws {
        guard let id = config.module.initializer, let method = try? config.method(id, arity: 0) else { return }
        let body = try Renderer.render(method.body, scope: DAOScope([:], globals: globals), tableName: table, cryptRules: config.cryptRules)
        try db.inTransaction {
            var outcome = Executor.Outcome()
            try executor.run(body, into: &outcome)
            if let version = config.module.version { try TableVersions.setVersion(version, of: table, in: db) }
        }
        if try Store.tableExists(table, in: db) {
            notify(.tableCreated, ["table": .string(table), "version": config.module.version.map { .string($0.text) } ?? .nil])
        }
    }

    private func upgrade(from stored: DAOVersion, to target: DAOVersion) throws {
        let module = config.module
        if module.resetOnUpgrade || module.upgradeMinVersion.map({ stored < $0 }) == true {
            try db.inTransaction {
                try db.execute("DROP TABLE IF EXISTS \(Database.quoteIdentifier(table))")
                try TableVersions.forget(table, in: db)
            }
            notify(.tableDeleted, ["table": .string(table)])
            try create()
            return
        }
        notify(.shouldUpgrade, ["table": .string(table), "fromVersion": .string(stored.text), "toVersion": .string(target.text)])
        var reached = stored
        for block in config.upgrades where block.toVersion > stored && block.toVersion <= target {
            do {
                let body = try Renderer.render(block.body, scope: DAOScope([:], globals: globals), tableName: table,
                                               cryptRules: config.cryptRules)
                try db.inTransaction {
                    var outcome = Executor.Outcome()
                    try executor.run(body, into: &outcome)
                    try TableVersions.setVersion(block.toVersion, of: table, in: db)
                }
                reached = block.toVersion
            } catch {
                notify(.upgradeFailed, ["table": .string(table), "fromVersion": .string(reached.text),
                                        "toVersion": .string(block.toVersion.text), "error": .string("\(error)")])
                throw DAOError.upgradeFailed(table: table, toVersion: block.toVersion.text, reached: reached.text, underlying: "\(error)")
            }
        }
        try db.inTransaction { try TableVersions.setVersion(target, of: table, in: db) }
    }
}
