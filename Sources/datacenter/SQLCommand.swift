import ArgumentParser
import DatacenterKit
import Foundation

/// `datacenter sql DB SQL`: run SQL on any database file.
struct SQLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sql",
        abstract: "Run SQL on a database file and print the rows.",
        discussion: ExitStatusHelp.discussion("Several statements separated by ';' run in order, in one transaction: when one fails, none of them is kept (a script with its own BEGIN, COMMIT, ROLLBACK or SAVEPOINT runs as written). The rows of every statement that returns rows are printed. The file must exist; its journal mode is never changed."))

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The database file.") var database: String
    @Argument(help: "The SQL to run.") var sql: String
    @Flag(help: "Print an array of row objects (blobs as {\"$blob\": base64}).") var json = false
    @Flag(name: .long, help: "Open the file read-only.") var readOnly = false

    func run() throws {
        let path = expandTilde(database)
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError("no database at \(path)") }
        do { try RegularFile.refuseIfNotRegular(path) } catch let error as FileAccessError { throw CLIError(error.description) }
        // On read-only media only a read-only opening can work: say how to ask for it.
        let readOnlyMedia = !readOnly && ReadOnlyMedia.isReadOnlyFileSystem(path)
        let db: Database
        do { db = try global.openDatabase(path: path, mode: readOnly ? .readOnly : .readWriteExisting) } catch let error as DatabaseError where readOnlyMedia {
            throw CLIError("\(error); give --read-only to read it")
        }
        // The write lock up front: a script that reads first never fails half-way on an upgrade.
        db.sqlSequences.lock = .immediate
        // Each statement that returns rows: its own header and rows (statements differ in
        // their columns).
        var results: [(header: [String], rows: [Row])] = []
        try db.runScript(sql) { statement in
            var first = true
            try statement.forEachRow { s in
                if first {
                    results.append((s.columnNames, []))
                    first = false
                }
                results[results.count - 1].rows.append(s.row())
                return true
            }
        }
        if json {
            try Output.json(results.flatMap(\.rows).map { row in
                Dictionary(zip(row.columnNames, row.values.map(Output.jsonValue)), uniquingKeysWith: { _, last in last })
            })
            return
        }
        for (index, result) in results.enumerated() {
            if index > 0 { print("") }
            Output.table(result.header, result.rows.map { $0.values.map(SQLCommand.cell) })
        }
    }

    static func cell(_ value: DatabaseValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let d): return String(d)
        case .text(let s): return Output.safe(s)
        case .blob(let d): return "<blob \(d.count) B>"
        }
    }
}
