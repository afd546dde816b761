import Foundation

/// The real SQLCipher 4 (PyPI's `sqlcipher3-binary`, installed by `make test` into a virtual
/// environment under `.build`), run as a separate process so the tests check our files
/// against the reference implementation rather than against ourselves.
enum SQLCipherReference {
    /// The package's root folder, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// The virtual environment's Python interpreter.
    static let python = packageRoot + "/.build/sqlcipher-venv/bin/python"

    /// True when the interpreter is there and imports SQLCipher.
    static let isAvailable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return (try? run(["-c", "import sqlcipher3"]).status) == 0
    }()

    /// Runs the interpreter with `arguments`; returns its exit status and output.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
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

    /// Opens `path` in SQLCipher with `PRAGMA key = <keyLiteral>` (SQL text: `'pass'` or
    /// `"x'…'"`), in SQLCipher 3 compatibility when `compatibility` is 3, runs `script`
    /// (statements separated by `;`), commits, and returns every row of `query` as
    /// `a|b` lines.
    static func execute(path: String, keyLiteral: String, compatibility: Int, script: String = "",
                        query: String? = nil) throws -> (status: Int32, output: String) {
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
        return try run(["-c", program, path, keyLiteral, String(compatibility), script, query ?? ""])
    }
}
