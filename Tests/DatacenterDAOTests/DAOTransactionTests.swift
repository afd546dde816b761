import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

private let itemsXML = """
    <module name="Items" initializer="create" tableName="items" version="1.0">
      <update id="create">create table if not exists ${T} (id integer primary key, name text not null unique)</update>
      <insert id="add" arguments="$name">insert into ${T} (name) values (#{name})</insert>
      <insert id="addAll" arguments="names" foreach="names.n">insert into ${T} (name) values (#{n})</insert>
      <select id="count" result="int" parallel="true">select count(*) from ${T}</select>
      <select id="names" result="[string]" parallel="true">select name from ${T} order by id</select>
    </module>
    """

/// Signals between two threads, with a timeout so a wrong engine fails instead of hanging.
private final class Gate: @unchecked Sendable {
    let semaphore = DispatchSemaphore(value: 0)
    func open() { semaphore.signal() }
    func wait(seconds: Double = 5) -> Bool { semaphore.wait(timeout: .now() + seconds) == .success }
}

@Suite struct DAOTransactionTests {
    @Test func parallelSelectsSeeCommittedStateWhileAnotherConnectionWrites() throws {
        let folder = TemporaryFolder()
        let config = try DAOConfig(xml: itemsXML, file: "items.xml")
        let writer = try DAOObject(config: config, path: folder.file("db.sqlite"))
        let reader = try DAOObject(config: config, path: folder.file("db.sqlite"))
        try writer.call("add", ["committed"])
        #expect(try reader.call("count").value == 1)

        try writer.beginTransaction()
        try writer.call("add", ["pending"])
        #expect(try writer.call("count").value == 2) // the writer sees its own transaction

        let start = Date()
        let results = ResultBox()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            results.append(Result { try reader.call("names").value })
        }
        #expect(Date().timeIntervalSince(start) < 2, "readers waited for the write transaction")
        #expect(results.values.count == 4)
        for result in results.values { #expect(try result.get() == ["committed"]) }

        try writer.commit()
        #expect(try reader.call("names").value == ["committed", "pending"])
    }

    @Test func parallelSelectIsNotBlockedByATransactionOfTheSameObject() throws {
        let folder = TemporaryFolder()
        let dao = try DAOObject(config: try DAOConfig(xml: itemsXML, file: "items.xml"), path: folder.file("db.sqlite"))
        try dao.call("add", ["committed"])
        let inside = Gate(), readerDone = Gate()
        let writerFinished = Gate()
        let writerSawReader = ResultBox()
        Thread.detachNewThread {
            writerSawReader.append(Result {
                try dao.transaction { dao in
                    try dao.call("add", ["pending"])
                    inside.open()
                    return readerDone.wait() ? .bool(true) : .bool(false)
                }
            })
            writerFinished.open()
        }
        #expect(inside.wait())
        let start = Date()
        let count = try dao.call("count").value
        readerDone.open()
        #expect(Date().timeIntervalSince(start) < 2, "the parallel select waited for the transaction")
        #expect(count == 1)
        #expect(writerFinished.wait())
        #expect(try writerSawReader.values.first?.get() == .bool(true))
        #expect(try dao.call("count").value == 2)
    }

    @Test func foreachRollsBackEveryElementWhenOneFails() throws {
        let folder = TemporaryFolder()
        let dao = try DAOObject(config: try DAOConfig(xml: itemsXML, file: "items.xml"), path: folder.file("db.sqlite"))
        try dao.call("add", ["before"])
        // "b" is inserted twice: the third element violates the unique constraint.
        #expect(throws: DAOError.self) { try dao.call("addAll", [["a", "b", "b", "c"]]) }
        #expect(try dao.call("names").value == ["before"])
        // Inside a caller's transaction, the failed call is undone alone (a savepoint).
        try dao.transaction { dao in
            try dao.call("add", ["kept"])
            #expect(throws: DAOError.self) { try dao.call("addAll", [["x", "kept"]]) }
        }
        #expect(try dao.call("names").value == ["before", "kept"])
        let ok = try dao.call("addAll", [["x", "y"]])
        #expect(ok.changes == 2)
        #expect(try dao.call("count").value == 4)
    }
}

/// Results gathered from several threads.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Result<DAOValue, Error>] = []
    func append(_ result: Result<DAOValue, Error>) { lock.lock(); items.append(result); lock.unlock() }
    var values: [Result<DAOValue, Error>] { lock.lock(); defer { lock.unlock() }; return items }
}
