import ArgumentParser
import DatacenterBrowser
import DatacenterBench
import DatacenterKit
import Foundation

extension BenchCommand {
    /// `datacenter bench browse`: the browser's engine and render, off-terminal.
    struct Browse: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "browse",
            abstract: "Browser scenarios: \(BrowserBenchmark.scenarios.joined(separator: ", ")).",
            discussion: ExitStatusHelp.discussion("""
                Opens the table, renders the first screen (120×40), jumps to the last page, and moves down row by row, \
                all off-terminal, against raw SQLite reading the same pages. Without --db, builds a messages table of \
                --rows rows first (the shape of the comparison's big.db).
                """))

        @OptionGroup var global: GlobalOptions
        @OptionGroup var options: BenchOptions
        @Option(help: ArgumentHelp("An existing SQLite file to browse.", valueName: "path")) var db: String?
        @Option(help: ArgumentHelp("The table to open (default: messages).", valueName: "name")) var table = "messages"
        @Option(help: "Rows of the generated table when no --db is given.") var rows = 2_000_000

        func run() throws {
            let (scratch, json) = (options.scratch, options.json)
            let selection = try options.selection(of: BrowserBenchmark.scenarios)
            let rows = options.quick ? min(self.rows, 50_000) : self.rows
            var path = db.map(expandTilde) ?? ""
            if db == nil {
                try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
                path = scratch + "/big.db"
                if !json { Output.line("building \(rows) rows in \(path) …") }
                try BrowserBenchmark.makeMessages(at: path, rows: rows)
            }
            defer { try? FileTree.remove(atPath: db == nil ? scratch : scratch + "/browse") }
            BenchCommand.printHeader(json: json)
            try BrowserBenchmark.run(path: path, table: table, scratch: scratch + "/browse", rows: db == nil ? rows : nil, selection: selection) {
                BenchCommand.print($0, json: json)
            }
        }
    }
}
