import DatacenterDAO
import DatacenterKit
import Foundation

/// The DAO methods of one table: pick a method, fill a form with one field per argument,
/// watch the SQL it renders (exactly what will run: `RenderedSQL`), its bindings, the inlined
/// form and `EXPLAIN QUERY PLAN`, then run it. Selects run on the browser's read-only
/// connection; writes ask for confirmation first, and the confirmation covers what preparing
/// the table runs before the call (`TablePreparation`), shown in the preview.
///
/// Fields are strict JSON with the markers of `dao call --args` (`DAOArgumentParser`): text
/// that does not parse is refused with the reason, never taken as a string. A write whose
/// statements would put a value that is not ciphertext into an encrypted column is refused
/// (see `cryptRefusal` and `CryptColumnGuard`).
struct DAOPanel {
    enum Stage: Equatable { case methods, form, confirm }

    /// One argument's input.
    struct Field {
        let name: String
        let isRequired: Bool
        var text = ""
        var isNil: Bool

        /// The value the text stands for (`DAOArgumentParser.value`), or why it stands for
        /// none. A required field left empty is `.empty` too.
        var parsed: Result<DAOValue, DAOArgumentError> {
            if isNil { return .success(.nil) }
            do { return .success(try DAOArgumentParser.value(text)) } catch { return .failure(error) }
        }

        /// `$name` for a required argument, else the name.
        var label: String { (isRequired ? "$" : "") + name }

        /// How the field was understood: `$flag: bool true`, or `$flag: ✗ not JSON: …`.
        var summary: String {
            switch parsed {
            case .success(let value): return "\(label): \(value.typeSummary())"
            case .failure(let error): return "\(label): ✗ \(error)"
            }
        }
    }

    /// What one rendered statement looks like before it runs.
    struct StatementPreview {
        /// The part of the method (`try step, element 1`), nil for a call of one statement.
        let heading: String?
        let sql: String
        /// The bindings as SQL literals; an encrypted one as `<encrypted: N bytes>`.
        let bindings: String
        let inlined: String
        let plan: [String]
    }

    let table: String
    let storePath: String
    /// The store in words (`user bob · user.sqlite`), for the title and the confirmation.
    var storeName: String
    let config: DAOConfig
    let encryptedColumns: Set<String>
    var stage = Stage.methods
    var methodCursor = 0
    var method: DAOMethod?
    var fields: [Field] = []
    var fieldCursor = 0
    var previews: [StatementPreview] = []
    /// What preparing the table runs before a write (shown, and confirmed with it); nil for
    /// a select or before the first preview.
    var preparation: TablePreparation?
    /// Why a write would be refused for its crypt columns (shown in the preview; Enter says it).
    var cryptRefusal: String?
    var skipped = false
    var renderError: String?
    var resultLines: [String] = []
    var resultIsError = false
    /// The first body line shown (the panel scrolls; see `DAOPanel+Layout`).
    var scroll = 0

    init(table: String, storePath: String, config: DAOConfig, encryptedColumns: Set<String>) {
        self.table = table
        self.storePath = storePath
        self.storeName = (storePath as NSString).lastPathComponent
        self.config = config
        self.encryptedColumns = encryptedColumns
    }

    var title: String {
        "DAO · \(config.module.name)" + (config.module.version.map { " v\($0)" } ?? "") + " · table \(table)"
    }

    /// The first field whose text is not a value, with the reason.
    var argumentError: String? {
        for field in fields { if case .failure(let error) = field.parsed { return "\(field.label): \(error)" } }
        return nil
    }

    /// The form's values, when every field parses.
    var values: [DAOValue]? {
        var values: [DAOValue] = []
        for field in fields {
            guard case .success(let value) = field.parsed else { return nil }
            values.append(value)
        }
        return values
    }

    /// Opens the form of the method under the cursor.
    mutating func chooseMethod(catalog: BrowserCatalog) {
        guard config.methods.indices.contains(methodCursor) else { return }
        let chosen = config.methods[methodCursor]
        method = chosen
        fields = chosen.arguments.map { Field(name: $0.name, isRequired: $0.isRequired, isNil: !$0.isRequired) }
        fieldCursor = 0
        scroll = 0
        stage = .form
        resultLines = []
        refreshPreview(catalog: catalog)
    }

