import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

// What a DAO object remembers between calls to find a call's method and a result's model
// type faster, against looking them up in the config and the registry each time.

private let lookupXML = """
    <module name="Lookup" tableName="items" version="1.0">
      <select id="get" arguments="id" result="{}">select #{id} as id</select>
      <select id="get" arguments="id, name" result="{}">select #{id} as id, #{name} as name</select>
      <select id="find" arguments="name" result="Thing">select #{name} as name</select>
      <select id="all" result="int">select 1</select>
    </module>
    """

private struct Thing: Codable, Sendable, Equatable {
    var name: String?
}

@Suite struct DAOLookupTests {
    /// Random ids (overloads, unknown and misspelt names, ids built at run time) and
    /// argument counts: the method found is the config's, the same object, or the same error.
    @Test(arguments: [UInt64(51), 52])
    func theMethodFoundIsTheConfigsMethod(seed: UInt64) throws {
        let config = try DAOConfig(xml: lookupXML, file: "lookup.xml")
        let dao = DAOObject(config: config, queue: DatabaseQueue(database: try Database.inMemory()))
        var rng = SplitMix64(seed: seed)
        let ids = ["get", "find", "all", "Get", "gets", "missing", "", "fin" + "d", String("get".reversed().reversed())]
        for _ in 0..<500 {
            let id = ids.randomElement(using: &rng)!
            let arity = Int.random(in: 0...3, using: &rng)
            let expected = Result { try config.method(id, arity: arity) }
            let found = Result { try dao.method(id, arity: arity) }
            switch (expected, found) {
            case (.success(let a), .success(let b)): #expect(a === b, "\(id)/\(arity)")
            case (.failure(let a), .failure(let b)): #expect(String(describing: a) == String(describing: b), "\(id)/\(arity)")
            default: Issue.record("\(id)/\(arity): \(expected) vs \(found)")
            }
        }
    }

    /// A type registered between two calls decodes from the next call on, as a registry
    /// looked up every time does.
    @Test func aTypeRegisteredBetweenCallsDecodesFromTheNextCall() throws {
        let config = try DAOConfig(xml: lookupXML, file: "lookup.xml")
        let dao = DAOObject(config: config, queue: DatabaseQueue(database: try Database.inMemory()))
        #expect(try dao.call("find", ["a"]).objects.isEmpty)
        #expect(dao.models.decoder(named: "Thing") == nil)
        dao.models.register(Thing.self)
        #expect(dao.models.decoder(named: "Thing") != nil)
        #expect(dao.models.decoder(named: "Other") == nil)
        #expect(try dao.call("find", ["b"]).objects.map { $0 as? Thing } == [Thing(name: "b")])
        #expect(try dao.call("get", [1, "x"]).value == ["id": 1, "name": "x"])
        #expect(try dao.call("get", [2]).value == ["id": 2])
        #expect(throws: DAOError.self) { try dao.call("get", [1, 2, 3]) }
    }
}
