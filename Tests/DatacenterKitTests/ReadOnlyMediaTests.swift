import DatacenterTestSupport
import Foundation
import Testing
@testable import DatacenterKit

/// A database on read-only media: a WAL file opens (immutable, as nothing can change it)
/// unless a journal or WAL with content lies beside it, and what cannot be opened is said in
/// plain words, never as "SQLite error 14".
@Suite struct ReadOnlyMediaTests {
    /// A WAL database closed cleanly (no -wal or -shm left), in a folder whose name needs
    /// escaping in a URI.
    private func walDatabase(_ folder: TemporaryFolder) throws -> String {
        let dir = folder.file("a dir?#%")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/wal.db"
        let db = try Database(path: path)
        try db.execute("PRAGMA journal_mode = WAL")
        try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (42)")
        db.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        return path
    }

    @Test func onReadOnlyMediaACleanFileOpensImmutable() throws {
        let folder = TemporaryFolder()
        let path = try walDatabase(folder)
        let opening = ReadOnlyMedia.openingPath(for: path) { _ in true }
        #expect(opening.hasPrefix("file:/") && opening.hasSuffix("?immutable=1"), "\(opening)")
        #expect(opening.contains("a%20dir%3F%23%25/wal.db"), "\(opening)")
        // The URI names the very file: it reads, and makes no -shm beside it.
        let db = try Database(path: opening, mode: .readOnly)
        #expect(try db.scalar("SELECT x FROM t") == .integer(42))
        db.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        // Elsewhere, the path as it is.
        #expect(ReadOnlyMedia.openingPath(for: path) { _ in false } == path)
    }

    @Test func aJournalOrWALWithContentIsNeverIgnored() throws {
        let folder = TemporaryFolder()
        let path = try walDatabase(folder)
        for suffix in ["-wal", "-journal"] {
            #expect(FileManager.default.createFile(atPath: path + suffix, contents: Data([1, 2, 3])))
            #expect(ReadOnlyMedia.openingPath(for: path) { _ in true } == path, "\(suffix)")
            try FileManager.default.removeItem(atPath: path + suffix)
            #expect(FileManager.default.createFile(atPath: path + suffix, contents: Data()))
            #expect(ReadOnlyMedia.openingPath(for: path) { _ in true } != path, "an empty \(suffix) holds nothing")
            try FileManager.default.removeItem(atPath: path + suffix)
        }
    }

    @Test func aFileThatCannotBeOpenedIsSaidInPlainWords() throws {
        let folder = TemporaryFolder()
        let path = folder.file("no such folder") + "/x.db"
        let error = try #require(throws: DatabaseError.self) { try Database(path: path, mode: .readWriteExisting) }
        #expect(error.code == 14)   // SQLITE_CANTOPEN
        #expect(error.description == "cannot open \(path) (or the journal beside it): no such file or folder", "\(error)")
    }

    /// The real thing, where this machine lets the tests mount a file system read-only.
    @Test(.enabled(if: ReadOnlyMount.available)) func aWALStoreOnAReadOnlyMountReads() throws {
        let folder = TemporaryFolder()
        let mount = try ReadOnlyMount(at: folder.file("mnt"))
        defer { mount.unmount() }
        let root = mount.path + "/root"
        do {
            let center = try DataCenter(rootPath: root, crypt: KeyRing.empty)
            try center.commonPreferences.setString("kept", forKey: "k", business: "b")
        }
        #expect(!FileManager.default.fileExists(atPath: root + "/common.sqlite-shm"), "the store was left open")
        try mount.makeReadOnly()
        let reader = try DataCenter(rootPath: root, crypt: KeyRing.empty, readOnly: true)
        #expect(try reader.commonPreferences.string(forKey: "k", business: "b") == "kept")
        // Opened for writing, it cannot open: said so.
        let error = try #require(throws: DatabaseError.self) { try Database(path: root + "/common.sqlite", mode: .readWriteExisting) }
        #expect(error.description.hasSuffix("common.sqlite (or the journal beside it): the file system is read-only"), "\(error)")
    }
}

/// A tmpfs mounted for a test, then remounted read-only: only where the tests may mount.
struct ReadOnlyMount {
    let path: String

    /// True when this process may mount a file system (root with the capability to).
    static let available: Bool = {
        let probe = NSTemporaryDirectory() + "datacenter-mount-probe-\(getpid())"
        guard (try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)) != nil else { return false }
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", probe]) else { return false }
        return run(["umount", probe])
    }()

    init(at path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", path]) else {
            throw CocoaError(.fileWriteNoPermission)
        }
        self.path = path
    }

    func makeReadOnly() throws {
        guard Self.run(["mount", "-o", "remount,ro", path]) else { throw CocoaError(.fileWriteNoPermission) }
    }

    func unmount() { _ = Self.run(["umount", path]) }

    @discardableResult
    private static func run(_ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
