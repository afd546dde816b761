import DatacenterKit
import Foundation

/// The real SQLCipher as a baseline: PyPI's `sqlcipher3-binary` (SQLCipher 4) in the virtual
/// environment `make sqlcipher-reference` (and `make test`) creates at `.build/sqlcipher-venv`,
/// driven by its Python interpreter. Debian has no `sqlcipher` shell package, so this is the
/// reference build at hand; the interoperability tests use the same one.
package enum SQLCipherPython {
    /// The environment variable naming another interpreter with `sqlcipher3` installed.
    package static let environmentVariable = "DATACENTER_SQLCIPHER_PYTHON"

    /// How to get the reference when it is missing, for the messages that say so.
    package static let howToInstall = "run `make sqlcipher-reference` (or `make test`) in the source tree to create .build/sqlcipher-venv, or set \(environmentVariable)"

    /// Why a run of the reference failed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The interpreter: `$DATACENTER_SQLCIPHER_PYTHON` when set (and then only it), else
    /// `.build/sqlcipher-venv/bin/python` found above the running binary (which lives under
    /// `.build` when built from the source tree) or above the current folder; nil when none is
    /// found or it cannot import `sqlcipher3`.
    package static let python: String? = {
        let fm = FileManager.default
        var candidates: [String] = []
        if let given = ProcessInfo.processInfo.environment[environmentVariable], !given.isEmpty {
            candidates.append(given) // the one asked for, or none: no silent fallback to another
        } else {
            candidates += searchedPaths
        }
        return candidates.first { fm.isExecutableFile(atPath: $0) && (try? run($0, ["-c", "import sqlcipher3"]).status) == 0 }
    }()

    /// Where the virtual environment's interpreter is looked for: above the running binary and
    /// above the current folder.
    private static var searchedPaths: [String] {
        var candidates: [String] = []
        let fm = FileManager.default
        let binary = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        let starts = [binary.resolvingSymlinksInPath().deletingLastPathComponent(),
                      URL(fileURLWithPath: fm.currentDirectoryPath)]
        for start in starts {
            var folder = start
            for _ in 0..<6 {
                candidates.append(folder.appendingPathComponent("sqlcipher-venv/bin/python").path)
                candidates.append(folder.appendingPathComponent(".build/sqlcipher-venv/bin/python").path)
                folder = folder.deletingLastPathComponent()
            }
        }
        return candidates
    }

    /// Nanoseconds SQLCipher takes to import the dump at `dump` into the new file `database`,
    /// keyed with the raw key `keyHex` (64 hex digits) in SQLCipher 3 format: the Python
    /// process reads the dump, opens and keys the file (`PRAGMA key="x'…'"`,
    /// `PRAGMA cipher_compatibility=3`), then times `executescript(dump)` alone and prints it,
    /// so the interpreter's start-up is not counted.
    /// - throws: `Failure` when the reference is missing or the import fails.
    static func importTime(dump: String, into database: String, keyHex: String) throws -> Double {
        guard let python else { throw Failure(description: "SQLCipher reference not found: \(howToInstall)") }
        let program = """
        import sys, time, sqlcipher3
        path, key, dump_path = sys.argv[1:4]
        with open(dump_path, encoding="utf-8") as f:
            dump = f.read()
        db = sqlcipher3.connect(path)
        db.execute("PRAGMA key = \\"x'" + key + "'\\"")
        db.execute("PRAGMA cipher_compatibility = 3")
        start = time.perf_counter_ns()
        db.executescript(dump)
        elapsed = time.perf_counter_ns() - start
        db.close()
        print(elapsed)
        """
        let result = try run(python, ["-c", program, database, keyHex, dump])
        guard result.status == 0, let nanoseconds = Double(result.output) else {
            throw Failure(description: "SQLCipher (\(python)) failed to import \(dump) into \(database): \(result.output)")
        }
        return nanoseconds
    }

    /// Nanoseconds SQLCipher takes, in one process, to open the SQLCipher 4 file at `path`
    /// with `passphrase` and read its schema `opens` times (a new connection each, so each
    /// pays the key derivation, as a new process does); the interpreter's start-up is not
    /// counted. Returns the time of one open.
    static func openTime(path: String, passphrase: String, opens: Int) throws -> Double {
        guard let python else { throw Failure(description: "SQLCipher reference not found: \(howToInstall)") }
        let program = """
        import sys, time, sqlcipher3
        path, key, opens = sys.argv[1], sys.argv[2], int(sys.argv[3])
        start = time.perf_counter_ns()
        for _ in range(opens):
            db = sqlcipher3.connect(path)
            db.execute("PRAGMA key = '" + key.replace("'", "''") + "'")
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
            db.close()
        print((time.perf_counter_ns() - start) // opens)
        """
        let result = try run(python, ["-c", program, path, passphrase, String(opens)])
        guard result.status == 0, let nanoseconds = Double(result.output) else {
            throw Failure(description: "SQLCipher (\(python)) failed to open \(path): \(result.output)")
        }
        return nanoseconds
    }

    /// A whole-file conversion the SQLCipher way, `sqlcipher_export` into an attached new
    /// file (which verifies nothing): `encrypt` a plain file with `newKey`, `decrypt` one
    /// keyed with `key`, or `rekey` it into a copy keyed with `newKey` (SQLCipher 4 settings,
    /// passphrases). Returns the nanoseconds of the open, attach and export, start-up aside.
    static func exportTime(_ mode: String, source: String, destination: String, key: String, newKey: String) throws -> Double {
        guard let python else { throw Failure(description: "SQLCipher reference not found: \(howToInstall)") }
        let program = """
        import sys, time, sqlcipher3
        mode, source, destination, key, new_key = sys.argv[1:6]
        quote = lambda text: "'" + text.replace("'", "''") + "'"
        start = time.perf_counter_ns()
        db = sqlcipher3.connect(source, isolation_level=None)
        if mode != "encrypt":
            db.execute("PRAGMA key = " + quote(key))
        target_key = "''" if mode == "decrypt" else quote(new_key)
        db.execute("ATTACH DATABASE ? AS target KEY " + target_key, (destination,))
        db.execute("SELECT sqlcipher_export('target')")
        db.execute("DETACH DATABASE target")
        db.close()
        print(time.perf_counter_ns() - start)
        """
        let result = try run(python, ["-c", program, mode, source, destination, key, newKey])
        guard result.status == 0, let nanoseconds = Double(result.output) else {
            throw Failure(description: "SQLCipher (\(python)) failed to \(mode) \(source): \(result.output)")
        }
        return nanoseconds
    }

    /// Runs `python` with `arguments`; returns its exit status and output (stdout and stderr).
    /// A program given with `-c` first sets SQLCipher's default PBKDF2 count for its
    /// connections to the count of the engine's SQLCipher 4 defaults: SQLCipher's own 256,000,
    /// except in a debug build under test (`DATACENTER_TEST_KDF_ITER`), so that both sides
    /// always open each other's files with the same settings.
    static func run(_ python: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        var arguments = arguments
        if arguments.count >= 2, arguments[0] == "-c" {
            let count = DatabaseCipherSettings.sqlcipher4.kdfIterations
            arguments[1] = "import sqlcipher3 as _reference\n"
                + "_reference.connect(':memory:').execute('PRAGMA cipher_default_kdf_iter = \(count)').close()\n" + arguments[1]
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
