import DatacenterKit
import Foundation

/// What undoing a row change needs to know of its table: its columns in the order SQLite's
/// pre-update hook numbers them, which of them can be written (not generated), and how a row
/// is named (its rowid, or its primary key in a table `WITHOUT ROWID`). The SQL every row's
/// inverse shares is made once, here.
struct TableShape {
    /// The table.
    let table: String
    /// Every column, in the table's order.
    let columns: [String]
    /// True for the columns a statement can write (generated columns cannot).
    let writable: [Bool]
    /// The name the rowid goes by here, quoted (`"_rowid_"`, or `"rowid"` or `"oid"` when a
    /// column is named so); nil for a table `WITHOUT ROWID`.
    let rowidName: String?
    /// The column that is the rowid (`INTEGER PRIMARY KEY`), if any.
    let rowidColumn: Int?
    /// The primary key's columns, in key order (a table `WITHOUT ROWID` is named by them).
    let primaryKey: [Int]
    /// Where each column's value is among those the pre-update hook reports: their order is
    /// the record's, where virtual generated columns come last (they are not stored); nil
    /// for those.
    private let storage: [Int?]
    /// The columns compared to tell a row is as the commit left it: every written one but the key.
    private let guarded: [Int]
    /// `key AND c IS ? AND …`: the WHERE naming a row as the commit left it.
    private let guardedWhere: String
    /// The columns an insert putting a row back writes, and its statement (`INSERT INTO t
    /// (…) VALUES (` then the placeholders).
    private let reinserted: [Int]
    private let reinsertHead: String
    private let reinsertSQL: String

    init(table: String, columns: [String], writable: [Bool], virtual: [Bool], rowidName: String?, rowidColumn: Int?, primaryKey: [Int]) {
        self.table = table
        var stored = 0
        storage = virtual.map { isVirtual in
            defer { if !isVirtual { stored += 1 } }
            return isVirtual ? nil : stored
        }
        self.columns = columns
        self.writable = writable
        self.rowidName = rowidName
        self.rowidColumn = rowidColumn
        self.primaryKey = primaryKey
        let quoted = columns.map(Database.quoteIdentifier)
        guarded = columns.indices.filter { writable[$0] && $0 != rowidColumn && (rowidName != nil || !primaryKey.contains($0)) }
        let key = rowidName.map { "\($0) = ?" } ?? primaryKey.map { quoted[$0] + " IS ?" }.joined(separator: " AND ")
        guardedWhere = ([key] + guarded.map { quoted[$0] + " IS ?" }).joined(separator: " AND ")
        reinserted = columns.indices.filter { writable[$0] }
        let names = (rowidName != nil && rowidColumn == nil ? [rowidName!] : []) + reinserted.map { quoted[$0] }
        reinsertHead = "INSERT INTO \(Database.quoteIdentifier(table)) (\(names.joined(separator: ", "))) VALUES ("
        reinsertSQL = reinsertHead + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
    }

    /// The shape of `table` in `db` now.
    /// - throws: `BrowserEditError` when there is no such table.
    static func read(_ table: String, in db: Database) throws -> TableShape {
        let info = try db.query("SELECT name, type, pk, hidden FROM pragma_table_xinfo(?)", [.text(table)])
        guard !info.isEmpty else { throw BrowserEditError(message: "no table \(table) to undo changes in") }
        let columns = info.map { $0[0].stringValue ?? "" }
        let withoutRowid = try db.scalar("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", [.text(table)])?.int64Value == 1
        let keyed = info.enumerated().filter { ($0.element[2].int64Value ?? 0) > 0 }.sorted { ($0.element[2].int64Value ?? 0) < ($1.element[2].int64Value ?? 0) }
        let primaryKey = keyed.map(\.offset)
        let lowered = Set(columns.map { $0.lowercased() })
        // The rowid by the name a staged edit gives it (`TableSource`), quoted as there.
        let rowidName = withoutRowid ? nil : TableSource.rowidNames.first { !lowered.contains($0) }.map(Database.quoteIdentifier)
        var rowidColumn: Int?
        if !withoutRowid, primaryKey.count == 1, info[primaryKey[0]][1].stringValue?.uppercased() == "INTEGER" { rowidColumn = primaryKey[0] }
        return TableShape(table: table, columns: columns, writable: info.map { ($0[3].int64Value ?? 0) == 0 },
                          virtual: info.map { $0[3].int64Value == 2 }, rowidName: rowidName, rowidColumn: rowidColumn, primaryKey: primaryKey)
    }