    /// Renders the method with the form's values, asks SQLite for each statement's plan, and
    /// for a write works out what preparing the table runs first and whether its crypt
    /// columns get ciphertext. Nothing renders while a field does not parse.
    mutating func refreshPreview(catalog: BrowserCatalog) {
        guard let method else { return }
        previews = []
        preparation = nil
        cryptRefusal = nil
        skipped = false
        renderError = nil
        guard let values else { return }
        do {
            let call = try config.render(method.id, arguments: values, globals: [:], tableName: table)
            skipped = !call.statements.isEmpty && call.statements.allSatisfy(\.skipped)
            let store = try catalog.store(at: storePath)
            previews = call.parts.filter { !$0.statement.skipped }.map { part in
                let statement = part.statement
                let plan: [String] = (try? store.queue.read { db in
                    try db.makeStatement("EXPLAIN QUERY PLAN " + statement.sql).fetchAll(StatementArguments(statement.bindings))
                        .compactMap { $0["detail"]?.stringValue }
                }) ?? ["(no plan: the table or a column does not exist yet)"]
                return StatementPreview(heading: call.isSingleStatement ? nil : part.heading(inForEach: call.isForEach),
                                        sql: statement.sql, bindings: DAOPanel.bindings(of: statement, crypt: catalog.keys),
                                        inlined: statement.preview, plan: plan)
            }
            if method.kind != .select {
                preparation = try store.queue.read { db in try TablePreparation.plan(config: config, table: table, in: db) }
                cryptRefusal = DAOPanel.cryptRefusal(call, fields: fields, values: values, config: config,
                                                     encryptedColumns: encryptedColumns, hasKey: !catalog.keys.isEmpty)
            }
        } catch {
            renderError = "\(error)"
        }
    }

    /// Runs a select on the read-only connection and lays out its rows; a write goes to the
    /// confirmation stage, unless the browser is read-only or the write would be refused.
    mutating func run(catalog: BrowserCatalog) {
        guard let method else { return }
        func refuse(_ reason: String) {
            resultLines = [reason]
            resultIsError = true
        }
        if method.kind != .select && !catalog.allowsWrites {
            return refuse("--read-only: \(method.kind.rawValue) methods are not run")
        }
        if let required = fields.first(where: { $0.isRequired && $0.isNil }) { return refuse("$\(required.name) must not be nil") }
        if let argumentError { return refuse("cannot run: " + argumentError) }
        if let renderError { return refuse("cannot run: " + renderError) }
        guard let values else { return }
        guard method.kind == .select else {
            if let cryptRefusal { return refuse("refused: " + cryptRefusal) }
            stage = .confirm
            return
        }
        do {
            let call = try config.render(method.id, arguments: values, globals: [:], tableName: table)
            let store = try catalog.store(at: storePath)
            var lines: [String] = []
            var rows: [Row] = []
            for statement in call.statements where !statement.skipped {
                let fetched = try store.queue.read { db in
                    try db.makeStatement(statement.sql).fetchAll(StatementArguments(statement.bindings))
                }
                rows += fetched
                lines += RowsLayout.lines(fetched, encryptedColumns: encryptedColumns, crypt: catalog.keys)
            }
            resultLines = DAOPanel.resultSummary(method.result, rows: rows, crypt: catalog.keys, encryptedColumns: encryptedColumns)
                + (lines.isEmpty ? ["(no rows)"] : lines)
            resultIsError = false
        } catch {
            refuse("\(error)")
        }
    }

    /// The first line of a select's result, per the method's `result` type: the value for a
    /// scalar result (the first column of the first row, or nil), the shape for the others.
    /// `rows` are every row the call's statements returned (all foreach runs).
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

    /// Runs a confirmed write on a read-write connection of its own, opened without changing
    /// the file's journal mode (no WAL switch), in one transaction: the table's preparation
    /// (refused when it is no longer what the preview showed), then the call, with
    /// `CryptColumnGuard` refusing any value for an encrypted column that is not ciphertext.
    /// On any failure nothing is kept.
    mutating func runConfirmed(catalog: BrowserCatalog) {
        guard let method, let values else { return }
        stage = .form
        do {
            guard let shown = preparation else { throw DAOPanelRefusal("no preview of the table's preparation: nothing ran") }
            let queue = try DatabaseQueue(path: storePath, mode: .readWriteExisting, busyTimeout: catalog.busyTimeout, wal: false)
            let dao = DAOObject(config: config, queue: queue, crypt: catalog.keys)
            dao.tableName = table
            let result = try queue.inTransaction { db -> DAOCallResult in
                let now = try TablePreparation.plan(config: config, table: table, in: db)
                guard now == shown else {
                    throw DAOPanelRefusal("the table changed since the preview (preparing it now runs \(now.steps.count) step(s), "
                                          + "the preview showed \(shown.steps.count)): nothing ran; look at the preview again")
                }
                try dao.prepareTable()
                try CryptColumnGuard.install(table: table, columns: encryptedColumns, keys: catalog.keys, in: db)
                return try dao.call(method.id, values)
            }
            var line = result.skipped ? "skipped (onVoid quit): nothing ran" : "ok · \(result.changes) change(s)"
            if method.kind == .insert && result.changes > 0 && !result.skipped { line += " · last insert rowid \(result.lastInsertRowID)" }
            if !shown.isEmpty { line += " · table prepared first (\(shown.parts.count) statement(s))" }
            resultLines = [line]
            resultIsError = false
        } catch {
            resultLines = ["\(error)"]
            resultIsError = true
        }
        refreshPreview(catalog: catalog)
    }
}

/// Why the panel refused to run a write.
struct DAOPanelRefusal: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
