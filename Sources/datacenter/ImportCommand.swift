import ArgumentParser
import DatacenterBrowser
import DatacenterKit
import Foundation

/// `datacenter import FILE DB`: load a SQL dump, or rows of CSV or JSON Lines into a table.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Run a SQL dump into a database, or load CSV or JSON Lines rows into a table (created if missing), in one transaction.",
        discussion: ExitStatusHelp.discussion("Without --continue-on-error the first failing statement undoes the whole import and exits 1, naming its line. With it, each failing statement is reported on stderr as FILE:LINE: message and skipped; the rest is committed and the exit status is 0. With --csv or --jsonl the first bad record undoes the whole import and exits 1, naming its FILE:LINE:COLUMN."))

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The file: a SQL dump, or with --csv / --jsonl the rows.") var dump: String
    @Argument(help: "The database file.") var database: String
    @Flag(help: "Skip failing statements of a dump instead of stopping.") var continueOnError = false
    @Flag(help: "Read CSV (a header line, then one record a row) into --table.") var csv = false
    @Flag(help: "Read JSON Lines (one object a line) into --table.") var jsonl = false
    @Option(help: "The table the rows go into (created from the header when missing).") var table: String?
    @Option(help: ArgumentHelp("The types of a new table's columns (default TEXT).", valueName: "NAME:TYPE,...")) var types: String?
    @Option(help: ArgumentHelp("DAO configs (an XML file or a folder of them): the crypt columns of the one for --table are encrypted on the way in, with the first --key.", valueName: "dir-or-xml")) var config: String?

    func validate() throws {
        if csv && jsonl { throw ValidationError("--csv and --jsonl: choose one") }
        if csv || jsonl {
            if table == nil { throw ValidationError("--\(csv ? "csv" : "jsonl") needs --table NAME: the table the rows go into") }
            if continueOnError { throw ValidationError("--continue-on-error is for SQL dumps: a bad record stops a --csv or --jsonl import") }
        } else if table != nil || types != nil || config != nil {
            throw ValidationError("--table, --types and --config go with --csv or --jsonl (a SQL dump names its own tables)")
        }
        _ = try parsedTypes()
    }

    /// `--types`, by column name.
    private func parsedTypes() throws -> [String: String] {
        guard let types else { return [:] }
        var out: [String: String] = [:]
        for item in types.split(separator: ",") {
            let parts = item.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty,
                  !parts[1].isEmpty, parts[1].allSatisfy({ $0.isLetter || $0.isNumber || $0 == " " || $0 == "(" || $0 == ")" || $0 == "," }) else {
                throw ValidationError("--types takes NAME:TYPE pairs, comma-separated (id:INTEGER,amount:REAL): \(item) is not one")
            }
            out[parts[0]] = parts[1]
        }
        return out
    }

    func run() throws {
        let dumpPath = expandTilde(dump)
        guard FileManager.default.fileExists(atPath: dumpPath) else { throw CLIError("no \(csv || jsonl ? "file" : "dump file") at \(dumpPath)") }
        let databasePath = expandTilde(database)
        let created = !FileManager.default.fileExists(atPath: databasePath)
        let files = ["", "-journal", "-wal", "-shm"].map { databasePath + $0 }
        // A database this import creates goes with it on Ctrl-C or SIGTERM, as on a failure.
        let slots = created ? files.map(PartialFiles.register) : []
        var report: DumpImportReport?
        var rows = 0
        do {
            defer { slots.forEach(PartialFiles.unregister) }
            let db = try global.openDatabase(path: databasePath, mode: .readWrite)
            defer { withExtendedLifetime(db) {} }
            if let table, csv || jsonl {
                let types = try parsedTypes()
                let encrypt = try cryptTransform(table: table)
                rows = try db.inTransaction {
                    try TableImport.run(file: dumpPath, format: csv ? .csv : .jsonl, into: db, table: table, types: types, transform: encrypt)
                }
            } else {
                report = try db.importDump(atPath: dumpPath, continueOnError: continueOnError)
            }
        } catch {
            // A database this import created is removed again: a failed import leaves nothing.
            if created {
                for file in files { try? FileManager.default.removeItem(atPath: file) }
            }
            if let failure = error as? DumpStatementFailure { throw CLIError("\(failure) (nothing was imported)") }
            if let failure = error as? TableImportError { throw CLIError("\(failure) (nothing was imported)") }
            throw error
        }
        guard let report else {
            Output.line("imported \(rows) row\(rows == 1 ? "" : "s") into \(table ?? "")")
            return
        }
        for failure in report.failures { Output.error("warning: \(failure) (skipped)") }
        Output.line("imported \(report.executedCount) statement(s)" +
                    (report.failures.isEmpty ? "" : ", skipped \(report.failures.count) failing statement(s)"))
    }

    /// What encrypts the crypt columns of the DAO config `--config` gives for `table` (the
    /// one whose `tableName` it is, else the only one without a `tableName`): each value but
    /// NULL, as text, with the first key; nil without `--config`.
    private func cryptTransform(table: String) throws -> ((String, DatabaseValue) throws -> DatabaseValue)? {
        guard let config else { return nil }
        let loaded = BrowserCatalog.loadConfigFiles(at: expandTilde(config))
        if let first = loaded.errors.first { throw CLIError(first) }
        let named = loaded.files.filter { $0.config.module.tableName.lowercased() == table.lowercased() }
        let anyTable = loaded.files.filter { $0.config.module.tableName.isEmpty }
        guard let chosen = named.first ?? (anyTable.count == 1 ? anyTable.first : nil) else {
            throw CLIError("no DAO config in \(config) is for \(table): its tableName must name it (or one config, without a tableName)")
        }
        let crypt = Set(chosen.config.encryptedColumns.map { $0.lowercased() })
        guard !crypt.isEmpty else { return nil }
        let keys = try global.keyRing()
        guard !keys.isEmpty else {
            throw CLIError("\(table) has crypt columns (\(chosen.config.encryptedColumns.joined(separator: ", "))): importing needs a --key")
        }
        return { column, value in
            guard crypt.contains(column.lowercased()), !value.isNull else { return value }
            return .blob(try keys.encrypt(Data((value.stringValue ?? value.description).utf8)))
        }
    }
}
