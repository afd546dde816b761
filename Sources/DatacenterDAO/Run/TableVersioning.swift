import Foundation
import DatacenterKit

/// The `TableVersions` table of a store (table name → version of the config that made it)
/// and the metadata table that lets a browser find DAO tables without their configs.
public enum TableVersions {
    /// The versions table's name, as the original product names it.
    public static let tableName = "TableVersions"
    /// The metadata table: one row per DAO table.
    public static let metadataTableName = "datacenter_dao_tables"

    /// The statements that create both tables, each on its own.
    static let schemaStatements = [
        "CREATE TABLE IF NOT EXISTS TableVersions(tableName TEXT PRIMARY KEY NOT NULL, version TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS datacenter_dao_tables(table_name TEXT PRIMARY KEY, module TEXT, version TEXT, "
            + "config_path TEXT, encrypted_columns TEXT)",
    ]

    /// Creates both tables when missing.
    public static func createTables(in db: Database) throws {
        guard try !Store.tableExists(tableName, in: db) || !Store.tableExists(metadataTableName, in: db) else { return }
        for statement in schemaStatements { try db.execute(statement) }
    }

    /// The stored version of `table`, or nil.
    public static func version(of table: String, in db: Database) throws -> DAOVersion? {
        guard try Store.tableExists(tableName, in: db) else { return nil }
        guard let text = try db.scalar("SELECT version FROM TableVersions WHERE tableName = ?", [.text(table)])?.stringValue else { return nil }
        return DAOVersion(text)
    }

    /// Records `version` for `table`.
    public static func setVersion(_ version: DAOVersion, of table: String, in db: Database) throws {
        let statement = setVersionStatement(version, of: table)
        try db.execute(statement.sql, StatementArguments(statement.bindings))
    }

    /// The statement that records `version` for `table`.
    static func setVersionStatement(_ version: DAOVersion, of table: String) -> RenderedSQL {
        statement("INSERT OR REPLACE INTO TableVersions(tableName, version) VALUES (?, ?)", [.text(table), .text(version.text)])
    }

    /// Forgets `table` (its version and metadata row).
    public static func forget(_ table: String, in db: Database) throws {
        try createTables(in: db)
        for statement in forgetStatements(table, dropping: false) { try db.execute(statement.sql, StatementArguments(statement.bindings)) }
    }

    /// The statements that forget `table`, after dropping it when `dropping`.
    static func forgetStatements(_ table: String, dropping: Bool) -> [RenderedSQL] {
        (dropping ? [statement("DROP TABLE IF EXISTS \(Database.quoteIdentifier(table))", [])] : []) + [
            statement("DELETE FROM TableVersions WHERE tableName = ?", [.text(table)]),
            statement("DELETE FROM datacenter_dao_tables WHERE table_name = ?", [.text(table)]),
        ]
    }

    /// Records which module and config own `table`, and its encrypted columns (a JSON array).
    public static func recordMetadata(table: String, config: DAOConfig, version: DAOVersion?, in db: Database) throws {
        let statement = metadataStatement(table: table, config: config, version: version)
        try db.execute(statement.sql, StatementArguments(statement.bindings))
    }

    /// The statement that records `table`'s metadata row.
    static func metadataStatement(table: String, config: DAOConfig, version: DAOVersion?) -> RenderedSQL {
        let columns = DAOValue.array(config.encryptedColumns.map(DAOValue.string)).jsonText
        return statement("""
            INSERT OR REPLACE INTO datacenter_dao_tables(table_name, module, version, config_path, encrypted_columns) \
            VALUES (?, ?, ?, ?, ?)
            """, [.text(table), .text(config.module.name), version.map { .text($0.text) } ?? .null,
                  .text(recordedPath(of: config)), .text(columns)])
    }

