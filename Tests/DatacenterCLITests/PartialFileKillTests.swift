import DatacenterKit
import Foundation
import Testing

/// A decrypt interrupted by Ctrl-C or `kill` leaves no partial plaintext; one killed with
/// SIGKILL (which cannot be handled) leaves a partial file that is private (0600) and that
/// the next write into that folder removes. A `users switch` killed at random moments leaves
/// no temporary file once the root is opened again.
@Suite(.serialized) struct PartialFileKillTests {
    /// An encrypted file big enough that decrypting it takes a while.
    private func bigEncryptedFile(_ scratch: TemporaryFolder) throws -> String {
        let path = scratch.file("big.enc")
        let writer = try EncryptedFileWriter(path: path, key: try EncryptionKey(parsing: TestKeys.first), chunkSize: 1 << 20)
        let block = Data(repeating: 0x5A, count: 1 << 20)
        for _ in 0..<160 { try writer.write(block) }
        try writer.finish()
        return path
    }

    /// Starts `datacenter ARGUMENTS` (with `environment` added to this process's), polls
    /// `ready` until it holds, sends `signal`, and waits for the command to end. Returns
    /// whether the signal was sent (false when the command ended first, or after 20 s) and
    /// the process, ended.
    private func interrupt(_ arguments: [String], environment: [String: String] = [:], with signal: Int32,
                           when ready: () -> Bool) throws -> (interrupted: Bool, process: Process) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binaryPath)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var interrupted = false
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline {
            if ready() {
                kill(process.processIdentifier, signal)
                interrupted = true
                break
            }
            usleep(500)
        }
        process.waitUntilExit()
        return (interrupted, process)
    }

    /// Starts `datacenter file decrypt IN OUT`, waits until its partial file appears in
    /// `folder`, sends `signal`, and returns the partial file's name and the exit status.
    private func decryptAndInterrupt(_ input: String, to output: String, in folder: String,
                                     signal: Int32) throws -> (partial: String?, mode: Int?, status: Int32) {
        var partial: String?
        var mode: Int?
        let (_, process) = try interrupt(["file", "decrypt", input, output, "--key", TestKeys.first], with: signal) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            guard let name = names.first(where: { $0 != "big.enc" && !$0.hasPrefix("out-") }) else { return false }
            partial = name
            mode = (try? FileManager.default.attributesOfItem(atPath: folder + "/" + name))?[.posixPermissions] as? Int
            usleep(20_000)   // let some plaintext reach it
            return true
        }
        return (partial, mode, process.terminationStatus)
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func anInterruptedDecryptLeavesNothing(_ signal: Int32) throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let scratch = TemporaryFolder()
        let input = try bigEncryptedFile(scratch)
        let folder = scratch.file("target")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let (partial, mode, _) = try decryptAndInterrupt(input, to: folder + "/plain.bin", in: folder, signal: signal)
        #expect(partial != nil, "no partial file seen before the decrypt ended")
        #expect(mode == 0o600, "the partial plaintext was created \(String(describing: mode.map { String($0, radix: 8) }))")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(left.isEmpty, "left behind: \(left)")
    }

    @Test func aKilledDecryptLeavesAPrivatePartialThatTheNextRunRemoves() throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let scratch = TemporaryFolder()
        let input = try bigEncryptedFile(scratch)
        let folder = scratch.file("target")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let (partial, mode, _) = try decryptAndInterrupt(input, to: folder + "/plain.bin", in: folder, signal: SIGKILL)
        let name = try #require(partial, "no partial file seen before the decrypt ended")
        #expect(mode == 0o600, "the partial plaintext was created \(String(describing: mode.map { String($0, radix: 8) }))")
        #expect(name.hasPrefix(".plain.bin.dc-partial-"), "\(name)")
        // The next write into the folder removes what the killed process left.
        let small = scratch.file("small.txt")
        try Data("x".utf8).write(to: URL(fileURLWithPath: small))
        let encrypt = try CLI.run(["file", "encrypt", small, folder + "/out-small.enc", "--key", TestKeys.first])
        #expect(encrypt.status == 0, "\(encrypt.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out-small.enc"])
    }

    @Test func killedUserSwitchesLeaveNoTemporaryFiles() throws {
        var dice = SplitMix64(seed: CrashTests.seed)
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        #expect(try CLI.run(["users", "switch", "--create", "first", "--root", root]).status == 0)
        for trial in 0..<max(5, CrashTests.trials) {
            _ = try CrashTests.runAndKill(CLI.binaryPath, ["users", "switch", "--create", "user-\(trial)", "--root", root],
                                          acks: nil, delay: Double(Int.random(in: 0...40, using: &dice)) / 1000, dice: &dice)
        }
        // Whatever the kills left is gone once the root is opened again.
        #expect(try CLI.run(["users", "--root", root]).status == 0)
        #expect(try CLI.run(["users", "switch", "--create", "last", "--root", root]).status == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0 != "datacenter.json" && $0 != "users" }
        #expect(left.isEmpty, "left behind: \(left)")
        let state = try #require(try CLI.json(String(contentsOfFile: root + "/datacenter.json", encoding: .utf8)) as? [String: Any])
        #expect(state["currentUserId"] as? String == "last")
        #expect((try FileManager.default.attributesOfItem(atPath: root + "/datacenter.json"))[.posixPermissions] as? Int == 0o600)
    }

    /// Ctrl-C during an import into a new file leaves no database behind (nor its journal),
    /// as a failed import leaves none: the command created it, so it goes with the command.
    @Test(arguments: [SIGINT, SIGTERM])
    func anInterruptedImportIntoANewFileLeavesNothing(_ signal: Int32) throws {
        let scratch = TemporaryFolder()
        let dump = scratch.file("dump.sql")
        var text = "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT);\n"
        for i in 0..<300_000 { text += "INSERT INTO t VALUES(\(i), 'row \(i) of the dump');\n" }
        try text.write(toFile: dump, atomically: true, encoding: .utf8)
        let folder = scratch.file("target")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Interrupted once its transaction has begun writing (its journal is there).
        let (interrupted, process) = try interrupt(["import", dump, folder + "/new.db"], with: signal) {
            FileManager.default.fileExists(atPath: folder + "/new.db-journal")
        }
        #expect(interrupted, "the import ended before its journal was seen")
        #expect(process.terminationReason == .uncaughtSignal, "the import finished instead of dying of the signal")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(left.isEmpty, "left behind: \(left)")
    }

    /// Ctrl-C or SIGTERM during a benchmark removes the scratch folder it made in the
    /// temporary folder (tens of megabytes), as the end of the benchmark does, and the process
    /// dies of the signal, never of the failure the folder's removal causes it: the moment
    /// between the removal and the signal is widened to 300 ms (it once lost that race).
    @Test(arguments: [SIGINT, SIGTERM])
    func anInterruptedBenchLeavesNoScratchFolder(_ signal: Int32) throws {
        let scratch = TemporaryFolder()
        // Interrupted the moment its folder appears: the cleanup is armed before the folder is
        // made, so no signal from then on is lost (a benchmark once ran on to its end).
        let environment = ["TMPDIR": scratch.path + "/", "DATACENTER_TEST_CLEANUP_PAUSE_MS": "300"]
        let (interrupted, process) = try interrupt(["bench", "kv"], environment: environment, with: signal) {
            ((try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? []).contains { $0.hasPrefix("datacenter-bench-") }
        }
        #expect(interrupted, "the benchmark ended before its folder was seen")
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signal,
                "the benchmark did not die of the signal: \(process.terminationReason == .exit ? "exit" : "signal") \(process.terminationStatus)")
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix("datacenter-bench-") }
        let inside = left.map { (try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/" + $0)) ?? ["(a file)"] }
        #expect(left.isEmpty, "left behind: \(left), holding \(inside)")
    }
}
