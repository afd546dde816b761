import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

// Shared by the tests of where values may stand in SQL, one statement per body, and XML
// that could drop text. They check public behaviour (messages, locations, what SQLite
// holds), so each also runs, and fails, on code without those rules.

/// A DAO object on a fresh in-memory database that also holds a `victim` table.
func daoWithVictim(_ methods: String) throws -> (DAOObject, DatabaseQueue) {
    let queue = DatabaseQueue(database: try Database.inMemory())
    try queue.write { db in
        try db.execute("create table items (id integer primary key, name text, owner text)")
        try db.execute("insert into items (name, owner) values ('a', 'ann'), ('b', 'bob')")
        try db.execute("create table victim (x)")
    }
    let xml = "<module name=\"m\" tableName=\"items\">\n\(methods)\n</module>\n"
    return (DAOObject(config: try DAOConfig(xml: xml, file: "ctx.xml"), queue: queue, crypt: KeyRing.empty), queue)
}

func victimExists(_ queue: DatabaseQueue) throws -> Bool {
    try queue.read { db in try db.scalar("select count(*) from sqlite_master where name = 'victim'") } == .integer(1)
}

/// The load error of `body` (wrapped in a module), or nil when it loads.
func contextLoadError(_ body: String) -> DAOConfigError? {
    do {
        _ = try makeConfig(body, file: "ctx.xml")
        return nil
    } catch let error as DAOConfigError {
        return error
    } catch {
        return nil
    }
}

