import ArgumentParser
import DatacenterDAO
import DatacenterKit
import Foundation

/// `datacenter dao`: list, render, call and lint the methods of DAO configs.
struct DAOCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dao",
        abstract: "Work with DAO configs (XML of dynamic SQL): list, render, call and lint their methods.",
            discussion: ExitStatusHelp.discussion(),
        subcommands: [Methods.self, Render.self, Call.self, Lint.self])

    struct Methods: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "methods", abstract: "List every method with its arguments, result and kind.",
            discussion: ExitStatusHelp.discussion())
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The config file.", valueName: "config")) var config: String
        @Flag(help: "Print a JSON array of {id, kind, arguments, result, foreach, parallel, location}.") var json = false

        func run() throws {
            let loaded = try DAOCommand.load(config)
            if json {
                try Output.json(loaded.methods.map { $0.summary.jsonObject })
                return
            }
            for method in loaded.methods { Output.line(method.signature) }
        }
    }

    struct Render: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "render",
            abstract: "Render a call into SQL without running it (no database is touched).",
            discussion: ExitStatusHelp.discussion("""
                With --json: {"sql", "bindings", "preview"} for a method of one statement; {"skipped": true} when \
                onVoid="quit" applies; {"statements": [...]} for steps, try/except and method-level foreach.
                """))
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The config file.", valueName: "config")) var config: String
        @Argument(help: ArgumentHelp("The method's id.", valueName: "method")) var method: String
        @Option(help: ArgumentHelp("The arguments as a JSON array, or @FILE to read it from a file, or - from standard input.", valueName: "json-array")) var args = "[]"
        @Option(name: .customLong("global"), help: ArgumentHelp("Global arguments as a JSON object (or @FILE, or -).", valueName: "json-object"))
        var globals: String?
        @Option(help: ArgumentHelp("The table ${T} names (default: the module's tableName).", valueName: "name")) var table: String?
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let loaded = try DAOCommand.load(config)
            let (arguments, globalArguments) = try DAOCommand.readArguments(args, globals)
            let call = try DAOCommand.daoErrors(config) {
                try loaded.render(method, arguments: arguments, globals: globalArguments, tableName: table)
            }
            let single = DAOCommand.singleStatement(call)
            if json {
                if let single {
                    try Output.json(DAOCommand.statementJSON(single))
                } else {
                    try Output.json(["statements": DAOCommand.statementsJSON(call)])
                }
                return
            }
            let items = call.parts
            if items.isEmpty { Output.line("-- nothing to run (the foreach collection is empty)") }
            for item in items {
                if single == nil { Output.line("-- " + item.heading(inForEach: call.isForEach)) }
                if item.statement.skipped {
                    Output.line("-- skipped (onVoid=\"quit\"): nothing runs")
                    continue
                }
                Output.line(item.statement.sql)
                Output.line("-- bindings: " + item.statement.bindings.map(\.description).joined(separator: ", "))
                Output.line("-- preview: " + item.statement.preview)
            }
        }
    }

    struct Call: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "call",
            abstract: "Call a method on a store (the initializer and upgrades run first).",
            discussion: ExitStatusHelp.discussion("""
                Runs on the common store unless --user ID or --db PATH is given. The table is prepared first \
                (initializer, upgrades, bookkeeping), except by a select on a --db file, which writes nothing: it \
                reads the table as it is. A --db file keeps its journal mode. With --json, a select prints its \
                result as JSON; \
                insert/update/delete print {"ok": true, "changes": N, "lastInsertRowId": N}.
                """))
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The config file.", valueName: "config")) var config: String
        @Argument(help: ArgumentHelp("The method's id.", valueName: "method")) var method: String
        @Option(help: ArgumentHelp("The arguments as a JSON array, or @FILE to read it from a file, or - from standard input (for arguments too long for a command line).", valueName: "json-array")) var args = "[]"
        @Option(name: .customLong("global"), help: ArgumentHelp("Global arguments as a JSON object (or @FILE, or -).", valueName: "json-object"))
        var globals: String?
        @Flag(help: "Run on the common store (the default).") var common = false
        @Option(help: ArgumentHelp("Run on this user's store.", valueName: "id")) var user: String?
        @Flag(help: KnownUser.createHelp) var create = false
        @Option(help: ArgumentHelp("Run on this SQLite file (created when missing).", valueName: "path")) var db: String?
        @Option(help: ArgumentHelp("The table ${T} names (default: the module's tableName).", valueName: "name")) var table: String?
        @Flag(help: "Print the result as JSON.") var json = false

        func validate() throws {
            if [common, user != nil, db != nil].filter({ $0 }).count > 1 {
                throw ValidationError("give at most one of --common, --user and --db")
            }
            if create, user == nil { throw ValidationError("--create goes with --user") }
        }

        func run() throws {
            let loaded = try DAOCommand.load(config)
            let (arguments, globalArguments) = try DAOCommand.readArguments(args, globals)
            let dao: DAOObject
            if let db {
                // The file as it is: its journal mode is kept (a missing file is created in
                // SQLite's default mode).
                let path = expandTilde(db)
                let exists = FileManager.default.fileExists(atPath: path)
                let keys = try global.keyRing()
                let databaseKeys = try global.databaseKeyList()
                dao = try DAOCommand.daoErrors(config) {
                    let queue = try DatabaseQueue(path: path, keys: databaseKeys, mode: exists ? .readWriteExisting : .readWrite,
                                                  busyTimeout: global.busyTimeout, wal: false)
                    return DAOObject(config: loaded, queue: queue, pool: DatabasePool(writer: queue), crypt: keys)
                }
            } else {
                if let user { try KnownUser.requireBeforeWriting(user, global, create: create) }
                let center = try global.openDataCenter()
                let store = try user.map { try center.store(forUser: $0) } ?? center.commonStore()
                dao = DAOObject(config: loaded, store: store)
            }
            if let table { dao.tableName = table }
            if !globalArguments.isEmpty { dao.globalArguments = globalArguments }
            // On a file of its own, a select reads: it writes nothing, not even the table's
            // bookkeeping (stores of a root are the engine's, prepared as an app would).
            if db != nil { dao.selectsPrepareTables = false }
            let target = try DAOCommand.daoErrors(config) { try loaded.method(method, arity: arguments.count) }
            if target.kind != .select {
                for field in loaded.plainCryptFields(in: arguments) {
                    let classes = field.classes.map { "\"$model\": \"\($0)\"" }.joined(separator: " or ")
                    Output.error("warning: argument \(field.argument + 1) holds a plain object whose \"\(field.property)\" is written "
                                 + "as it is: <crypt> encrypts it in models only (give the object \(classes))")
                }
            }
            let result = try DAOCommand.daoErrors(config) { try dao.call(method, arguments) }
            let isQuery = target.kind == .select || target.result != nil
            if json {
                if isQuery {
                    try Output.json(DAOCommand.jsonValue(result.value))
                } else {
                    var object: [String: Any] = ["ok": true, "changes": result.changes, "lastInsertRowId": result.lastInsertRowID]
                    if result.skipped { object["skipped"] = true }
                    try Output.json(object)
                }
                return
            }
            if isQuery {
                DAOCommand.printValue(result.value)
            } else if result.skipped {
                Output.line("skipped (onVoid=\"quit\"): nothing ran")
            } else {
                // An UPDATE or DELETE leaves the connection's last insert rowid as it was:
                // it says nothing of this call.
                Output.line("ok: \(result.changes) change(s)" + (target.kind == .insert ? ", last insert rowid \(result.lastInsertRowID)" : ""))
            }
        }
    }

    struct Lint: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lint",
            abstract: "Check configs: load errors, and warnings for likely mistakes.",
            discussion: ExitStatusHelp.discussion("""
                Prints one `file:line:column: error|warning: message` line per finding, then a summary.
                """, one: "when a config does not load (warnings alone exit 0)"))
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The config files.", valueName: "config")) var configs: [String]
        @Option(help: ArgumentHelp("A model type the app registers (repeatable): results naming it are not reported.",
                                   valueName: "name"))
        var model: [String] = []

        func validate() throws {
            if configs.isEmpty { throw ValidationError("give at least one config file") }
        }

        func run() throws {
            var errors = 0, warnings = 0
            for path in configs {
                for finding in DAOLinter.lint(file: expandTilde(path), registeredModels: Set(model)) {
                    Output.line(Output.safe(finding.description, limit: 400))
                    if finding.severity == .error { errors += 1 } else { warnings += 1 }
                }
            }
            Output.line("\(errors) error(s), \(warnings) warning(s) in \(configs.count) config(s)")
            if errors > 0 { throw CLIError("\(errors) error(s) found") }
        }
    }

    // MARK: Helpers

    /// Loads a config; a missing file is a CLI error, a faulty one prints `file:line:column: error: …`.
    static func load(_ path: String) throws -> DAOConfig {
        let expanded = expandTilde(path)
        // A folder (or FIFO, device) is named as such by the config's own read, as CLI.md says.
        guard FileManager.default.fileExists(atPath: expanded) else { throw CLIError("no config file at \(path)") }
        do {
            return try DAOConfig(contentsOfFile: expanded)
        } catch let error as DAOConfigError {
            Output.error(error.description)
            throw ExitCode(1)
        }
    }

    /// Runs `body`, turning `DAOError`s into CLI errors that name the config; render and
    /// expression errors, and a body that rendered more than one statement, print as
    /// `file:line:column: error: …`.
    static func daoErrors<T>(_ config: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DAOError {
            switch error {
            case .render, .expression, .moreThanOneStatement(_, at: .some):
                Output.error(error.description)
                throw ExitCode(1)
            default:
                throw CLIError("\(config): \(error)")
            }
        } catch let error as DatabaseError {
            throw CLIError("\(config): \(error)")
        }
    }

    /// `--args` and `--global` as values, each read as given, from `@FILE` or from `-`
    /// (standard input, which only one of them may read).
    static func readArguments(_ args: String, _ globals: String?) throws -> ([DAOValue], [String: DAOValue]) {
        if args == "-", globals == "-" { throw CLIError("--args and --global cannot both read standard input") }
        return (try parseArguments(try readJSONOption(args, option: "--args")),
                try parseGlobals(try globals.map { try readJSONOption($0, option: "--global") }))
    }

    /// The text of a JSON option: as given, or with `@FILE` that file's content, or with `-`
    /// standard input's (Linux refuses one command-line argument over 128 KiB).
    static func readJSONOption(_ text: String, option: String) throws -> String {
        if text == "-" {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            guard let string = String(data: data, encoding: .utf8) else { throw CLIError("\(option) -: standard input is not UTF-8 text") }
            return string
        }
        guard text.hasPrefix("@") else { return text }
        let path = expandTilde(String(text.dropFirst()))
        let data: Data
        do { data = try RegularFile.contents(atPath: path, limit: 1 << 30) } catch let error as FileAccessError {
            throw CLIError("\(option): cannot read \(path): \(error.reason)")
        }
        guard let string = String(data: data, encoding: .utf8) else { throw CLIError("\(option): \(path) is not UTF-8 text") }
        return string
    }

    /// `--args`: a JSON array of values, markers included (`DAOArgumentParser`); a parse
    /// error is a CLI error (exit 1) that names the option.
    static func parseArguments(_ text: String) throws -> [DAOValue] {
        do {
            return try DAOArgumentParser.arguments(text)
        } catch .notAnArray {
            throw CLIError("--args must be a JSON array, such as '[1, \"ann\"]'")
        } catch .notJSON(let reason) {
            throw CLIError("--args is not valid JSON: \(reason)")
        } catch .empty {
            throw CLIError("--args is empty: give a JSON array")
        } catch {
            throw CLIError("--args: \(error)")
        }
    }

    /// `--global`: a JSON object of names to values (markers as in `--args`).
    static func parseGlobals(_ text: String?) throws -> [String: DAOValue] {
        guard let text else { return [:] }
        do {
            return try DAOArgumentParser.globals(text)
        } catch .notAnObject {
            throw CLIError("--global must be a JSON object, such as '{\"userId\": 7}'")
        } catch .notJSON(let reason) {
            throw CLIError("--global is not valid JSON: \(reason)")
        } catch .empty {
            throw CLIError("--global is empty: give a JSON object")
        } catch {
            throw CLIError("--global: \(error)")
        }
    }

    /// The call's statement when it is exactly one (no method-level foreach, one statement body).
    static func singleStatement(_ call: RenderedCall) -> RenderedSQL? {
        guard !call.isForEach, call.runs.count == 1, case .statement(let s) = call.runs[0] else { return nil }
        return s
    }

    /// `{"sql", "bindings", "preview"}`, or `{"skipped": true}`.
    static func statementJSON(_ s: RenderedSQL) -> [String: Any] {
        if s.skipped { return ["skipped": true] }
        return ["sql": s.sql, "bindings": s.bindings.map(Output.jsonValue), "preview": s.preview]
    }

    /// The statements of a multi-statement call, each `statementJSON` plus `part` and `run`.
    static func statementsJSON(_ call: RenderedCall) -> [[String: Any]] {
        call.parts.map { item in
            var object = statementJSON(item.statement)
            object["part"] = item.label
            object["run"] = item.run
            return object
        }
    }

    /// A result value as JSON: data as `{"$blob": base64}`, dates as `{"$date": ISO 8601}`,
    /// models as their fields.
    static func jsonValue(_ value: DAOValue) -> Any {
        switch value {
        case .nil: return NSNull()
        case .bool(let b): return b
        case .integer(let i): return i
        case .double(let d): return d.isFinite ? d : NSNull()
        case .string(let s): return s
        case .data(let d): return ["$blob": d.base64EncodedString()]
        case .date(let d): return ["$date": ISO8601DateFormatter().string(from: d)]
        case .array(let a): return a.map(jsonValue)
        case .dictionary(let d), .model(_, let d): return d.mapValues(jsonValue)
        }
    }

    /// Prints a select's result: scalars plainly, rows as a table.
    static func printValue(_ value: DAOValue) {
        switch value {
        case .array(let rows) where rows.allSatisfy({ $0.fields != nil }) && !rows.isEmpty:
            printRows(rows.compactMap(\.fields))
        case .array(let items):
            for item in items { printValue(item) }
        case .dictionary(let fields), .model(_, let fields):
            printRows([fields])
        default:
            Output.line(display(value))
        }
    }

    private static func printRows(_ rows: [[String: DAOValue]]) {
        let columns = Array(Set(rows.flatMap(\.keys))).sorted()
        Output.table(columns, rows.map { row in columns.map { display(row[$0] ?? .nil) } })
    }

    private static func display(_ value: DAOValue) -> String {
        switch value {
        case .nil: return "NULL"
        case .string(let s): return Output.safe(s)
        case .data(let d): return "<\(d.count) bytes>"
        default: return Output.safe(value.jsonText)
        }
    }
}
