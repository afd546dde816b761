import DatacenterKit
import Foundation

/// The sqlite3 command-line shell as a baseline: the tool the browser's slow paths are
/// compared with (search, sort, filter, export), run as a user runs it, its output written
/// to a file or thrown away.
enum SQLiteShell {
    /// The shell's path on `PATH`, or nil when it is not installed (those baselines are
    /// then not measured, and their scenarios say so).
    static let path: String? = BenchChildProcess.tool("sqlite3")

    /// Why a shell run failed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Nanoseconds the shell takes to run `sql` on the file at `database` read-only, with
    /// `options` (`-csv`, `-header`), its output written to the new file `output`, or
    /// thrown away when nil.
    /// - throws: `Failure` when the shell is missing or exits with an error.
    static func time(database: String, sql: String, options: [String] = [], output: String? = nil) throws -> Double {
        guard let path else { throw Failure(description: "sqlite3 is not on PATH") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-readonly"] + options + [database, sql]
        let sink: FileHandle
        if let output {
            // A new, empty regular file: whatever stood at the path goes first, so a
            // device or a link is never written through.
            try? FileManager.default.removeItem(atPath: output)
            guard FileManager.default.createFile(atPath: output, contents: nil), let file = FileHandle(forWritingAtPath: output) else {
                throw Failure(description: "cannot write \(output)")
            }
            sink = file
        } else {
            sink = FileHandle.nullDevice
        }
        defer { if output != nil { try? sink.close() } }
        process.standardOutput = sink
        let errors = Pipe()
        process.standardError = errors
        let elapsed = try Stopwatch.time {
            try process.run()
            process.waitUntilExit()
        }
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw Failure(description: "sqlite3 failed on \(sql): \(message)")
        }
        return elapsed
    }
}
