import ArgumentParser
import DatacenterKit
import Foundation

/// `datacenter purge`: purgeable folders.
struct PurgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Register purgeable folders and purge them.",
            discussion: ExitStatusHelp.discussion(),
        subcommands: [Register.self, Run.self, List.self, Reset.self])

    /// Purge types as the command line writes them: days, or `manual`.
    struct PurgeTypeArgument: ExpressibleByArgument {
        let type: PurgeType
        init?(argument: String) {
            if argument == "manual" { type = .manual; return }
            guard let days = Int(argument), let type = PurgeType(rawValue: days) else { return nil }
            self.type = type
        }
        static var allValueStrings: [String] { ["manual", "3", "7", "14", "30"] }
    }

    struct Register: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "register", abstract: "Register a folder (created if missing); relative paths are relative to the root.",
            discussion: ExitStatusHelp.discussion("The folder must resolve (.. and links followed) to a folder strictly inside the root, outside its stores (users/, version/); anything else exits 1. Purges check every registered folder again before deleting anything."))
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The folder.") var path: String
        @Option(help: ArgumentHelp("Days files live: manual, 3, 7, 14 or 30.", valueName: "days")) var type: PurgeTypeArgument
        @Option(name: .customLong("max-mb"), help: "Size cap in MB (0: none); over it, the oldest files go until half the cap is left.") var maxMB: Int = 0

        func validate() throws {
            if maxMB < 0 { throw ValidationError("--max-mb cannot be negative") }
        }

        func run() throws {
            let center = try global.openDataCenter()
            let folder = try PurgeablePaths(root: center.rootPath).register(expandTilde(path), type: type.type, maximumMegabytes: maxMB)
            Output.line("registered \(folder)")
        }
    }

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "run", abstract: "Purge every registered folder now.",
            discussion: ExitStatusHelp.discussion())
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Report what would be deleted; delete nothing.") var dryRun = false
        @Flag(help: "Print {\"files\",\"bytes\",\"paths\"}.") var json = false

        func run() throws {
            let center = try global.openDataCenter()
            let report = try PurgeablePaths(root: center.rootPath).purge(dryRun: dryRun)
            if json {
                try Output.json(["files": report.filesDeleted, "bytes": report.bytesFreed, "paths": report.deletedPaths] as [String: Any])
            } else {
                for path in report.deletedPaths { Output.line((dryRun ? "would delete " : "deleted ") + Output.safe(path, limit: 400)) }
                Output.line("\(dryRun ? "would free" : "freed") \(report.bytesFreed) bytes in \(report.filesDeleted) file(s)")
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List registered folders.",
            discussion: ExitStatusHelp.discussion())
        @OptionGroup var global: GlobalOptions
        func run() throws {
            let center = try global.openDataCenter(readOnly: true)
            let paths = PurgeablePaths(root: center.rootPath)
            Output.table(["PATH", "TYPE", "MAX MB"], try paths.folders().map {
                [paths.resolve($0.path), $0.type == .manual ? "manual" : "\($0.type.rawValue) days", String($0.maximumMegabytes)]
            })
        }
    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reset", abstract: "Empty every registered folder (ResetAllPurgeablePaths).",
            discussion: ExitStatusHelp.discussion())
        @OptionGroup var global: GlobalOptions
        func run() throws {
            let center = try global.openDataCenter()
            let report = try PurgeablePaths(root: center.rootPath).resetAll()
            Output.line("deleted \(report.filesDeleted) file(s), \(report.bytesFreed) bytes")
        }
    }
}
