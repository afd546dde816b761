import DatacenterTestSupport
import Foundation
import Testing
@testable import DatacenterKit

/// `Database.observeRowWrites`: SQLite's pre-update hook, each connection reporting to its
/// own observer, until it stops or the connection closes.
@Suite struct RowWritesTests {
    @Test func eachConnectionReportsItsOwnRowsUntilItStops() throws {
        let folder = TemporaryFolder()
        let a = try Database(path: folder.file("a.db")), b = try Database(path: folder.file("b.db"))
        for db in [a, b] { try db.execute("CREATE TABLE t(x, y AS (x * 2) VIRTUAL, z)") }
        var seenA: [RowWrite] = [], seenB: [RowWrite] = []
        let observingA = a.observeRowWrites { seenA.append($0) }
        let observingB = b.observeRowWrites { seenB.append($0) }
        try a.execute("INSERT INTO t(x, z) VALUES (1, 'one')")
        try b.execute("INSERT INTO t(x, z) VALUES (2, 'two'), (3, 'three')")
        try a.execute("UPDATE t SET z = 'uno' WHERE x = 1")
        #expect(seenA.map(\.kind) == [.insert, .update])
        #expect(seenB.map(\.kind) == [.insert, .insert])
        // Values in the record's order: the virtual column is not stored, and reads as NULL last.
        #expect(seenA[1].old == [.integer(1), .text("one"), .null])
        #expect(seenA[1].new == [.integer(1), .text("uno"), .null])
        #expect(seenB[1].newRowid == 2)
        observingA.stop()
        try a.execute("DELETE FROM t")
        try b.execute("DELETE FROM t WHERE x = 2")
        #expect(seenA.count == 2)
        #expect(seenB.last?.kind == .delete && seenB.last?.old.first == .integer(2))
        b.close()                                              // closing stops it too
        observingB.stop()
        #expect(seenB.count == 3)
    }
}
