import ArgumentParser
import DatacenterKit
import Foundation

/// `datacenter import DUMP DB`: load a SQL dump.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Run a SQL dump file into a database (created if missing), in one transaction.",
        discussion: ExitStatusHelp.discussion("Without --continue-on-error the first failing statement undoes the whole import and exits 1, naming its line. With it, each failing statement is reported on stderr as FILE:LINE: message and skipped; the rest is committed and the exit status is 0."))

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The SQL dump file.") var dump: String
    @Argument(help: "The database file.") var database: String
    @Flag(help: "Skip failing statements instead of stopping.") var continueOnError = false

    func run() throws {
        let dumpPath = expandTilde(dump)
        guard FileManager.default.fileExists(atPath: dumpPath) else { throw CLIError("no dump file at \(dumpPath)") }
        let databasePath = expandTilde(database)
        let created = !FileManager.default.fileExists(atPath: databasePath)
        let files = ["", "-journal", "-wal", "-shm"].map { databasePath + $0 }
        // A database this import creates goes with it on Ctrl-C or SIGTERM, as on a failure.
        let slots = created ? files.map(PartialFiles.register) : []
        let report: DumpImportReport
        do {
            defer { slots.forEach(PartialFiles.unregister) }
            let db = try global.openDatabase(path: databasePath, mode: .readWrite)
            defer { withExtendedLifetime(db) {} }
            report = try db.importDump(atPath: dumpPath, continueOnError: continueOnError)
        } catch {
            // A database this import created is removed again: a failed import leaves nothing.
            if created {
                for file in files { try? FileManager.default.removeItem(atPath: file) }
            }
            if let failure = error as? DumpStatementFailure { throw CLIError("\(failure) (nothing was imported)") }
            throw error
        }
        for failure in report.failures { Output.error("warning: \(failure) (skipped)") }
        Output.line("imported \(report.executedCount) statement(s)" +
                    (report.failures.isEmpty ? "" : ", skipped \(report.failures.count) failing statement(s)"))
    }
}
