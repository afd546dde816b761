import Foundation
import Testing
@testable import DatacenterKit

/// Binding values to `?`, `?N`, `:a`, `@a`, `$a`; errors; multi-statement SQL; the statement cache.
@Suite struct BindingTests {
    static let values: [DatabaseValue] = [
        .null, .integer(0), .integer(42), .integer(.min), .integer(.max), .real(3.25), .real(-0.5),
        .text(""), .text("héllo, 日本 ✓"), .text("with\u{0}nul"), .blob(Data()), .blob(Data([0, 1, 2, 0xFF])),
    ]

    @Test(arguments: values)
    func everyValueTypeRoundTripsThroughATable(_ value: DatabaseValue) throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE t(v)")
        try db.execute("INSERT INTO t VALUES (?)", [value])
        let row = try #require(try db.queryFirst("SELECT v, typeof(v) FROM t"))
        #expect(row[0] == value)
        #expect(row[1] == .text(value.storageClassName))
    }

    @Test func boolsAreStoredAsIntegers() throws {
        let db = try Database.inMemory()
        #expect(try db.scalar("SELECT ?", [.bool(true)]) == .integer(1))
        #expect(try db.scalar("SELECT ?", [.bool(false)]) == .integer(0))
        #expect(try db.scalar("SELECT typeof(?)", [true]) == .text("integer"))
    }

    @Test func anonymousParametersTakeValuesInOrder() throws {
        let db = try Database.inMemory()
        let row = try #require(try db.queryFirst("SELECT ?, ?, ?", [1, "two", 3.5]))
        #expect(row.values == [.integer(1), .text("two"), .real(3.5)])
    }

    @Test func indexedParametersReuseAValue() throws {
        let db = try Database.inMemory()
        let row = try #require(try db.queryFirst("SELECT ?2, ?1, ?2, ?1 || ?2", ["a", "b"]))
        #expect(row.values == [.text("b"), .text("a"), .text("b"), .text("ab")])
    }

    @Test(arguments: [":", "@", "$"])
    func namedParametersTakeValuesByName(_ prefix: String) throws {
        let db = try Database.inMemory()
        let sql = "SELECT \(prefix)first, \(prefix)second, \(prefix)first"
        let row = try #require(try db.queryFirst(sql, ["first": 1, "second": "x"]))
        #expect(row.values == [.integer(1), .text("x"), .integer(1)])
    }

    @Test func allThreeNamedPrefixesReadTheSameName() throws {
        let db = try Database.inMemory()
        let row = try #require(try db.queryFirst("SELECT :a, @a, $a", ["a": "same"]))
        #expect(row.values == [.text("same"), .text("same"), .text("same")])
    }

    @Test func namedParametersInAnUpdate() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)")
        try db.execute("INSERT INTO t(id, name) VALUES (:id, :name)", ["id": 5, "name": "ann"])
        try db.execute("UPDATE t SET name = @name WHERE id = $id", ["id": 5, "name": "bo"])
        #expect(try db.scalar("SELECT name FROM t WHERE id = 5") == .text("bo"))
    }

    @Test func tooFewValuesIsARangeError() throws {
        let db = try Database.inMemory()
        let error = #expect(throws: DatabaseError.self) { try db.query("SELECT ?, ?", [1]) }
        #expect(error?.code == SQLiteCode.range)
        let none = #expect(throws: DatabaseError.self) { try db.query("SELECT ?") }
        #expect(none?.code == SQLiteCode.range)
    }

    @Test func missingNamedValueIsARangeError() throws {
        let db = try Database.inMemory()
        let error = #expect(throws: DatabaseError.self) { try db.query("SELECT :a, :b", ["a": 1]) }
        #expect(error?.code == SQLiteCode.range)
        #expect(error?.description.contains(":b") == true)
    }

    @Test func tooManyPositionalValuesIsARangeError() throws {
        let db = try Database.inMemory()
        let error = #expect(throws: DatabaseError.self) { try db.query("SELECT ?", [1, 2]) }
        #expect(error?.code == SQLiteCode.range)
    }

    @Test func aStatementCanBeReboundAfterAnError() throws {
        let db = try Database.inMemory()
        #expect(throws: DatabaseError.self) { try db.query("SELECT ?, ?", [1]) }
        #expect(try db.queryFirst("SELECT ?, ?", [1, 2])?.values == [.integer(1), .integer(2)])
    }

    @Test func errorsNeverContainBoundValues() throws {
        let secret = "hunter2-very-secret-token"
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE s(v TEXT UNIQUE, n TEXT CHECK (length(n) < 5))")
        try db.execute("INSERT INTO s(v, n) VALUES (?, 'ok')", [.text(secret)])

        var errors: [DatabaseError] = []
        // A constraint failure, with the secret bound positionally.
        if let e = #expect(throws: DatabaseError.self, performing: {
            try db.execute("INSERT INTO s(v, n) VALUES (?, 'ok')", [.text(secret)])
        }) { errors.append(e) }
        // A CHECK failure, with the secret bound by name.
        if let e = #expect(throws: DatabaseError.self, performing: {
            try db.execute("INSERT INTO s(v, n) VALUES ('other', :n)", ["n": .text(secret)])
        }) { errors.append(e) }
        // A binding failure, where the secret is one of the values.
        if let e = #expect(throws: DatabaseError.self, performing: {
            try db.execute("INSERT INTO s(v, n) VALUES (?, ?)", [.text(secret)])
        }) { errors.append(e) }
        // A failure in a multi-statement execute.
        if let e = #expect(throws: DatabaseError.self, performing: {
            try db.execute("SELECT ?; INSERT INTO s(v, n) VALUES (?, 'ok')", [.text("x"), .text(secret)])
        }) { errors.append(e) }
        #expect(errors.count == 4)
        #expect(errors.first?.code == SQLiteCode.constraint)
        for error in errors {
            for text in [error.description, error.message, error.localizedDescription, String(reflecting: error), error.sql ?? ""] {
                #expect(!text.contains("hunter2"), "an error shows a bound value: \(text)")
            }
        }
    }

    @Test func multiStatementExecuteConsumesPositionalValuesInOrder() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE t(a, b)")
        try db.execute("""
            INSERT INTO t VALUES (?, ?);
            INSERT INTO t VALUES (?, 'fixed');
            INSERT INTO t VALUES (?, ?)
            """, [1, "one", 2, 3, "three"])
        let rows = try db.query("SELECT a, b FROM t ORDER BY a")
        #expect(rows.map(\.values) == [
            [.integer(1), .text("one")], [.integer(2), .text("fixed")], [.integer(3), .text("three")],
        ])
    }

    @Test func multiStatementExecuteWithNamedValues() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE t(a, b)")
        try db.execute("INSERT INTO t VALUES (:x, 1); INSERT INTO t VALUES (:x, :y)", ["x": "ex", "y": 2])
        let rows = try db.query("SELECT a, b FROM t ORDER BY b")
        #expect(rows.map(\.values) == [[.text("ex"), .integer(1)], [.text("ex"), .integer(2)]])
    }

    /// A failing statement stops the sequence: by default (DBConnect's) what ran before it
    /// is undone too; with `rollsBackOnError` off it is kept. The rest never runs.
    @Test func multiStatementExecuteStopsAtTheFailingStatement() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE t(a UNIQUE)")
        #expect(throws: DatabaseError.self) {
            try db.execute("INSERT INTO t VALUES (1); INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)")
        }
        #expect(try db.query("SELECT a FROM t").isEmpty)
        db.sqlSequences.rollsBackOnError = false
        #expect(throws: DatabaseError.self) {
            try db.execute("INSERT INTO t VALUES (1); INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)")
        }
        #expect(try db.query("SELECT a FROM t").map(\.values) == [[.integer(1)]])
    }

    @Test func executeScriptRunsEveryStatement() throws {
        let db = try Database.inMemory()
        try db.executeScript("""
            -- a schema
            CREATE TABLE a(x TEXT);
            CREATE TABLE b(y);  /* trailing comment */
            INSERT INTO a VALUES ('semi;colon'), ('new
            line');
            INSERT INTO b SELECT count(*) FROM a;
            """)
        #expect(try db.query("SELECT x FROM a ORDER BY rowid").map { $0[0] } == [.text("semi;colon"), .text("new\nline")])
        #expect(try db.scalar("SELECT y FROM b") == .integer(2))
        try db.executeScript("")
        try db.executeScript("  -- nothing  ")
    }

    @Test func theSameSQLTwiceIsPreparedOnce() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE t(x)")
        let before = db.cachedStatementCount
        try db.execute("INSERT INTO t VALUES (?)", [1])
        try db.execute("INSERT INTO t VALUES (?)", [2])
        #expect(db.cachedStatementCount == before + 1)
        _ = try db.query("SELECT x FROM t")
        _ = try db.query("SELECT x FROM t")
        #expect(db.cachedStatementCount == before + 2)
        let a = try db.cachedStatement("SELECT x FROM t")
        let b = try db.cachedStatement("SELECT x FROM t")
        #expect(a === b)
        #expect(try db.query("SELECT x FROM t ORDER BY x").map { $0[0] } == [.integer(1), .integer(2)])
        db.clearStatementCache()
        #expect(db.cachedStatementCount == 0)
    }

    @Test func theStatementCacheIsBounded() throws {
        let db = try Database.inMemory()
        for i in 0..<(Database.statementCacheLimit + 10) {
            _ = try db.scalar("SELECT \(i)")
            #expect(db.cachedStatementCount <= Database.statementCacheLimit)
        }
        #expect(try db.scalar("SELECT 5") == .integer(5))
    }

    @Test func statementReportsItsShape() throws {
        let db = try Database.inMemory()
        let statement = try db.makeStatement("SELECT ?3 AS a, :x AS b")
        #expect(statement.parameterCount == 4)   // ?3 takes 1–3, :x is the fourth
        #expect(statement.columnNames == ["a", "b"])
        #expect(statement.isReadOnly)
        #expect(try !db.makeStatement("CREATE TABLE t(x)").isReadOnly)
    }
}
