import DatacenterKit

/// What bringing one table to its config's version runs before a DAO object first uses it,
/// worked out from the database without changing it: the bookkeeping tables when missing, the
/// initializer for a missing table, a reset or the upgrades for an older one, the version and
/// the metadata row when they differ.
///
/// `DAOObject` prepares a table by running exactly these steps (`TableVersioning`), so a
/// preview that shows a plan shows what will run, and a plan made again just before running
/// tells whether the database changed meanwhile.
///
/// For example, a `messages` table stored at 1.1 with a config at 1.2 plans:
/// ```
/// upgrade to 1.2: alter table messages add column starred …; create index …;
///                 INSERT OR REPLACE INTO TableVersions(tableName, version) VALUES ('messages', '1.2')
/// record version 1.2: INSERT OR REPLACE INTO TableVersions …
/// record metadata: INSERT OR REPLACE INTO datacenter_dao_tables …
/// ```
public struct TablePreparation: Sendable, Equatable {
    /// Why a step runs.
    public enum Purpose: Sendable, Equatable {
        /// Creates the `TableVersions` and `datacenter_dao_tables` tables, which are missing.
        case bookkeeping
        /// Drops the table and forgets its version (`resetOnUpgrade`, or stored below
        /// `upgradeMinVersion`); the initializer runs next.
        case reset
        /// Runs the initializer and records the config's version (the table is missing).
        case create
        /// Records the config's version for an existing table that has none.
        case adopt
        /// Runs one `<upgrade toVersion>` block and records that version.
        case upgrade(toVersion: String)
        /// Records the config's version after the upgrades.
        case finishUpgrade
        /// Writes the table's metadata row (module, version, config path, encrypted columns).
        case metadata
    }

    /// One step: statements that run in one transaction.
    public struct Step: Sendable, Equatable {
        /// Why it runs.
        public let purpose: Purpose
        /// What a person reads: `create table (initializer createTable)`, `upgrade to 1.2`, ….
        public let label: String
        /// What runs, in order, in one transaction; each body keeps its shape (steps and
        /// try/except keep their meaning).
        public let bodies: [RenderedBody]
        /// Set when an upgrade block did not render: running the step fails with it (and the
        /// upgrade is reported failed), as a failing upgrade does.
        let failure: String?

        /// The step's statements, each labelled `LABEL` or `LABEL: step` when the body has parts.
        public var parts: [RenderedPart] {
            bodies.flatMap { RenderedCall(methodID: label, kind: .update, runs: [$0], isForEach: false).parts }.map { part in
                RenderedPart(label: part.label == "statement" ? label : label + ": " + part.label, run: 0, statement: part.statement)
            }
        }
    }

    /// The table the plan is for.
    public let table: String
    /// The steps, in the order they run.
    public let steps: [Step]
    /// The stored and target versions when the table is upgraded step by step (ShouldUpgrade
    /// is announced before the first upgrade step).
    let upgrading: (from: DAOVersion, to: DAOVersion)?

    /// True when preparing the table writes nothing.
    public var isEmpty: Bool { steps.isEmpty }

    /// Every statement of every step, labelled with its step.
    public var parts: [RenderedPart] { steps.flatMap(\.parts) }

    public static func == (a: TablePreparation, b: TablePreparation) -> Bool {
        a.table == b.table && a.steps == b.steps && a.upgrading?.from == b.upgrading?.from && a.upgrading?.to == b.upgrading?.to
    }

