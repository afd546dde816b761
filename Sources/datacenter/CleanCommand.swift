import ArgumentParser
import DatacenterKit
import Foundation

/// `datacenter clean`: run the cache cleaner over a root.
struct CleanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Run the cache cleaner: purgeable values, purgeable folders, and task-file paths.",
        discussion: """
            Without --tasks, runs the built-in tasks cleanPurgeableValues and cleanPurgeablePaths. A task file is JSON: \
            {"tasks": [{"builtin": "cleanPurgeableValues"}, {"path": "Caches", "entries": ["*.cache", "LogFiles"]}]}; \
            paths are relative to the root. Shows a progress bar on a terminal and a summary at the end.
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: ArgumentHelp("A cleaning-task file (JSON).", valueName: "file")) var tasks: String?
    @Flag(help: "Report what would be deleted; delete nothing.") var dryRun = false
    @Flag(help: "Print {\"dryRun\",\"tasks\":[{\"task\",\"items\",\"bytes\"}],\"megabytesFreed\",\"sizeBefore\",\"sizeAfter\"}.") var json = false

    func run() throws {
        let center = try global.openDataCenter(readOnly: false)
        let list = try tasks.map { try CacheCleaner.loadTasks(fromFile: expandTilde($0)) } ?? CacheCleaner.defaultTasks
        let cleaner = CacheCleaner(dataCenter: center, tasks: list)
        let showProgress = !json && isatty(2) == 1
        let report = try cleaner.run(dryRun: dryRun) { phase, fraction in
            guard showProgress, phase != .done else { return }
            let width = 30
            let filled = Int((fraction * Double(width)).rounded())
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            FileHandle.standardError.write(Data("\r\(phase.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)) [\(bar)] \(Int(fraction * 100))%".utf8))
        }
        if showProgress { FileHandle.standardError.write(Data("\r\u{1b}[K".utf8)) }
        for store in report.damagedStores {
            Output.error("warning: \(Output.safe(store.path, limit: 400)): damaged, skipped: \(Output.safe(store.reason, limit: 200))")
        }
        if json {
            var object: [String: Any] = [
                "dryRun": report.dryRun, "megabytesFreed": (report.megabytesFreed * 1000).rounded() / 1000,
                "sizeBefore": report.sizeBefore, "sizeAfter": report.sizeAfter,
                "tasks": report.tasks.map { ["task": $0.task, "items": $0.itemsDeleted, "bytes": $0.bytesFreed] as [String: Any] }]
            // Only when a store was skipped, so the usual document keeps its shape.
            if !report.damagedStores.isEmpty {
                object["damagedStores"] = report.damagedStores.map { ["path": $0.path, "reason": $0.reason] }
            }
            try Output.json(object)
            return
        }
        Output.table(["TASK", dryRun ? "WOULD DELETE" : "DELETED", "MB"], report.tasks.map {
            [Output.safe($0.task), String($0.itemsDeleted), String(format: "%.2f", Double($0.bytesFreed) / 1_048_576)]
        })
        Output.line(String(format: dryRun ? "would free %.2f MB (nothing was deleted)" : "freed %.2f MB", report.megabytesFreed))
    }
}

/// `datacenter purge`: purgeable folders.
struct PurgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Register purgeable folders and purge them.",
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
        static let configuration = CommandConfiguration(abstract: "Register a folder (created if missing); relative paths are relative to the root.",
            discussion: "The folder must resolve (.. and links followed) to a folder strictly inside the root, outside its stores (users/, version/); anything else exits 1. Purges check every registered folder again before deleting anything.")
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
        static let configuration = CommandConfiguration(abstract: "Purge every registered folder now.")
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
        static let configuration = CommandConfiguration(abstract: "List registered folders.")
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
        static let configuration = CommandConfiguration(abstract: "Empty every registered folder (ResetAllPurgeablePaths).")
        @OptionGroup var global: GlobalOptions
        func run() throws {
            let center = try global.openDataCenter()
            let report = try PurgeablePaths(root: center.rootPath).resetAll()
            Output.line("deleted \(report.filesDeleted) file(s), \(report.bytesFreed) bytes")
        }
    }
}

/// `datacenter file`: encrypted files.
struct FileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "file",
        abstract: "Encrypt, decrypt and print files in the chunked AES-256-GCM file format.",
        subcommands: [Encrypt.self, Decrypt.self, Cat.self])

    struct Encrypt: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Encrypt IN into OUT with the first --key.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The plain file.") var input: String
        @Argument(help: "The encrypted file to write.") var output: String
        func run() throws {
            guard let key = try global.keyRing().keys.first else { throw CLIError("encrypting needs a key: pass --key or set DATACENTER_KEY") }
            try EncryptedFile.encrypt(from: expandTilde(input), to: expandTilde(output), key: key)
        }
    }

    struct Decrypt: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Decrypt IN into OUT; OUT appears only if all of IN authenticates.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The encrypted file.") var input: String
        @Argument(help: "The plain file to write.") var output: String
        func run() throws {
            let version = try EncryptedFile.decrypt(from: expandTilde(input), to: expandTilde(output), keys: global.keyRing())
            FileCommand.noteOldFormat(input, version: version)
        }
    }

    /// Tells on stderr that `file` is in the old format, whose chunks are not bound to it.
    static func noteOldFormat(_ file: String, version: Int) {
        guard version < EncryptedFile.currentVersion else { return }
        Output.error("note: \(file) is format \(version) (chunks not bound to the file); re-encrypt it to upgrade")
    }

    struct Cat: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a file: decrypted when encrypted, as it is when it is text.",
            discussion: "Each chunk is authenticated before it is printed; a truncated or altered file stops with exit status 1. A file without the encrypted-file header is printed as it is only when it is text (UTF-8 without NUL bytes); anything else, such as an encrypted file whose header is damaged, is refused with exit status 1.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The file.") var input: String
        func run() throws {
            let path = expandTilde(input)
            let out = FileHandle.standardOutput
            let kind = try EncryptedFileKind.of(path: path)
            switch kind {
            case .encrypted:
                let reader = try EncryptedFileReader(path: path, keys: global.keyRing())
                FileCommand.noteOldFormat(input, version: reader.formatVersion)
                while let chunk = try reader.readChunk() { out.write(chunk) }
            case .unrecognized(resemblesHeader: true):
                throw CLIError("\(path) looks like an encrypted file with a damaged header: not printed")
            case .unrecognized(resemblesHeader: false):
                throw CLIError("\(path) is neither an encrypted file nor text: not printed (use cat for a plain binary file)")
            case .text:
                let handle = try RegularFile.openForReading(path)
                defer { try? handle.close() }
                while let data = try handle.read(upToCount: 65_536), !data.isEmpty { out.write(data) }
            }
        }
    }
}
