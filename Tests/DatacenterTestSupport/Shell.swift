import Foundation

/// Runs the `sqlite3` shell on `path` with `sql` and returns what it printed (stdout and
/// stderr), trimmed: tests check files with the reference tool, not with the engine.
public func sqlite3Shell(_ path: String, _ sql: String) throws -> String {
    try runProcess("/usr/bin/env", ["sqlite3", path, sql]).output
}

/// Runs `executable` with `arguments`, no input; returns its exit status and what it printed
/// (stdout and stderr together), trimmed.
public func runProcess(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
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

/// Runs the `sqlite3` shell with `arguments` and returns its standard output, byte for
/// byte (for comparing an output format with the reference tool's).
public func sqlite3ShellBytes(_ arguments: [String]) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sqlite3"] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return data
}
