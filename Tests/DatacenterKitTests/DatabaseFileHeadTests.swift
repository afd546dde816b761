import Foundation
import Testing
@testable import DatacenterKit
import DatacenterTestSupport

/// Looking at a database file's first bytes (`DatabaseFileKind`, key detection, a snapshot's
/// salt) while this process has the file open must not drop the locks its connections hold:
/// with them gone, a writer in another process takes the file as unused when it closes,
/// checkpoints and deletes the WAL, and the connection here reads a snapshot that never
/// changes again.
@Suite struct DatabaseFileHeadTests {
    @Test func lookingAtAnOpenFileKeepsItsConnectionsLive() throws {
        let folder = TemporaryFolder()
        let path = folder.file("live.db")
        let setup = try Database(path: path)
        try setup.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES(1)")
        setup.close()
        let reader = try Database(path: path, mode: .readOnly)
        #expect(try reader.scalar("SELECT count(*) FROM t", cached: false) == .integer(1))
        let before = try reader.scalar("PRAGMA data_version", cached: false)

        #expect(try DatabaseFileKind.of(path: path) == .plain)
        #expect(!DatabaseFileKind.looksEncryptedWithPlaintextHeader(path: path))
        #expect(DatabaseFileHead.read(path, count: 16) == Data("SQLite format 3\0".utf8))

        // Another process writes and closes: it must not take itself for the last one.
        let write = try runProcess("/usr/bin/env", ["sqlite3", path, "INSERT INTO t VALUES(2)"])
        #expect(write.status == 0, "\(write.output)")
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "the WAL stays while a connection here is open")
        #expect(try reader.scalar("PRAGMA data_version", cached: false) != before, "the write is seen")
        #expect(try reader.scalar("SELECT count(*) FROM t", cached: false) == .integer(2))
    }

    @Test func theHeadOfAFileIsItsBytes() throws {
        let folder = TemporaryFolder()
        let path = folder.file("bytes")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        #expect(DatabaseFileHead.read(path, count: 16) == Data([1, 2, 3]), "fewer at the end of the file")
        #expect(DatabaseFileHead.read(folder.file("missing"), count: 16) == nil)
        try FileManager.default.createSymbolicLink(atPath: folder.file("link"), withDestinationPath: "bytes")
        #expect(DatabaseFileHead.read(folder.file("link"), count: 2) == Data([1, 2]), "through a link, as SQLite opens one")
        try Data().write(to: URL(fileURLWithPath: folder.file("empty")))
        #expect(try DatabaseFileKind.of(path: folder.file("empty")) == .empty)
    }
}
