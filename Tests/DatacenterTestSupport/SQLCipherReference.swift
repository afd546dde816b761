import Foundation

/// The real SQLCipher 4 (PyPI's `sqlcipher3-binary`, installed by `make test` into a virtual
/// environment under `.build`), run as a separate process so the tests check our files
/// against the reference implementation rather than against ourselves.
public enum SQLCipherReference {
    /// The package's root folder, found from this file's path.
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// The virtual environment's Python interpreter.
    public static let python = packageRoot + "/.build/sqlcipher-venv/bin/python"

    /// True when the interpreter is there and imports SQLCipher.
    public static let isAvailable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return (try? run(["-c", "import sqlcipher3"]).status) == 0
    }()

    /// The PBKDF2 count the tests' own files use for SQLCipher 4's 256,000
    /// (`DATACENTER_TEST_KDF_ITER`, which `make test` sets; the engine reads it in debug
    /// builds), or nil when the tests run with SQLCipher's real count.
    public static let testIterations: Int? = {
        guard let text = ProcessInfo.processInfo.environment["DATACENTER_TEST_KDF_ITER"], let n = Int(text), n >= 1 else { return nil }
        return n
    }()

    /// `source`, a Python program, preceded by what gives the reference the tests' count
    /// (`PRAGMA cipher_default_kdf_iter`, SQLCipher's own setting for the connections a
    /// process opens after it), so it reads and writes the files the engine writes in the
    /// tests. Unchanged with `fullDerivation`, or when the tests use the real count.
    public static func program(_ source: String, fullDerivation: Bool = false) -> String {
        guard let n = testIterations, !fullDerivation else { return source }
        return "import sqlcipher3 as _reference\n"
            + "_reference.connect(':memory:').execute('PRAGMA cipher_default_kdf_iter = \(n)').close()\n" + source
    }

    /// Runs the interpreter with `arguments`; returns its exit status and output. A program
    /// given with `-c` runs with the tests' count (`program`) unless `fullDerivation`.
    public static func run(_ arguments: [String], fullDerivation: Bool = false) throws -> (status: Int32, output: String) {
        var arguments = arguments
        if arguments.count >= 2, arguments[0] == "-c" { arguments[1] = program(arguments[1], fullDerivation: fullDerivation) }
        return try runProcess(python, arguments)
    }

    /// Opens `path` in SQLCipher with `PRAGMA key = <keyLiteral>` (SQL text: `'pass'` or
    /// `"x'…'"`), in SQLCipher 3 compatibility when `compatibility` is 3, runs `script`
    /// (statements separated by `;`), commits, and returns every row of `query` as
    /// `a|b` lines.
    public static func execute(path: String, keyLiteral: String, compatibility: Int, script: String = "",
                        query: String? = nil, fullDerivation: Bool = false) throws -> (status: Int32, output: String) {
        let program = """
        import sys, sqlcipher3
        path, key, compat, script, query = sys.argv[1:6]
        db = sqlcipher3.connect(path)
        db.execute("PRAGMA key = " + key)
        if compat == "3":
            db.execute("PRAGMA cipher_compatibility = 3")
        if script:
            db.executescript(script)
        db.commit()
        if query:
            for row in db.execute(query):
                print("|".join(str(v) for v in row))
        db.close()
        """
        return try run(["-c", program, path, keyLiteral, String(compatibility), script, query ?? ""], fullDerivation: fullDerivation)
    }

    /// Opens `path` with `PRAGMA key = keyLiteral` (in SQLCipher 3 compatibility when
    /// `compatibility` is 3), runs the `;`-separated statements of `sql` in autocommit, and
    /// returns each row as `a|b` lines.
    public static func query(path: String, keyLiteral: String, compatibility: Int, sql: String,
                             fullDerivation: Bool = false) throws -> (status: Int32, output: String) {
        let program = """
        import sys, sqlcipher3
        path, key, compat, sql = sys.argv[1:5]
        db = sqlcipher3.connect(path, isolation_level=None)
        db.execute("PRAGMA key = " + key)
        if compat == "3":
            db.execute("PRAGMA cipher_compatibility = 3")
        for statement in [s for s in sql.split(";") if s.strip()]:
            for row in db.execute(statement):
                print("|".join(str(v) for v in row))
        db.close()
        """
        return try run(["-c", program, path, keyLiteral, String(compatibility), sql], fullDerivation: fullDerivation)
    }
}
