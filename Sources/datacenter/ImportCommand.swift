import ArgumentParser
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

    func validate() throws {
        if csv && jsonl { throw ValidationError("--csv and --jsonl: choose one") }
        if csv || jsonl {
            if table == nil { throw ValidationError("--\(csv ? "csv" : "jsonl") needs --table NAME: the table the rows go into") }
            if continueOnError { throw ValidationError("--continue-on-error is for SQL dumps: a bad record stops a --csv or --jsonl import") }
        } else if table != nil || types != nil {
            throw ValidationError("--table and --types go with --csv or --jsonl (a SQL dump names its own tables)")
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
                rows = try db.inTransaction { try TableImport.run(file: dumpPath, format: csv ? .csv : .jsonl, into: db, table: table, types: types) }
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
}
