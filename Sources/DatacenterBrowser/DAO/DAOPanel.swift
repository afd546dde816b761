import DatacenterDAO
import DatacenterKit
import Foundation
import DatacenterText

/// The DAO methods of one table: pick a method, fill a form with one field per argument,
/// watch the SQL it renders (exactly what will run: `RenderedSQL`), its bindings, the inlined
/// form and `EXPLAIN QUERY PLAN`, then run it. A run is a `DAORun` for the command runner:
/// a select reads on a read-only connection of its own; a write asks for confirmation first,
/// and the confirmation covers what preparing the table runs before the call
/// (`TablePreparation`), shown in the preview. Its keys and drawing are in `DAOPanel+Pane`.
///
/// Fields are strict JSON with the markers of `dao call --args` (`DAOArgumentParser`): text
/// that does not parse is refused with the reason, never taken as a string. A write whose
/// statements would put a value that is not ciphertext into an encrypted column is refused
/// (see `cryptRefusal` and `CryptColumnGuard`).
struct DAOPanel {
    /// Where the panel is: choosing a method, filling its arguments, or confirming a write.
    enum Stage: Equatable { case methods, form, confirm }

    /// One argument's input.
    struct Field {
        let name: String
        let isRequired: Bool
        /// The JSON being typed, with its cursor (the panel's one line editor).
        var editor = LineEditor()
        var isNil: Bool
        /// True when the method puts the argument into its SQL as one value (`#{name}`): a
        /// list or an object typed there is bound as its JSON text, which the form says.
        var isUsedWhole = false

