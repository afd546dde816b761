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

/// Runs `executable` with `arguments` (no input, output discarded) and returns its exit
/// status and its peak resident memory in megabytes, as the kernel counts it for the new
/// program (`VmHWM` of `/proc/PID/status`, read as it runs). Not `wait4`'s `ru_maxrss`: a
/// child spawned from this (large) test process starts with the parent's high-water mark.
public func peakResidentMegabytes(_ executable: String, _ arguments: [String]) throws -> (status: Int32, megabytes: Double) {
    var pid: pid_t = 0
    var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for descriptor in [Int32(0), 1, 2] { posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0) }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    guard spawned == 0 else { throw NSError(domain: NSPOSIXErrorDomain, code: Int(spawned)) }
    var status: Int32 = 0
    var peakKilobytes = 0.0
    while true {
        // The high-water mark only grows: the last reading before the exit is the peak.
        if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
           let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
           let value = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") {
            peakKilobytes = max(peakKilobytes, value)
        }
        let reaped = waitpid(pid, &status, WNOHANG)
        if reaped == pid { break }
        if reaped == -1 && errno != EINTR { break }
        usleep(20_000)
    }
    let exited = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return (exited, peakKilobytes / 1024)
}