    /// The statement that undoes `change`, or nil when it changed nothing (an update to the
    /// same values); with `preview`, the statement in words for the review too.
    /// - throws: `BrowserEditError` when the change does not fit the table (its columns
    ///   changed meanwhile), or a row of a rowid table hides its rowid behind columns named
    ///   `rowid`, `_rowid_` and `oid`.
    func inverse(of change: RowWrite, preview: Bool) throws -> UndoStatement? {
        let values = change.kind == .delete ? change.old : change.new
        guard values.count == columns.count, change.kind != .update || change.old.count == columns.count else {
            throw BrowserEditError(message: "\(table) has \(columns.count) columns, a change of it \(values.count)")
        }
        guard rowidName != nil || primaryKey.count > 0 else {
            throw BrowserEditError(message: "\(table): its rowid has no name left (columns rowid, _rowid_ and oid)")
        }
        let name = Database.quoteIdentifier(table)
        switch change.kind {
        case .insert:
            let (keyArguments, label) = rowKey(rowid: change.newRowid, values: change.new)
            return UndoStatement(label: label, check: .row, table: table, sql: "DELETE FROM \(name) WHERE \(guardedWhere)",
                                 arguments: keyArguments + guarded.map { stored(change.new, $0) },
                                 preview: preview ? "DELETE FROM \(name) WHERE \(keyPreview(keyArguments))" : "")
        case .delete:
            let arguments = (rowidName != nil && rowidColumn == nil ? [.integer(change.oldRowid)] : []) + reinserted.map { stored(change.old, $0) }
            return UndoStatement(label: rowKey(rowid: change.oldRowid, values: change.old).label, check: .insert, table: table,
                                 sql: reinsertSQL, arguments: arguments,
                                 preview: preview ? reinsertHead + arguments.map(Self.shortLiteral).joined(separator: ", ") + ")" : "")
        case .update:
            var sets: [String] = []
            var arguments: [DatabaseValue] = []
            if let rowidName, rowidColumn == nil, change.oldRowid != change.newRowid {
                sets.append(rowidName + " = ?")
                arguments.append(.integer(change.oldRowid))
            }
            for index in columns.indices where writable[index] && stored(change.old, index) != stored(change.new, index) {
                sets.append(Database.quoteIdentifier(columns[index]) + " = ?")
                arguments.append(stored(change.old, index))
            }
            guard !sets.isEmpty else { return nil }
            let (keyArguments, label) = rowKey(rowid: change.newRowid, values: change.new)
            let shown = preview ? zip(sets, arguments).map { $0.0.dropLast(1) + Self.shortLiteral($0.1) }.joined(separator: ", ") : ""
            return UndoStatement(label: label, check: .row, table: table,
                                 sql: "UPDATE \(name) SET \(sets.joined(separator: ", ")) WHERE \(guardedWhere)",
                                 arguments: arguments + keyArguments + guarded.map { stored(change.new, $0) },
                                 preview: preview ? "UPDATE \(name) SET \(shown) WHERE \(keyPreview(keyArguments))" : "")
        }
    }

    /// Column `column`'s value among `values`, as the hook reports them (`storage`); a
    /// virtual column's is NULL (none is written or compared).
    private func stored(_ values: [DatabaseValue], _ column: Int) -> DatabaseValue {
        storage[column].map { $0 < values.count ? values[$0] : .null } ?? .null
    }

    /// The values naming one row (its rowid, or its primary key), and the row in words
    /// (`notes row 3`).
    private func rowKey(rowid: Int64, values: [DatabaseValue]) -> (arguments: [DatabaseValue], label: String) {
        if rowidName != nil { return ([.integer(rowid)], "\(table) row \(rowid)") }
        let label = "\(table) row " + primaryKey.map { columns[$0] + " = " + Self.shortLiteral(stored(values, $0)) }.joined(separator: ", ")
        return (primaryKey.map { stored(values, $0) }, label)
    }

    /// The key's WHERE with its values inlined, for the review.
    private func keyPreview(_ arguments: [DatabaseValue]) -> String {
        if let rowidName { return "\(rowidName) = \(arguments.first.map(Self.shortLiteral) ?? "?")" }
        return zip(primaryKey, arguments).map { Database.quoteIdentifier(columns[$0.0]) + " = " + Self.shortLiteral($0.1) }
            .joined(separator: " AND ")
    }

    /// A value as an SQL literal for the review, cut after 40 characters (`…`).
    static func shortLiteral(_ value: DatabaseValue) -> String {
        let literal = value.sqlLiteral
        return literal.count > 48 ? String(literal.prefix(40)) + "…" : literal
    }
}
