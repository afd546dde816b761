import ArgumentParser
import DatacenterChanges
import DatacenterKit
import Foundation

/// `datacenter diff A B` (or `--since SNAPSHOT [B]`): what changed between two versions of
/// the same stores, by value and decrypted, or as the SQL that turns one into the other.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what changed between two roots, snapshots or database files, decrypted (or as SQL).",
        discussion: """
            Each side is a data-center root, a snapshot (datacenter snapshot) or one SQLite file; stores pair \
            by their path below the root. Reported per store: schema objects added, removed or changed; KV \
            entries by business and key, decoded by type and decrypted with --key; DAO rows by primary key, \
            crypt columns decrypted; disk-cache entries by key; other rows by primary key or rowid. A value \
            encrypted anew with the same content, an entry written again with the same value and a cache \
            entry only used are not changes (--verbose lists them). A value no key opens is shown locked, never \
            as text. --sql prints the statements that turn A into B (sqldiff's, byte for byte in result), \
            encrypted values as their stored ciphertext.

            Exit status: 0 when nothing differs, 1 when something does (by value; by bytes with --sql), \
            2 on any error (message on stderr starting 'error:'), usage errors included.
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A then B: roots, snapshots or database files. With --since, only B (default: the root, --root).",
                                 valueName: "path"))
    var paths: [String] = []
    @Option(name: .long, help: ArgumentHelp("A snapshot (or root, or file) to compare with: A.", valueName: "snapshot"))
    var since: String?
    @Flag(help: "One JSON object on stdout (see docs/CLI.md for its shape).") var json = false
    @Flag(help: "Print SQL statements that turn A into B, as sqldiff does (values as stored).") var sql = false

    func validate() throws {
        if json && sql { throw ValidationError("--json and --sql are two outputs: choose one") }
        if since != nil {
            guard paths.count <= 1 else { throw ValidationError("with --since, give one path (B) at most") }
        } else {
            guard paths.count == 2 else { throw ValidationError("give two paths, A and B (or --since SNAPSHOT [B])") }
        }
    }

    func run() throws {
        do {
            let changed = try compare()
            throw ExitCode(changed ? 1 : 0)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            // The diff convention: 2 for trouble, as 1 means "they differ".
            Output.error("error: \(error is CLIError ? "\(error)" : CommandLineRunner.describe(error))")
            throw ExitCode(2)
        }
    }

    /// Compares the sides and prints the result; true when they differ.
    private func compare() throws -> Bool {
        let aPath = expandTilde(since ?? paths[0])
        let bPath = since == nil ? expandTilde(paths[1]) : (paths.first.map(expandTilde) ?? global.rootPath)
        let keys = try global.keyRing()
        let databaseKeys = try global.databaseKeyList()
        let a = try ChangeSource.at(aPath, keys: keys, databaseKeys: databaseKeys, busyTimeout: global.busyTimeout)
        let b = try ChangeSource.at(bPath, keys: keys, databaseKeys: databaseKeys, busyTimeout: global.busyTimeout)
        let diff = StoreDiff(keys: keys, databaseKeys: databaseKeys, busyTimeout: global.busyTimeout)
        let out = BufferedOutput()
        defer { out.flush() }
        if sql {
            return try diff.sql(a, b, write: { out.line($0) }) > 0
        }
        if json {
            let printer = DiffJSONPrinter(a: aPath, b: bPath, out: out, verbose: global.verbose)
            let count = try diff.run(a, b, into: printer)
            printer.finish(changes: count)
            return count > 0
        }
        let printer = DiffTextPrinter(out: out, verbose: global.verbose, colour: DiffTextPrinter.usesColour)
        let count = try diff.run(a, b, into: printer)
        printer.finish(changes: count, a: aPath, b: bPath)
        return count > 0
    }
}

/// Standard output written in large pieces: a diff of many rows prints many lines.
final class BufferedOutput {
    private var buffer: [UInt8] = []

    /// Appends `text` and a line break.
    func line(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Appends `text` as it is.
    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Writes what is held to standard output.
    func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }
}
