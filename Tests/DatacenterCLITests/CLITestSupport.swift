import Foundation
import Testing
@_exported import DatacenterTestSupport

/// Runs the built `datacenter` binary and captures what it prints.
enum CLI {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The binary under test: `$DATACENTER_BIN`, else the `datacenter` beside the test bundle.
    static let binaryPath: String = {
        if let env = ProcessInfo.processInfo.environment["DATACENTER_BIN"], !env.isEmpty { return env }
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("datacenter").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("datacenter").path
    }()

    /// Runs `datacenter ARGS` (in the folder `directory` when given); the environment is this
    /// process's with `DATACENTER_KEY` and `DATACENTER_ROOT` removed unless given in
    /// `environment`. With a `timeout`, a run still going after that many seconds is killed
    /// (SIGKILL, so its status is 9 and `timedOut` true): a hang fails the test instead of
    /// stalling the suite.
    static func run(_ arguments: [String], environment: [String: String] = [:], directory: String? = nil,
                    timeout: TimeInterval? = nil, input: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binaryPath)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        var env = ProcessInfo.processInfo.environment
        env["DATACENTER_KEY"] = nil
        env["DATACENTER_ROOT"] = nil
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        if let input {
            // Written then closed, so the command reads it whole and sees its end.
            let handle = stdin.fileHandleForWriting
            DispatchQueue.global().async {
                handle.write(Data(input.utf8))
                try? handle.close()
            }
        }
        if let timeout {
            let pid = process.processIdentifier
            let watched = process
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                if watched.isRunning { kill(pid, SIGKILL) }
            }
        }
        // Read both pipes before waiting, so a large output cannot block the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    /// The environment of a run that derives keys as SQLCipher does (256,000 rounds for
    /// SQLCipher 4), whatever count the tests use (`DATACENTER_TEST_KDF_ITER`, which the
    /// engine reads in debug builds and takes empty as unset).
    static let fullKeyDerivation = ["DATACENTER_TEST_KDF_ITER": ""]

    /// Parses one JSON document.
    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }
}

/// Two keys for the tests, as 64 hex digits.
enum TestKeys {
    static let first = String(repeating: "ab", count: 32)
    static let second = String(repeating: "cd", count: 32)
}
