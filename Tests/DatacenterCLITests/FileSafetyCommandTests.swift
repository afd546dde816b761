import DatacenterKit
import Foundation
import Testing
import DatacenterText

/// Paths that are not regular files are refused at once by every command (a FIFO never
/// hangs one), errors are plain words with the path (never Foundation's), and what the
/// commands create is private (0600 files, 0700 folders) under a umask of 022.
@Suite struct FileSafetyCommandTests {
    /// Long enough for any of these commands, short enough that a hang fails fast.
    static let limit: TimeInterval = 20

    private func makeFIFO(_ path: String) throws {
        try #require(mkfifo(path, 0o600) == 0, "mkfifo failed")
    }

    private func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    /// Checks a refusal: exit 1 within the limit, an `error:` line naming `path` and saying
    /// `reason`, nothing of Foundation's.
    private func expectRefused(_ result: CLI.Result, path: String, reason: String,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 1, "status \(result.status) (9: killed after \(Self.limit) s, it hung): \(result.stderr)",
                sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("error: "), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(path), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(reason), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(!result.stderr.contains("NSCocoaErrorDomain") && !result.stderr.contains("couldn’t")
                && !result.stderr.contains("couldn't"), "\(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test func aFIFOGivenToFileCommandsIsRefusedAtOnce() throws {
        let scratch = TemporaryFolder()
        let fifo = scratch.file("pipe")
        try makeFIFO(fifo)
        let key = ["--key", TestKeys.first]
        expectRefused(try CLI.run(["file", "cat", fifo] + key, timeout: Self.limit), path: fifo, reason: "not a regular file (a FIFO)")
        expectRefused(try CLI.run(["file", "decrypt", fifo, scratch.file("out")] + key, timeout: Self.limit),
                      path: fifo, reason: "not a regular file (a FIFO)")
        expectRefused(try CLI.run(["file", "encrypt", fifo, scratch.file("out.enc")] + key, timeout: Self.limit),
                      path: fifo, reason: "not a regular file (a FIFO)")
        // As an output: refused, and the FIFO is left as it is.
        let plain = scratch.file("plain.txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: plain))
        expectRefused(try CLI.run(["file", "encrypt", plain, fifo] + key, timeout: Self.limit),
                      path: fifo, reason: "not a regular file (a FIFO)")
        #expect(try FileManager.default.attributesOfItem(atPath: fifo)[.type] as? FileAttributeType == .typeUnknown
                || (try FileManager.default.attributesOfItem(atPath: fifo)[.type] as? FileAttributeType) != .typeRegular)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out")))
    }

    @Test func aFIFOAsDumpConfigOrRootFileIsRefusedAtOnce() throws {
        let scratch = TemporaryFolder()
        let fifo = scratch.file("dump.sql")
        try makeFIFO(fifo)
        expectRefused(try CLI.run(["import", fifo, scratch.file("db.sqlite")], timeout: Self.limit),
                      path: fifo, reason: "not a regular file (a FIFO)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("db.sqlite")))

        let config = scratch.file("config.xml")
        try makeFIFO(config)
        // A config's errors are located, as every config error is (the engine's loader refuses it).
        let methods = try CLI.run(["dao", "methods", config], timeout: Self.limit)
        #expect(methods.status == 1, "status \(methods.status) (9: killed after \(Self.limit) s, it hung): \(methods.stderr)")
        #expect(methods.stderr.hasPrefix("\(config):1:1: error: cannot read the config: not a regular file (a FIFO)"), "\(methods.stderr)")

        let root = scratch.file("root")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try makeFIFO(root + "/datacenter.json")
        expectRefused(try CLI.run(["users", "--root", root], timeout: Self.limit),
                      path: root + "/datacenter.json", reason: "not a regular file (a FIFO)")

        let other = scratch.file("other")
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        try makeFIFO(other + "/purgeable.json")
        expectRefused(try CLI.run(["purge", "list", "--root", other], timeout: Self.limit),
                      path: other + "/purgeable.json", reason: "not a regular file (a FIFO)")

        let keyFile = scratch.file("key")
        try makeFIFO(keyFile)
        expectRefused(try CLI.run(["kv", "list", "--root", other, "--key", "@" + keyFile], timeout: Self.limit),
                      path: keyFile, reason: "not a regular file (a FIFO)")
    }

    @Test func foldersAndFilesInTheWrongPlaceArePlainErrors() throws {
        let scratch = TemporaryFolder()
        let folder = scratch.file("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        expectRefused(try CLI.run(["file", "encrypt", folder, scratch.file("x.enc"), "--key", TestKeys.first], timeout: Self.limit),
                      path: folder, reason: "not a regular file (a folder)")

        let file = scratch.file("a-file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        expectRefused(try CLI.run(["users", "switch", "--create", "alice", "--root", file], timeout: Self.limit),
                      path: file, reason: "is not a folder")
        expectRefused(try CLI.run(["overview", "--root", file], timeout: Self.limit), path: file, reason: "is not a folder")

        let root = scratch.file("root")
        #expect(try CLI.run(["kv", "set", "b", "k", "v", "--root", root]).status == 0)
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/users"))
        expectRefused(try CLI.run(["users", "switch", "--create", "alice", "--root", root], timeout: Self.limit),
                      path: root + "/users", reason: "not a folder (a regular file)")
    }

    @Test func decryptedFilesStoresAndTheRootArePrivate() throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let scratch = TemporaryFolder()
        let plain = scratch.file("plain.txt")
        try Data("top secret".utf8).write(to: URL(fileURLWithPath: plain))
        chmod(plain, 0o600)
        let key = ["--key", TestKeys.first]
        #expect(try CLI.run(["file", "encrypt", plain, scratch.file("s.enc")] + key).status == 0)
        let decrypt = try CLI.run(["file", "decrypt", scratch.file("s.enc"), scratch.file("out.txt")] + key)
        #expect(decrypt.status == 0, "\(decrypt.stderr)")
        #expect(try mode(scratch.file("out.txt")) == 0o600)
        #expect(try mode(scratch.file("s.enc")) == 0o600)

        let root = scratch.file("root")
        #expect(try CLI.run(["users", "switch", "--create", "bob", "--root", root]).status == 0)
        #expect(try CLI.run(["kv", "set", "b", "k", "v", "--create", "--user", "bob", "--root", root]).status == 0)
        #expect(try CLI.run(["kv", "set", "b", "k", "v", "--root", root]).status == 0)
        #expect(try mode(root) == 0o700)
        #expect(try mode(root + "/datacenter.json") == 0o600)
        #expect(try mode(root + "/common.sqlite") == 0o600)
        #expect(try mode(root + "/users/bob") == 0o700)
        #expect(try mode(root + "/users/bob/user.sqlite") == 0o600)

        let db = scratch.file("imported.sqlite")
        let dump = scratch.file("dump.sql")
        try Data("CREATE TABLE t(x); INSERT INTO t VALUES (1);\n".utf8).write(to: URL(fileURLWithPath: dump))
        #expect(try CLI.run(["import", dump, db]).status == 0)
        #expect(try mode(db) == 0o600)
        // /dev/null still reads as an empty dump.
        #expect(try CLI.run(["import", "/dev/null", scratch.file("empty.sqlite")]).status == 0)
    }

    @Test func relativePathsOfOneLetterWork() throws {
        let scratch = TemporaryFolder()
        try Data("abc".utf8).write(to: URL(fileURLWithPath: scratch.file("p")))
        let key = ["--key", TestKeys.first]
        let encrypt = try CLI.run(["file", "encrypt", "p", "e"] + key, directory: scratch.path)
        #expect(encrypt.status == 0, "\(encrypt.stderr)")
        let decrypt = try CLI.run(["file", "decrypt", "e", "o"] + key, directory: scratch.path)
        #expect(decrypt.status == 0, "\(decrypt.stderr)")
        #expect(try String(contentsOfFile: scratch.file("o"), encoding: .utf8) == "abc")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["e", "o", "p"])
    }

    @Test func aBinaryDumpErrorShowsOnlyAShortEscapedExcerpt() throws {
        let scratch = TemporaryFolder()
        let dump = scratch.file("binary.sql")
        var bytes = Data("CREATE TABLE t(x);\n".utf8)
        var rng = SplitMix64(seed: 0xB1_7E5)
        bytes.append(contentsOf: rng.bytes(600).map { $0 == 0x3B || $0 == 0 ? 0x41 : $0 })
        bytes.append(contentsOf: Array(";\n".utf8))
        try bytes.write(to: URL(fileURLWithPath: dump))
        let result = try CLI.run(["import", dump, scratch.file("db.sqlite")])
        #expect(result.status == 1)
        let line = result.stderr.trimmingCharacters(in: .newlines)
        #expect(!line.contains("\n"), "\(line)")
        #expect(!line.unicodeScalars.contains { TerminalText.isControl($0) }, "\(line)")
        #expect(line.count <= dump.count + 260, "\(line.count) characters: \(line)")
    }
}
