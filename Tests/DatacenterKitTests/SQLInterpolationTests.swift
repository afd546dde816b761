import Foundation
import Testing
@testable import DatacenterKit

/// `SQL` binds interpolated values, quotes identifiers, and splices only `raw:` text.
@Suite struct SQLInterpolationTests {
    @Test func valuesBecomeArgumentsNeverText() {
        let name = "x'; DROP TABLE t; --"
        let sql: SQL = "SELECT * FROM \(identifier: "my \"t\"") WHERE name = \(name) AND n > \(3) AND z IS \(nil as Int?) ORDER BY \(raw: "id")"
        #expect(sql.text == "SELECT * FROM \"my \"\"t\"\"\" WHERE name = ? AND n > ? AND z IS ? ORDER BY id")
        #expect(sql.arguments == [.text(name), .integer(3), .null])
    }

    @Test func anInjectionAttemptIsStoredVerbatimAndDropsNothing() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE x(name TEXT)")
        let evil = "'; DROP TABLE x; --"
        try db.execute("INSERT INTO x(name) VALUES (\(evil))" as SQL)
        let rows = try db.query("SELECT name FROM x WHERE name = \(evil)" as SQL)
        #expect(rows.map { $0[0] } == [.text(evil)])
        #expect(try db.scalar("SELECT count(*) FROM sqlite_master WHERE name = \("x")" as SQL)?.int64Value == 1)
    }

    @Test func nestedSQLKeepsItsArgumentsInOrder() {
        let condition: SQL = "a = \(1) AND b = \("two")"
        let sql: SQL = "SELECT * FROM t WHERE \(condition) AND c = \(3.5)"
        #expect(sql.text == "SELECT * FROM t WHERE a = ? AND b = ? AND c = ?")
        #expect(sql.arguments == [.integer(1), .text("two"), .real(3.5)])
    }
}
