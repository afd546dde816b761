import ArgumentParser
import DatacenterKit
import Foundation

/// The `datacenter` command: inspect and edit data-center stores.
struct DatacenterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "datacenter",
        abstract: "Inspect and edit Datacenter stores: users, key-value entries, SQL.",
        discussion: """
            Global options --root PATH and --key KEY (repeatable) may stand before or after the subcommand.
            Exit status: 0 success, 1 an error (message on stderr starting with 'error:'), 2 a usage error. \
            Damaged entries or stores are listed as damaged and the rest shown: exit 0, with a 'warning:' on stderr.
            Inputs must be regular files (a FIFO or device is refused at once); files created are 0600, folders 0700.
            """,
        version: "0.1.0",
        subcommands: [BrowseCommand.self, UsersCommand.self, KVCommand.self, SQLCommand.self, ImportCommand.self, DemoCommand.self,
                      OverviewCommand.self, RekeyCommand.self, CacheCommand.self, CleanCommand.self, PurgeCommand.self,
                      FileCommand.self, BenchCommand.self, DAOCommand.self])
}

/// Runs the command line: global options may come before the subcommand; errors map to the
/// documented exit statuses.
enum CommandLineRunner {
    static let globalOptions: Set<String> = ["--root", "--key"]

    /// Moves `--root X` / `--key X` written before the subcommand to after it, where the
    /// subcommands declare them.
    static func hoistGlobalOptions(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var rest = arguments[...]
        while let first = rest.first {
            if globalOptions.contains(first), rest.count >= 2 {
                leading += rest.prefix(2)
                rest = rest.dropFirst(2)
            } else if let name = first.split(separator: "=", maxSplits: 1).first, first.contains("="),
                      globalOptions.contains(String(name)) {
                leading.append(first)
                rest = rest.dropFirst()
            } else {
                break
            }
        }
        guard !leading.isEmpty else { return arguments }
        var result = Array(rest)
        if let separator = result.firstIndex(of: "--") { result.insert(contentsOf: leading, at: separator) } else { result += leading }
        return result
    }

    static func main() -> Never {
        // Ctrl-C or a kill during `file decrypt` (or any private write) leaves no partial file.
        PartialFiles.removeOnTerminationSignals()
        let arguments = hoistGlobalOptions(Array(CommandLine.arguments.dropFirst()))
        do {
            var command = try DatacenterCommand.parseAsRoot(arguments)
            try command.run()
            exit(0)
        } catch let error as CLIError {
            Output.error("error: \(error.description)")
            exit(1)
        } catch let error as ExitCode {
            exit(error.rawValue)
        } catch let error as CleanExit {
            DatacenterCommand.exit(withError: error)
        } catch {
            let code = DatacenterCommand.exitCode(for: error)
            if code == .validationFailure {
                Output.error(DatacenterCommand.fullMessage(for: error))
                exit(2)
            }
            if code != .failure || isParserError(error) {
                DatacenterCommand.exit(withError: error)
            }
            Output.error("error: \(describe(error))")
            exit(1)
        }
    }

    /// True for argument-parser errors that are not usage errors (help, version).
    static func isParserError(_ error: Error) -> Bool {
        String(reflecting: type(of: error)).hasPrefix("ArgumentParser.")
    }

    /// A one-line description of an engine error. Foundation's file errors are put in
    /// plain words with their path (`FileAccessError`), never shown as `NSCocoaErrorDomain`.
    static func describe(_ error: Error) -> String {
        let ns = error as NSError
        if ns.domain == NSCocoaErrorDomain || ns.domain == NSPOSIXErrorDomain {
            let path = (ns.userInfo[NSFilePathErrorKey] as? String) ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path ?? "(a file)"
            return FileAccessError.wrapping(error, path: path, doing: "use it").description
        }
        if let error = error as? LocalizedError, let text = error.errorDescription { return text }
        return String(describing: error)
    }
}

CommandLineRunner.main()
