import Foundation
import Testing
@testable import DatacenterKit

/// `Database.reads(of:)`: the columns and functions a statement reads, as SQLite's authorizer
/// reports them while preparing it; the connection's own authorizer is back after.
@Suite struct StatementReadsTests {
    static func make(_ folder: TemporaryFolder) throws -> String {
        let path = folder.file("reads.sqlite")
        try Database(path: path).execute("CREATE TABLE m(id INTEGER PRIMARY KEY, body TEXT, who TEXT); CREATE TABLE n(id, body)")
        return path
    }

    @Test func eachReferenceIsOneReadAndStarIsEveryColumn() throws {
        let folder = TemporaryFolder()
        let db = try Database(path: try Self.make(folder))
        let reads = try db.reads(of: "SELECT body, upper(m.body) FROM m WHERE who = 'x' ORDER BY length(body)")
        #expect(reads.count(of: "body", in: "m") == 3)
        #expect(reads.count(of: "who", in: "m") == 1)
        #expect(reads.count(of: "id", in: "m") == 0)
        #expect(reads.functions.isSuperset(of: ["upper", "length"]))
        let star = try db.reads(of: "SELECT * FROM m JOIN n ON n.id = m.id")
        #expect(star.count(of: "body", in: "m") == 1)
        #expect(star.count(of: "body", in: "n") == 1)
        #expect(star.count(of: "id", in: "n") == 2, "the join's n.id and the star's")
        #expect(throws: DatabaseError.self) { try db.reads(of: "SELECT nope FROM m") }
    }

    /// Nothing runs, and each connection has its authorizer back: a read-only one refuses
    /// what it refused before (and while preparing), a read-write one has none.
    @Test func theConnectionsAuthorizerIsBackAfter() throws {
        let folder = TemporaryFolder()
        let path = try Self.make(folder)
        let readOnly = try Database(path: path, mode: .readOnly)
        _ = try readOnly.reads(of: "SELECT body FROM m")
        let target = folder.file("other.sqlite")
        #expect(throws: DatabaseError.self) { try readOnly.execute("ATTACH '\(target)' AS other") }
        // The read-only rules hold while preparing too (a pragma is refused as it is prepared).
        #expect(throws: DatabaseError.self) { try readOnly.reads(of: "PRAGMA user_version = 5") }
        #expect(!FileManager.default.fileExists(atPath: target))
        let writable = try Database(path: path)
        _ = try writable.reads(of: "INSERT INTO m(body) VALUES ('not run')")
        #expect(try writable.scalar("SELECT count(*) FROM m") == .integer(0), "reads(of:) runs nothing")
        try writable.execute("ATTACH '\(target)' AS other")
        #expect(FileManager.default.fileExists(atPath: target))
    }
}
