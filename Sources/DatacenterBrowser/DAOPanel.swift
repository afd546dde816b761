import DatacenterDAO
import DatacenterKit
import Foundation

/// The DAO methods of one table: pick a method, fill a form with one field per argument,
/// watch the SQL it renders (exactly what will run: `RenderedSQL`), its bindings, the inlined
/// form and `EXPLAIN QUERY PLAN`, then run it. Selects run on the browser's read-only
/// connection; writes ask for confirmation first.
struct DAOPanel {
    enum Stage: Equatable { case methods, form, confirm }

    /// One argument's input.
    struct Field {
        let name: String
        let isRequired: Bool
        var text = ""
        var isNil: Bool

        /// The value the text stands for: JSON when it parses as JSON (numbers, booleans,
        /// arrays, objects, quoted strings, `{"$blob": …}`), else the text itself as a string.
        var value: DAOValue {
            if isNil { return .nil }
            return (try? DAOValue(parsingJSON: text)) ?? .string(text)
        }
    }

    /// What one rendered statement looks like before it runs.
    struct StatementPreview {
        let sql: String
        let bindings: String
        let inlined: String
        let plan: [String]
    }

    let table: String
    let storePath: String
    let config: DAOConfig
    let encryptedColumns: Set<String>
    var stage = Stage.methods
    var methodCursor = 0
    var method: DAOMethod?
    var fields: [Field] = []
    var fieldCursor = 0
    var previews: [StatementPreview] = []
    var skipped = false
    var renderError: String?
    var resultLines: [String] = []
    var resultIsError = false

    init(table: String, storePath: String, config: DAOConfig, encryptedColumns: Set<String>) {
        self.table = table
        self.storePath = storePath
        self.config = config
        self.encryptedColumns = encryptedColumns
    }

    var title: String {
        "DAO · \(config.module.name)" + (config.module.version.map { " v\($0)" } ?? "") + " · table \(table)"
    }

    /// Opens the form of the method under the cursor.
    mutating func chooseMethod(catalog: BrowserCatalog) {
        guard config.methods.indices.contains(methodCursor) else { return }
        let chosen = config.methods[methodCursor]
        method = chosen
        fields = chosen.arguments.map { Field(name: $0.name, isRequired: $0.isRequired, isNil: !$0.isRequired) }
        fieldCursor = 0
        stage = .form
        resultLines = []
        refreshPreview(catalog: catalog)
    }

    /// Renders the method with the form's values, and asks SQLite for each statement's plan.
    mutating func refreshPreview(catalog: BrowserCatalog) {
        guard let method else { return }
        previews = []
        skipped = false
        renderError = nil
        do {
            let call = try config.render(method.id, arguments: fields.map(\.value), globals: [:], tableName: table)
            let statements = call.statements
            skipped = !statements.isEmpty && statements.allSatisfy(\.skipped)
            let store = try catalog.store(at: storePath)
            previews = statements.filter { !$0.skipped }.map { statement in
                let plan: [String] = (try? store.queue.read { db in
                    try db.makeStatement("EXPLAIN QUERY PLAN " + statement.sql).fetchAll(StatementArguments(statement.bindings))
                        .compactMap { $0["detail"]?.stringValue }
                }) ?? ["(no plan: the table or a column does not exist yet)"]
                return StatementPreview(sql: statement.sql,
                                        bindings: statement.bindings.map(\.description).joined(separator: ", "),
                                        inlined: statement.preview, plan: plan)
            }
        } catch {
            renderError = "\(error)"
        }
    }

    /// Runs a select on the read-only connection and lays out its rows; other kinds go to
    /// the confirmation stage (they write).
    mutating func run(catalog: BrowserCatalog) {
        guard let method else { return }
        if let renderError {
            resultLines = ["cannot run: " + renderError]
            resultIsError = true
            return
        }
        if let required = fields.first(where: { $0.isRequired && $0.isNil }) {
            resultLines = ["$\(required.name) must not be nil"]
            resultIsError = true
            return
        }
        guard method.kind == .select else {
            if catalog.allowsWrites { stage = .confirm } else {
                resultLines = ["--read-only: \(method.kind.rawValue) methods are not run"]
                resultIsError = true
            }
            return
        }
        do {
            let call = try config.render(method.id, arguments: fields.map(\.value), globals: [:], tableName: table)
            let store = try catalog.store(at: storePath)
            var lines: [String] = []
            var lastRows: [Row] = []
            for statement in call.statements where !statement.skipped {
                let rows = try store.queue.read { db in try db.makeStatement(statement.sql).fetchAll(StatementArguments(statement.bindings)) }
                lastRows = rows
                lines += RowsLayout.lines(rows, encryptedColumns: encryptedColumns, crypt: catalog.keys)
            }
            resultLines = DAOPanel.resultSummary(method.result, rows: lastRows, crypt: catalog.keys, encryptedColumns: encryptedColumns)
                + (lines.isEmpty ? ["(no rows)"] : lines)
            resultIsError = false
        } catch {
            resultLines = ["\(error)"]
            resultIsError = true
        }
    }

    /// The first line of a select's result, per the method's `result` type: the value for a
    /// scalar result (the first column of the first row, or nil), the shape for the others.
    static func resultSummary(_ type: DAOResultType?, rows: [Row], crypt: any DataCrypt, encryptedColumns: Set<String>) -> [String] {
        guard let type else { return ["result: none declared (success only); the rows:"] }
        switch type.element {
        case .int, .longLong, .bool, .double, .string, .binary:
            if type.isArray { return ["result \(type): \(rows.count) value(s), the first column of each row:"] }
            guard let row = rows.first, !row.values.isEmpty else { return ["result \(type): nil (no row)"] }
            let column = row.columnNames[0]
            let cell = encryptedColumns.contains(column) ? ValueFormatter.encryptedCell(row.values[0], crypt: crypt) : ValueFormatter.cell(row.values[0])
            return ["result \(type): \(TerminalText.visible(cell.text, limit: 200))"]
        case .dictionary, .model, .map:
            if type.isArray { return ["result \(type): \(rows.count) row(s), each mapped:"] }
            return [rows.isEmpty ? "result \(type): nil (no row)" : "result \(type): the first row, mapped:"]
        }
    }

    /// Runs a write after confirmation, on a read-write connection of its own.
    mutating func runConfirmed(catalog: BrowserCatalog) {
        guard let method else { return }
        stage = .form
        do {
            let dao = try DAOObject(config: config, path: storePath, crypt: catalog.keys)
            dao.tableName = table
            let result = try dao.call(method.id, fields.map(\.value))
            resultLines = [result.skipped ? "skipped (onVoid quit): nothing ran"
                           : "ok · \(result.changes) change(s) · last insert rowid \(result.lastInsertRowID)"]
            resultIsError = false
        } catch {
            resultLines = ["\(error)"]
            resultIsError = true
        }
    }
}