    /// The config's path as recorded for a browser: absolute when the file exists, so the
    /// record holds from any working folder (a config compiled from memory keeps its name).
    static func recordedPath(of config: DAOConfig) -> String {
        guard !config.path.hasPrefix("/"), FileManager.default.fileExists(atPath: config.path) else { return config.path }
        return URL(fileURLWithPath: config.path).standardizedFileURL.path
    }

    /// The values of `table`'s metadata row in `metadataStatement`'s binding order, or nil
    /// when there is no row.
    static func metadataBindings(of table: String, in db: Database) throws -> [DatabaseValue]? {
        guard try Store.tableExists(metadataTableName, in: db) else { return nil }
        return try db.queryFirst("""
            SELECT table_name, module, version, config_path, encrypted_columns FROM datacenter_dao_tables WHERE table_name = ?
            """, [.text(table)])?.values
    }

    /// A statement whose preview writes its bindings in as SQL literals.
    private static func statement(_ sql: String, _ bindings: [DatabaseValue]) -> RenderedSQL {
        var preview = ""
        var index = 0
        for c in sql {
            if c == "?", index < bindings.count { preview += bindings[index].description; index += 1 } else { preview.append(c) }
        }
        return RenderedSQL(sql: sql, bindings: bindings, preview: preview)
    }

    /// One row of the metadata table.
    public struct Entry: Sendable, Equatable {
        /// The DAO table.
        public let tableName: String
        /// The config's module name.
        public let module: String
        /// The table's version after its last upgrade, if the module is versioned.
        public let version: String?
        /// The config file that last touched the table, so a browser can load it.
        public let configPath: String
        /// The columns `<crypt>` rules encrypt, so a browser decrypts them on view.
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
/// steps of its `TablePreparation` (initializer for a missing table, reset or upgrades for an
/// older one; a newer one is refused), each in its own transaction, and announces the events.
struct TableVersioning {
    let config: DAOConfig
    let table: String
    let globals: [String: DAOValue]
    let executor: Executor
    let notify: (DAOEvent, [String: DAOValue]) -> Void

    var db: Database { executor.db }

    /// Plans, then runs the plan. Returns the plan that ran.
    /// - throws: `DAOError.downgrade`, `DAOError.upgradeFailed` (the table stays at the last
    ///   version reached), or the error of a failing step.
    @discardableResult
    func prepare() throws -> TablePreparation {
        let plan = try TablePreparation.plan(config: config, table: table, globals: globals, in: db)
        var reached = plan.upgrading?.from
        var announced = false
        for step in plan.steps {
            if let upgrading = plan.upgrading, !announced, step.purpose != .bookkeeping {
                notify(.shouldUpgrade, ["table": .string(table), "fromVersion": .string(upgrading.from.text),
                                        "toVersion": .string(upgrading.to.text)])
                announced = true
            }
            if case .upgrade(let to) = step.purpose {
                do {
                    if let failure = step.failure { throw TablePreparation.RenderFailure(description: failure) }
                    try run(step)
                    reached = DAOVersion(to)
                } catch {
                    let from = reached?.text ?? ""
                    notify(.upgradeFailed, ["table": .string(table), "fromVersion": .string(from), "toVersion": .string(to),
                                            "error": .string("\(error)")])
                    throw DAOError.upgradeFailed(table: table, toVersion: to, reached: from, underlying: "\(error)")
                }
                continue
            }
            try run(step)
            switch step.purpose {
            case .reset: notify(.tableDeleted, ["table": .string(table)])
            case .create:
                if try Store.tableExists(table, in: db) {
                    notify(.tableCreated, ["table": .string(table), "version": config.module.version.map { .string($0.text) } ?? .nil])
                }
            default: break
            }
        }
        return plan
    }

    /// Runs one step's bodies in one transaction.
    private func run(_ step: TablePreparation.Step) throws {
        try db.inTransaction {
            var outcome = Executor.Outcome()
            for body in step.bodies { try executor.run(body, into: &outcome) }
        }
    }
}