    /// Works out what preparing `table` for `config` would run on `db`, reading only.
    ///
    /// - parameter globals: the DAO object's global arguments (the initializer and upgrade
    ///   blocks may read them).
    /// - throws: `DAOError.downgrade` when the stored version is newer than the config's
    ///   (preparing refuses it); a render error of the initializer; `DatabaseError`.
    public static func plan(config: DAOConfig, table: String, globals: [String: DAOValue] = [:],
                            in db: Database) throws -> TablePreparation {
        var steps: [Step] = []
        var upgrading: (from: DAOVersion, to: DAOVersion)?
        let hasBookkeeping = try Store.tableExists(TableVersions.tableName, in: db)
            && Store.tableExists(TableVersions.metadataTableName, in: db)
        if !hasBookkeeping {
            steps.append(Step(purpose: .bookkeeping, label: "create bookkeeping tables",
                              bodies: TableVersions.schemaStatements.map { .statement(plain($0)) },
                              failure: nil))
        }
        let exists = try Store.tableExists(table, in: db)
        let stored = try TableVersions.version(of: table, in: db)
        let target = config.module.version
        var forgotten = false
        if !exists {
            if let create = try createStep(config: config, table: table, globals: globals) { steps.append(create) }
        } else if let target {
            if let stored {
                if stored > target { throw DAOError.downgrade(table: table, stored: stored.text, config: target.text) }
                if stored < target {
                    let module = config.module
                    if module.resetOnUpgrade || module.upgradeMinVersion.map({ stored < $0 }) == true {
                        let reason = module.resetOnUpgrade ? "resetOnUpgrade" : "stored \(stored.text) < upgradeMinVersion"
                        steps.append(Step(purpose: .reset, label: "reset: drop table \(table) (\(reason))",
                                          bodies: TableVersions.forgetStatements(table, dropping: true).map { .statement($0) }, failure: nil))
                        forgotten = true
                        if let create = try createStep(config: config, table: table, globals: globals) { steps.append(create) }
                    } else {
                        upgrading = (stored, target)
                        for block in config.upgrades where block.toVersion > stored && block.toVersion <= target {
                            steps.append(upgradeStep(block, config: config, table: table, globals: globals))
                        }
                        steps.append(Step(purpose: .finishUpgrade, label: "record version \(target.text)",
                                          bodies: [.statement(TableVersions.setVersionStatement(target, of: table))], failure: nil))
                    }
                }
            } else {
                steps.append(Step(purpose: .adopt, label: "record version \(target.text) (the table had none)",
                                  bodies: [.statement(TableVersions.setVersionStatement(target, of: table))], failure: nil))
            }
        }
        let metadata = TableVersions.metadataStatement(table: table, config: config, version: target)
        let recorded = try TableVersions.metadataBindings(of: table, in: db)
        if forgotten || !hasBookkeeping || recorded != metadata.bindings {
            steps.append(Step(purpose: .metadata, label: "record metadata", bodies: [.statement(metadata)], failure: nil))
        }
        return TablePreparation(table: table, steps: steps, upgrading: upgrading)
    }

    /// The initializer's statements and the version record, or nil without an initializer.
    private static func createStep(config: DAOConfig, table: String, globals: [String: DAOValue]) throws -> Step? {
        guard let id = config.module.initializer, let method = try? config.method(id, arity: 0) else { return nil }
        let body = try Renderer.render(method.body, scope: DAOScope([:], globals: globals), tableName: table, cryptRules: config.cryptRules)
        return Step(purpose: .create, label: "create table (initializer \(id))",
                    bodies: [body] + (config.module.version.map { [.statement(TableVersions.setVersionStatement($0, of: table))] } ?? []),
                    failure: nil)
    }

    /// One upgrade block's statements and its version record; a block that does not render
    /// becomes a step that fails when run.
    private static func upgradeStep(_ block: DAOUpgrade, config: DAOConfig, table: String,
                                    globals: [String: DAOValue]) -> Step {
        let label = "upgrade to \(block.toVersion.text)"
        do {
            let body = try Renderer.render(block.body, scope: DAOScope([:], globals: globals), tableName: table,
                                           cryptRules: config.cryptRules)
            // The version reached is recorded in both places with the block, so an upgrade
            // that fails later leaves them agreeing on where the table stands.
            return Step(purpose: .upgrade(toVersion: block.toVersion.text), label: label,
                        bodies: [body, .statement(TableVersions.setVersionStatement(block.toVersion, of: table)),
                                 .statement(TableVersions.metadataStatement(table: table, config: config, version: block.toVersion))],
                        failure: nil)
        } catch {
            return Step(purpose: .upgrade(toVersion: block.toVersion.text), label: label, bodies: [], failure: "\(error)")
        }
    }

    /// An upgrade block that did not render, thrown when its step runs.
    struct RenderFailure: Error, CustomStringConvertible {
        let description: String
    }

    private static func plain(_ sql: String) -> RenderedSQL { RenderedSQL(sql: sql, bindings: [], preview: sql) }
}
