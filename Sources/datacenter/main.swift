import ArgumentParser
import DatacenterKit
import Foundation

/// The `datacenter` command: inspect and edit data-center stores.
struct DatacenterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "datacenter",
        abstract: "Inspect and edit Datacenter stores: users, key-value entries, SQL.",
        discussion: """
            Global options --root PATH, --key KEY (repeatable), --app-key STRING, --db-key SECRET (repeatable) and --busy-timeout SECONDS may stand before or after the subcommand.
            Exit status: 0 success, 1 an error (message on stderr starting with 'error:'), 2 a usage error. \
            Damaged entries or stores are listed as damaged and the rest shown: exit 0, with a 'warning:' on stderr.
            Inputs must be regular files (a FIFO or device is refused at once); files created are 0600, folders 0700.
            """,
        version: "0.1.0",
        subcommands: [BrowseCommand.self, UsersCommand.self, KVCommand.self, SQLCommand.self, ImportCommand.self, ExportCommand.self, DemoCommand.self,
                      OverviewCommand.self, RekeyCommand.self, CacheCommand.self, CleanCommand.self, PurgeCommand.self,
                      FileCommand.self, DBCommand.self, BenchCommand.self, DAOCommand.self, SnapshotCommand.self, DiffCommand.self])

    /// Declared here too so that the global options may precede the subcommand: the parser
    /// hands what it reads here to the subcommand's own `GlobalOptions`.
    @OptionGroup var global: GlobalOptions
}

/// Runs the command line and maps its outcomes to the documented exit statuses: 0 success,
/// 1 an error (`error: …` on stderr), 2 a usage error.
enum CommandLineRunner {
    static func main() -> Never {
        // Ctrl-C or a kill during `file decrypt` (or any private write) leaves no partial file.
        PartialFiles.removeOnTerminationSignals()
        var command: ParsableCommand
        do {
            command = try DatacenterCommand.parseAsRoot()
        } catch {
            // The parser's own outcomes: help and version print and exit 0; usage errors exit 2.
            exitForParser(error)
        }
        do {
            try command.run()
            exit(0)
        } catch let error as CLIError {
            Output.error("error: \(error.description)")
            exit(1)
        } catch let error as ExitCode {
            exit(error.rawValue)
        } catch {
            // What the parser defers to running: help asked of a command that only groups
            // others, and `ValidationError`s thrown by `run`.
            if DatacenterCommand.exitCode(for: error) != .failure { exitForParser(error) }
            Output.error("error: \(describe(error))")
            exit(1)
        }
    }

    /// Exits for an error the argument parser made or understands: usage errors print the
    /// parser's message with the usage line and exit 2 (not the parser's default, 64).
    static func exitForParser(_ error: Error) -> Never {
        if DatacenterCommand.exitCode(for: error) == .validationFailure {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if let suggestion = UsageHints.misspelledSubcommand(in: arguments) {
                Output.error("error: \(suggestion)")
                exit(2)
            }
            Output.error(DatacenterCommand.fullMessage(for: error))
            if let hint = UsageHints.negativeNumber(in: arguments) { Output.error(hint) }
            exit(2)
        }
        DatacenterCommand.exit(withError: error)
    }

    /// A one-line description of an engine error. Foundation's file errors are put in
    /// plain words with their path (`FileAccessError`), never shown as `NSCocoaErrorDomain`.
    static func describe(_ error: Error) -> String {
        let ns = error as NSError
        if ns.domain == NSCocoaErrorDomain || ns.domain == NSPOSIXErrorDomain {
            let path = (ns.userInfo[NSFilePathErrorKey] as? String) ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path ?? "(a file)"
            return FileAccessError.wrapping(error, path: path, doing: "use it").description
        }
        if let error = error as? LocalizedError, let text = error.errorDescription { return text + keyHint(error) }
        return String(describing: error)
    }

    /// What to pass when an error is about a database key (the engine's errors name no option).
    static func keyHint(_ error: Error) -> String {
        if case StorageError.encryptedRootNeedsKey = error { return " (pass --db-key SECRET, or set DATACENTER_DB_KEY)" }
        switch (error as? DatabaseError)?.keyProblem {
        case .missingKey?: return " (pass --db-key SECRET, or set DATACENTER_DB_KEY)"
        case .notEncrypted?: return " (drop --db-key and DATACENTER_DB_KEY for this file)"
        default: return ""
        }
    }
}

CommandLineRunner.main()
