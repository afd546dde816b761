import DatacenterDAO
import DatacenterKit
import Foundation
import DatacenterText

/// What `S` shows of a table or view: its columns (type, NOT NULL, default, primary key),
/// indexes, foreign keys, triggers and the statement that created it; for a DAO table also
/// its module, version and encrypted columns, as the store's metadata records them. Read
/// off the input loop (`BrowserCommand.schema`) from SQLite's pragmas.
struct TableSchema: Sendable {
    /// One column, as `pragma_table_info` gives it.
    struct Column: Sendable {
        /// The column's name.
        let name: String
        /// The declared type, as written (empty when none was).
        let type: String
        /// True when declared NOT NULL.
        let notNull: Bool
        /// The default as SQL text, or nil.
        let defaultValue: String?
        /// Its place in the primary key (1-based), or 0.
        let primaryKey: Int
    }

    /// One index: its name, whether unique, the columns it covers, and why it exists
    /// (`c` created, `u` a UNIQUE constraint, `pk` the primary key), partial or not.
    struct Index: Sendable {
        /// The index's name (`sqlite_autoindex_…` for one SQLite made).
        let name: String
        /// True for a unique index.
        let unique: Bool
        /// The columns it covers, in order (`(expression)` for an expression).
        let columns: [String]
        /// `c`, `u` or `pk`.
        let origin: String
        /// True when it has a WHERE clause.
        let partial: Bool
    }

    /// A foreign key: the columns here that reference columns of another table (its
    /// primary key when `to` is empty), and what happens on update and delete.
    package struct ForeignKey: Sendable, Equatable {
        /// The columns of this table, in order.
        package let from: [String]
        /// The table referenced.
        package let table: String
        /// The columns referenced, in order; empty for the referenced table's primary key.
        package let to: [String]
        /// What an update of the referenced row does (`NO ACTION`, `CASCADE`, …).
        package let onUpdate: String
        /// What a delete of the referenced row does.
        package let onDelete: String
    }

    /// One trigger: its name and statement.
    struct Trigger: Sendable {
        /// The trigger's name.
        let name: String
        /// Its CREATE TRIGGER statement.
        let sql: String
    }

    /// The table's (or view's) name.
    let table: String
    /// True for a view.
    let isView: Bool
    /// The columns, in order.
    let columns: [Column]
    /// The indexes, by name.
    let indexes: [Index]
    /// The foreign keys, in SQLite's order.
    let foreignKeys: [ForeignKey]
    /// The triggers on it, by name.
    let triggers: [Trigger]
    /// The `CREATE` statement, as SQLite keeps it.
    let sql: String?
    /// The DAO metadata of the table, if a DAO module created it.
    let dao: TableVersions.Entry?