        /// The JSON typed so far.
        var text: String {
            get { editor.text }
            set { editor.text = newValue }
        }

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
            case .success(let value):
                switch value {
                case .array where isUsedWhole, .dictionary where isUsedWhole:
                    return "\(label): \(value.typeSummary()) ⚠ bound as its JSON text: the method uses $\(name) as one value"
                default: return "\(label): \(value.typeSummary())"
                }
            case .failure(let error): return "\(label): ✗ \(error)"
            }
        }
    }

    /// The DAO table the methods run on.
    let table: String
    /// The store file of the table.
    let storePath: String
    /// The store in words (`user bob · user.sqlite`), for the title and the confirmation.
    var storeName: String
    /// The config of the table's module.
    let config: DAOConfig
    /// The table's encrypted columns, as its metadata records them.
    let encryptedColumns: Set<String>
    /// Where the panel is.
    var stage = Stage.methods
    /// The method under the cursor in the list.
    var methodCursor = 0
    /// The method chosen, once the form is open.
    var method: DAOMethod?
    /// One field per argument of `method`.
    var fields: [Field] = []
    /// The field being typed in.
    var fieldCursor = 0
    /// The statements the form's values render, in order.
    var previews: [StatementPreview] = []
    /// What preparing the table runs before a write (shown, and confirmed with it); nil for
    /// a select or before the first preview.
    var preparation: TablePreparation?
    /// Why a write would be refused for its crypt columns (shown in the preview; Enter says it).
    var cryptRefusal: String?
    /// True when every statement of the call is skipped (`onVoid="quit"`): it runs nothing.
    var skipped = false
    /// Why the form's values do not render, if they do not.
    var renderError: String?
    /// The last run's result, or why it was refused.
    var resultLines: [String] = []
    /// The refusal of the form's input shown in `resultLines` (a nil required field, a value
    /// that does not parse, a call that does not render), cleared once the input is valid.
    var inputRefusal: [String]?
    /// True when `resultLines` is an error.
    var resultIsError = false
    /// The first body line shown (the panel scrolls; see `DAOPanel+Layout`).
    var scroll = 0
    /// True when the keys scroll the results (Tab or ↓ past the last field) instead of
    /// editing a field.
    var resultsFocused = false
    /// The columns of a select's result rows scrolled off to the left (← → while the results
    /// have the keys): rows are cut at the edge, not wrapped, so their columns stay aligned.
    var resultShift = 0
    /// The id of the run going on in the background (`DAORun`), if any.
    var running: Int?
    /// The id of the preview being worked out (`DAOQueryPlanRequest`), if any: a write waits for it.
    var previewing: Int?
    /// True when Enter asked to run a write while its preview was being worked out: the
    /// confirmation comes when the preview does.
    var runWhenPreviewed = false

    /// A panel on the method list of `config`, for `table` in the store at `storePath`.
    init(table: String, storePath: String, config: DAOConfig, encryptedColumns: Set<String>) {
        self.table = table
        self.storePath = storePath
        self.storeName = (storePath as NSString).lastPathComponent
        self.config = config
        self.encryptedColumns = encryptedColumns
    }

    /// The title line: module, version and table.
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

    /// Opens the form of the method under the cursor; returns the work its preview needs.
    mutating func chooseMethod(catalog: BrowserCatalog, id: Int) -> DAOQueryPlanRequest? {
        guard config.methods.indices.contains(methodCursor) else { return nil }
        let chosen = config.methods[methodCursor]
        method = chosen
        let usedWhole = chosen.argumentsUsedWhole
        fields = chosen.arguments.map {
            Field(name: $0.name, isRequired: $0.isRequired, isNil: !$0.isRequired, isUsedWhole: usedWhole.contains($0.name))
        }
        fieldCursor = 0
        scroll = 0
        stage = .form
        resultLines = []
        resultsFocused = false
        resultShift = 0
        return refreshPreview(catalog: catalog, id: id)
    }

    /// Checks the form and returns the run of a select (for the command runner); a write
    /// goes to the confirmation stage instead, unless the browser is read-only or the write
    /// would be refused (the reason then shows in the results).
    mutating func run(catalog: BrowserCatalog, id: Int) -> DAORun? {
        guard let method else { return nil }
        func refuse(_ reason: String, forInput: Bool = false) -> DAORun? {
            resultLines = [reason]
            resultIsError = true
            inputRefusal = forInput ? resultLines : nil
            return nil
        }
        if method.kind != .select && !catalog.allowsWrites {
            return refuse("--read-only: \(method.kind.rawValue) methods are not run")
        }
        if let required = fields.first(where: { $0.isRequired && $0.isNil }) {
            return refuse("$\(required.name) must not be nil", forInput: true)
        }
        if let argumentError { return refuse("cannot run: " + argumentError, forInput: true) }
        if let renderError { return refuse("cannot run: " + renderError, forInput: true) }
        guard let values else { return nil }
        guard method.kind == .select else {
            if let cryptRefusal { return refuse("refused: " + cryptRefusal) }
            if previewing != nil {
                runWhenPreviewed = true
                resultLines = ["working out the preview first…"]
                resultIsError = false
                return nil
            }
            stage = .confirm
            return nil
        }
        return started(DAORun(id: id, kind: .select, config: config, method: method, values: values, table: table,
                              storePath: storePath, encryptedColumns: encryptedColumns, keys: catalog.keys,
                              databaseKeys: catalog.databaseKeys, busyTimeout: catalog.busyTimeout))
    }

    /// The confirmed write, to run (`DAORun` says how it is made safe), keeping its undo in
    /// `stateFolder`, or nil with the reason in the results when there is no preview to hold it to.
    mutating func confirmedRun(catalog: BrowserCatalog, id: Int, stateFolder: URL?) -> DAORun? {
        guard let method, let values else { return nil }
        stage = .form
        guard let shown = preparation else {
            resultLines = ["no preview of the table's preparation: nothing ran"]
            resultIsError = true
            return nil
        }
        return started(DAORun(id: id, kind: .write(shown: shown), config: config, method: method, values: values, table: table,
                              storePath: storePath, encryptedColumns: encryptedColumns, keys: catalog.keys,
                              databaseKeys: catalog.databaseKeys, busyTimeout: catalog.busyTimeout, stateFolder: stateFolder))
    }

    /// Marks `run` as running: the results say so until `finished` comes.
    private mutating func started(_ run: DAORun) -> DAORun {
        running = run.id
        resultLines = ["running \(run.method.id)…"]
        resultIsError = false
        return run
    }

    /// The result of the run `id`, if it is the one running: shown as the results. Returns
    /// false for another run's result.
    mutating func finished(id: Int, lines: [String], isError: Bool) -> Bool {
        guard running == id else { return false }
        running = nil
        resultLines = lines
        resultIsError = isError
        resultShift = 0
        return true
    }

    /// The first line of a select's result (one line: the panel wraps it and cuts the row
    /// lines after it), per the method's `result` type: the value for a
    /// scalar result (the first column of the first row, or nil), the shape for the others.
    /// `rows` are every row the call's statements returned (all foreach runs); `elements` is
    /// the number of elements of a method-level foreach (nil for none), whose result is one
    /// result per element, so the line counts the elements and every row they returned.
    static func resultSummary(_ type: DAOResultType?, rows: [Row], elements: Int? = nil, crypt: any DataCrypt,
                              encryptedColumns: Set<String>) -> [String] {
        guard let type else { return ["result: none declared (success only); the rows:"] }
        if let elements {
            let each: String
            switch type.element {
            case .int, .longLong, .bool, .double, .string, .binary:
                each = type.isArray ? "the first column of each row" : "the first column of its first row"
            case .dictionary, .model, .map:
                each = type.isArray ? "each row mapped" : "its first row mapped"
            }
            return ["result \(type) per element, \(elements) element(s) (\(each)): \(rows.count) row(s) in all:"]
        }
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
}

/// Why the panel refused to run a write.
struct DAOPanelRefusal: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
