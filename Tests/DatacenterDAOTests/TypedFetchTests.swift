import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

/// `fetch(_:_:as:)` into an app's `Decodable` type, on each way a call runs (a kept read, one
/// dynamic statement, steps, a pool's reader): map property names, decrypted crypt columns,
/// SQLite's loose types read as the struct declares them, and errors as `DAOError`s.
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

    /// A DAO object on the messages example with `count` messages, the even ones models
    /// (their content encrypted), the odd ones dictionaries; messages 1 and 4 read.
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

    static func message(_ id: Int64, read: Bool) -> Message {
        let i = Int(id - 1)
        return Message(msgId: id, conversation: "c\(i % 3)", sender: ["ann", "bob"][i % 2],
                       time: Date(timeIntervalSince1970: 1_767_225_600 + Double(i) * 60), content: "message \(i)",
                       read: read, starred: false, missing: nil)
    }

    @Test func aKeptReadAndADynamicListDecodeTheRowsAsDeclared() throws {
        let folder = TemporaryFolder()
        let dao = try Self.messages(folder)
        // getMessage is a kept read from its second call: both calls read the same.
        for _ in 0..<2 {
            #expect(try dao.fetch("getMessage", [1], as: Message.self) == [Self.message(1, read: true)], "decrypted, mapped")
            #expect(try dao.fetch("getMessage", [2], as: Message.self) == [Self.message(2, read: false)])
            #expect(try dao.fetch("getMessage", [99], as: Message.self).isEmpty)
        }
        #expect(try dao.fetch("listMessages", ["c1", ["ann", "bob"], false, 3], as: Message.self).map(\.msgId) == [11, 8, 5])
        #expect(try dao.fetch("listMessages", [nil, [], true, 0], as: Message.self).count == 10, "unread only")
    }

    @Test func stepsAPoolAndAMapDecodeAsDeclared() throws {
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
            </module>
            """, file: "t.xml"), path: folder.file("t.sqlite"))
        try dao.call("add", ["a", 1.5, 1])
        try dao.call("add", [nil, 2, 0])
        try dao.call("add", ["42", nil, nil])
        struct Labelled: Decodable, Equatable { var id: Int; var label: String?; var score: Double?; var flag: Bool? }
        struct Named: Decodable, Equatable { var id: Int64; var name: String?; var score: Float?; var flag: Int? }
        #expect(try dao.fetch("stepped", as: Labelled.self) == [
            Labelled(id: 1, label: "a", score: 1.5, flag: true), Labelled(id: 2, label: nil, score: 2, flag: false),
            Labelled(id: 3, label: "42", score: nil, flag: nil),
        ])
        #expect(try dao.fetch("pooled", as: Named.self) == [
            Named(id: 1, name: "a", score: 1.5, flag: 1), Named(id: 2, name: nil, score: 2, flag: 0),
            Named(id: 3, name: "42", score: nil, flag: nil),
        ])
    }

    @Test func aRowThatDoesNotFitOrDecryptIsADAOError() throws {
        struct Strict: Decodable { var msgId: Int64; var title: String }
        let folder = TemporaryFolder()
        let dao = try Self.messages(folder)
        #expect {
            _ = try dao.fetch("listMessages", [nil, [], false, 0], as: Strict.self)
        } throws: { error in
            guard case DAOError.resultMapping(let reason) = error else { return false }
            return reason.contains("title")
        }
        // A message whose content another key encrypted does not decrypt.
        let other = try DAOObject(config: try DAOConfig(xml: DAOExamples.messages, file: "messages.xml"), path: folder.file("m.sqlite"),
                                  crypt: KeyRing([try EncryptionKey(parsing: String(repeating: "cd", count: 32))]))
        #expect(throws: DAOError.self) { try other.fetch("getMessage", [1], as: Message.self) }
    }
}