    /// The schema of `table` in `store`.
    /// - throws: `BrowserOpenError` when there is no such table; `DatabaseError`.
    static func read(_ table: String, in store: Store) throws -> TableSchema {
        try store.queue.read { db in
            let master = try db.queryFirst("SELECT type, sql FROM sqlite_master WHERE name = ? AND type IN ('table', 'view')", [.text(table)])
            guard let master else { throw BrowserOpenError(description: "\(table) is not a table or view of this store") }
            let columns = try db.query("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?) ORDER BY cid", [.text(table)]).map { row in
                Column(name: row.values[0].stringValue ?? "", type: row.values[1].stringValue ?? "", notNull: row.values[2].int64Value == 1,
                       defaultValue: row.values[3].stringValue, primaryKey: Int(row.values[4].int64Value ?? 0))
            }
            let indexes = try db.query("SELECT name, \"unique\", origin, partial FROM pragma_index_list(?) ORDER BY name", [.text(table)]).map { row in
                let name = row.values[0].stringValue ?? ""
                let covered = try db.query("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [.text(name)]).map { $0.values[0].stringValue ?? "(expression)" }
                return Index(name: name, unique: row.values[1].int64Value == 1, columns: covered, origin: row.values[2].stringValue ?? "c",
                             partial: row.values[3].int64Value == 1)
            }
            let triggers = try db.query("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? ORDER BY name", [.text(table)]).map {
                Trigger(name: $0.values[0].stringValue ?? "", sql: $0.values[1].stringValue ?? "")
            }
            let dao = try Store.tableExists(TableVersions.metadataTableName, in: db)
                ? try TableVersions.entries(in: db).first { $0.tableName == table } : nil
            return TableSchema(table: table, isView: master.values[0].stringValue == "view", columns: columns, indexes: indexes,
                               foreignKeys: try TableSchema.foreignKeys(of: table, in: db), triggers: triggers,
                               sql: master.values[1].stringValue, dao: dao)
        }
    }

    /// The foreign keys of `table`, each with its columns in order.
    static func foreignKeys(of table: String, in db: Database) throws -> [ForeignKey] {
        let rows = try db.query("SELECT id, \"table\", \"from\", \"to\", on_update, on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq", [.text(table)])
        var keys: [(id: Int64, key: ForeignKey)] = []
        for row in rows {
            let id = row.values[0].int64Value ?? 0
            let from = row.values[2].stringValue ?? ""
            let to = row.values[3].stringValue
            if let last = keys.last, last.id == id {
                let k = last.key
                keys[keys.count - 1].key = ForeignKey(from: k.from + [from], table: k.table, to: to.map { k.to + [$0] } ?? k.to,
                                                      onUpdate: k.onUpdate, onDelete: k.onDelete)
            } else {
                keys.append((id, ForeignKey(from: [from], table: row.values[1].stringValue ?? "", to: to.map { [$0] } ?? [],
                                            onUpdate: row.values[4].stringValue ?? "NO ACTION", onDelete: row.values[5].stringValue ?? "NO ACTION")))
            }
        }
        return keys.map(\.key)
    }

    /// The schema as lines of text, for the inspector: sections, columns aligned.
    var lines: [String] {
        var out: [String] = []
        var title = (isView ? "VIEW " : "TABLE ") + table
        if let dao {
            title += " · DAO module \(dao.module)" + (dao.version.map { " v" + $0 } ?? "")
            if !dao.encryptedColumns.isEmpty { title += " · encrypted: " + dao.encryptedColumns.joined(separator: ", ") }
        }
        out.append(title)
        out.append("")
        out.append("Columns")
        let encrypted = Set(dao?.encryptedColumns ?? [])
        let compositeKey = columns.filter { $0.primaryKey > 0 }.count > 1
        let rows: [[String]] = columns.map { c in
            var marks: [String] = []
            if c.primaryKey > 0 { marks.append(compositeKey ? "PK \(c.primaryKey)" : "PK") }
            if encrypted.contains(c.name) { marks.append("encrypted") }
            // Where J leads from this column.
            marks += foreignKeys.filter { $0.from.contains(c.name) }.map { "→ " + $0.table }
            let type = c.type.isEmpty ? "(any)" : c.type
            let defaultValue = c.defaultValue.map { "DEFAULT " + $0 } ?? ""
            return [c.name, type, c.notNull ? "NOT NULL" : "", defaultValue, marks.joined(separator: " ")]
        }
        out += TableSchema.aligned(rows).map { "  " + $0 }
        if !indexes.isEmpty {
            out.append("")
            out.append("Indexes")
            out += indexes.map { i in
                let origin = i.origin == "pk" ? " (primary key)" : (i.origin == "u" ? " (UNIQUE constraint)" : "")
                return "  \(i.name)\(i.unique ? " UNIQUE" : "") (\(i.columns.joined(separator: ", ")))\(origin)\(i.partial ? " partial" : "")"
            }
        }
        if !foreignKeys.isEmpty {
            out.append("")
            out.append("Foreign keys (J on such a column follows it, Backspace comes back)")
            out += foreignKeys.map { k in
                let actions = [k.onUpdate == "NO ACTION" ? nil : "ON UPDATE " + k.onUpdate, k.onDelete == "NO ACTION" ? nil : "ON DELETE " + k.onDelete]
                    .compactMap { $0 }.joined(separator: " ")
                let to = k.to.isEmpty ? "primary key" : k.to.joined(separator: ", ")
                return "  (\(k.from.joined(separator: ", "))) → \(k.table)(\(to))" + (actions.isEmpty ? "" : " " + actions)
            }
        }
        if !triggers.isEmpty {
            out.append("")
            out.append("Triggers")
            out += triggers.map { "  \($0.name): \($0.sql)" }
        }
        if let sql {
            out.append("")
            out.append("SQL")
            out += sql.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
        }
        return out
    }

    /// Rows of cells as lines, each column padded to its widest cell.
    private static func aligned(_ rows: [[String]]) -> [String] {
        guard let count = rows.first?.count else { return [] }
        let widths = (0..<count).map { i in rows.map { TerminalText.width(of: $0[i]) }.max() ?? 0 }
        return rows.map { cells in
            cells.enumerated().map { i, cell in
                i == count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - TerminalText.width(of: cell) + 2)
            }.joined().trimmingCharacters(in: .whitespaces)
        }
    }
}
