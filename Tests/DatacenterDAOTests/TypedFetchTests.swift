import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

/// `fetch(_:_:as:)` gives what decoding the call's value gives, row by row, on every way a
/// call runs (kept read, one statement, steps, a pool's reader), errors included.
@Suite struct TypedFetchTests {
    /// The example's message model, as an app declares it.
    struct Message: Decodable, Equatable {
        var msgId: Int64
        var conversation: String
        var sender: String
        var time: Date
        var content: String?
        var read: Bool
        var starred: Bool
        var missing: String?
    }

    /// A type the rows do not fit.
    struct Strict: Decodable, Equatable {
        var msgId: Int64
        var title: String
    }

    /// A DAO object on the messages example with `count` messages, half of them as models
    /// (their content encrypted), half as dictionaries.
    static func messages(_ folder: TemporaryFolder, count: Int = 12) throws -> DAOObject {
        let key = try EncryptionKey(parsing: String(repeating: "ab", count: 32))
        let dao = try DAOObject(config: try DAOConfig(xml: DAOExamples.messages, file: "messages.xml"),
                                path: folder.file("m.sqlite"), crypt: KeyRing([key]))
        let list: [DAOValue] = (0..<count).map { i in
            let fields: [String: DAOValue] = ["conversation": .string("c\(i % 3)"), "sender": .string(["ann", "bob"][i % 2]),
                                              "time": .integer(1_767_225_600 + Int64(i) * 60), "content": .string("message \(i)")]
            return i % 2 == 0 ? .model("MessageModel", fields) : .dictionary(fields)
        }
        try dao.call("insertMessages", [.array(list)])
        try dao.call("markRead", [[1, 4]])
        return dao
    }

    static func decodedValue<T: Decodable>(_ dao: DAOObject, _ id: String, _ arguments: [DAOValue], as type: T.Type) throws -> [T] {
        switch try dao.call(id, arguments).value {
        case .nil: return []
        case .array(let rows): return try rows.map { try $0.decode(T.self) }
        case let value: return [try value.decode(T.self)]
        }
    }

    @Test func readsWhatTheValuePathReadsOnEveryWay() throws {
        let folder = TemporaryFolder()
        let dao = try Self.messages(folder)
        // getMessage: a kept read after the first call; listMessages: one dynamic statement.
        for id in [1, 2, 5, 12, 99] as [Int64] {
            for _ in 0..<2 {
                #expect(try dao.fetch("getMessage", [.integer(id)], as: Message.self)
                    == Self.decodedValue(dao, "getMessage", [.integer(id)], as: Message.self))
            }
        }
        let lists: [[DAOValue]] = [[nil, [], false, 0], ["c1", ["ann", "bob"], false, 3], ["c0", [], true, 0]]
        for arguments in lists {
            let typed = try dao.fetch("listMessages", arguments, as: Message.self)
            #expect(typed == (try Self.decodedValue(dao, "listMessages", arguments, as: Message.self)))
            #expect(!typed.isEmpty || arguments[2] == true)
        }
        #expect(try dao.fetch("getMessage", [1], as: Message.self).first?.content == "message 0", "decrypted")
        #expect(try dao.fetch("getMessage", [2], as: Message.self).first?.content == "message 1")
    }

    @Test func transactionsPoolsAndMapsReadTheSame() throws {
        let folder = TemporaryFolder()
        let dao = try DAOObject(config: try DAOConfig(xml: """
            <module name="T" initializer="create" tableName="t" version="1.0">
              <update id="create">create table if not exists ${T} (id integer primary key, name text, score real, flag integer)</update>
              <insert id="add" arguments="name, score, flag">insert into ${T} (name, score, flag) values (#{name}, #{score}, #{flag})</insert>
              <map id="row" result="Row"><result property="label" column="name"/></map>
              <select id="stepped" result="[:row]">
                <step resumable="true">select * from no_such_table</step>
                <step>select id, name, score, flag from ${T} order by id</step>
              </select>
              <select id="pooled" result="[{}]" parallel="true">select id, name, score, flag from ${T} order by id</select>
              <select id="one" arguments="id" result="{}">select id, name, score, flag from ${T} where id = #{id}</select>
            </module>
            """, file: "t.xml"), path: folder.file("t.sqlite"))
        try dao.call("add", ["a", 1.5, 1])
        try dao.call("add", [nil, 2, 0])
        try dao.call("add", ["42", nil, nil])
        struct Labelled: Decodable, Equatable { var id: Int; var label: String?; var score: Double?; var flag: Bool? }
        struct Named: Decodable, Equatable { var id: Int64; var name: String?; var score: Float?; var flag: Int? }
        #expect(try dao.fetch("stepped", as: Labelled.self) == Self.decodedValue(dao, "stepped", [], as: Labelled.self))
        #expect(try dao.fetch("stepped", as: Labelled.self).map(\.label) == ["a", nil, "42"])
        #expect(try dao.fetch("pooled", as: Named.self) == Self.decodedValue(dao, "pooled", [], as: Named.self))
        #expect(try dao.fetch("one", [3], as: Named.self) == Self.decodedValue(dao, "one", [3], as: Named.self))
        #expect(try dao.fetch("one", [7], as: Named.self).isEmpty)
    }

    @Test func aRowThatDoesNotFitFailsAsOnTheValuePath() throws {
        let folder = TemporaryFolder()
        let dao = try Self.messages(folder)
        var typedError = "", valueError = ""
        do { _ = try dao.fetch("listMessages", [nil, [], false, 0], as: Strict.self) } catch { typedError = "\(error)" }
        do {
            _ = try Self.decodedValue(dao, "listMessages", [nil, [], false, 0], as: Strict.self)
        } catch {
            valueError = "\(DAOError.resultMapping("\(error)"))"
        }
        #expect(!typedError.isEmpty && typedError == valueError)

        // A message whose content another key encrypted: the row does not decrypt either way.
        let other = try DAOObject(config: try DAOConfig(xml: DAOExamples.messages, file: "messages.xml"), path: folder.file("m.sqlite"),
                                  crypt: KeyRing([try EncryptionKey(parsing: String(repeating: "cd", count: 32))]))
        #expect(throws: DAOError.self) { try other.fetch("getMessage", [1], as: Message.self) }
        #expect(throws: DAOError.self) { try other.call("getMessage", [1]) }
    }
}
