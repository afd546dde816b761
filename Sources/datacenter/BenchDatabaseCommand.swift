import ArgumentParser
import DatacenterBench
import DatacenterKit
import Foundation

extension BenchCommand {
    /// `datacenter bench db`: page encryption (SQLCipher's format) against plain files, and an
    /// import against the real SQLCipher.
    struct DB: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "db",
            abstract: "Encrypted-database scenarios: \(DatabaseBenchmark.scenarios.joined(separator: ", ")).",
            discussion: ExitStatusHelp.discussion("""
                Same output as `bench kv`. Each scenario runs the same work on a SQLCipher 4 file keyed with a \
                passphrase (the key derivation is paid at open, untimed) and on a plain file, in one run; db-import \
                imports a dump into a SQLCipher 3 file with a raw key against SQLCipher itself (PyPI's \
                sqlcipher3-binary, from .build/sqlcipher-venv: `make sqlcipher-reference`).
                """))

        @OptionGroup var global: GlobalOptions
        @OptionGroup var options: BenchOptions
        @Flag(help: "Keep the benchmark's files in the scratch folder (their keys are in docs/CLI.md).") var keepFiles = false

        func run() throws {
            if (try? options.selection(of: DatabaseBenchmark.scenarios))?.includes("db-import") == true, SQLCipherPython.python == nil {
                Output.error("warning: db-import has no baseline: SQLCipher reference not found; \(SQLCipherPython.howToInstall)")
            }
            let selection = try? options.selection(of: DatabaseBenchmark.scenarios)
            if SQLite3MCBenchmark.scenarios.contains(where: { selection?.includes($0) == true }), !SQLite3MCBenchmark.isAvailable {
                Output.error("warning: the db-mc scenarios are left out: SQLite3 Multiple Ciphers (apsw-sqlite3mc) not found; "
                    + SQLCipherPython.howToInstall)
            }
            let scratch = options.scratch
            try options.measure(DatabaseBenchmark.scenarios) { selection, report in
                try DatabaseBenchmark.run(in: scratch, scale: options.quick ? .quick : .standard, selection: selection,
                                          keepFiles: keepFiles, report: report)
            }
            if keepFiles { Output.error("kept the benchmark's files in \(scratch)") }
        }
    }
}
