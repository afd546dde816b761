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

    /// A DAO object whose selects run as steps (`stepped`, through a map), in a reader pool
    /// (`pooled`) and as a scalar (`count`).
    static func steppedAndPooled(_ folder: TemporaryFolder) throws -> DAOObject {
        try DAOObject(config: try DAOConfig(xml: """
            <module name="T" initializer="create" tableName="t" version="1.0">
              <update id="create">create table if not exists ${T} (id integer primary key, name text, score real, flag integer)</update>
              <insert id="add" arguments="name, score, flag">insert into ${T} (name, score, flag) values (#{name}, #{score}, #{flag})</insert>
              <map id="row" result="Row"><result property="label" column="name"/></map>
              <select id="stepped" result="[:row]">
                <step resumable="true">select * from no_such_table</step>
                <step>select id, name, score, flag from ${T} order by id</step>
              </select>
              <select id="pooled" result="[{}]" parallel="true">select id, name, score, flag from ${T} order by id</select>
              <select id="count" result="int">select count(*) from ${T}</select>
            </module>
            """, file: "t.xml"), path: folder.file("t.sqlite"))
    }

    @Test func stepsAPoolAndAMapDecodeAsDeclared() throws {
        let folder = TemporaryFolder()
        let dao = try Self.steppedAndPooled(folder)
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

    // MARK: Held to the value path

    /// Decodes its fields in an order that depends on the row: a later row asks for other
    /// fields than the first, so the learnt order misses and the lookup must answer.
    struct Wavering: Decodable, Equatable {
        var msgId: Int64
        var first: String
        var second: String?
        enum CodingKeys: String, CodingKey { case msgId, sender, conversation, content }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            msgId = try c.decode(Int64.self, forKey: .msgId)
            if msgId % 2 == 0 {
                first = try c.decode(String.self, forKey: .sender)
                second = try c.decodeIfPresent(String.self, forKey: .content)
            } else {
                first = try c.decode(String.self, forKey: .conversation)
                second = nil
            }
        }
    }

    /// Reads the row as one value, through a single-value container.
    struct Whole: Decodable, Equatable {
        var message: Message
        init(from decoder: any Decoder) throws { message = try decoder.singleValueContainer().decode(Message.self) }
    }

    /// Every type, on every message, reads through the columns what it reads through the
    /// call's value (`fetchValue`, the path the typed read skips): same rows, same errors.
    @Test func theTypedReadGivesWhatTheValuePathGives() throws {
        let folder = TemporaryFolder()
        let dao = try Self.messages(folder)
        func same<T: Decodable & Equatable>(_ id: String, _ arguments: [DAOValue], _ type: T.Type,
                                            sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
            let typed = try dao.fetch(id, arguments, as: type)
            #expect(typed == (try dao.fetchValue(id, arguments, as: type)), sourceLocation: sourceLocation)
            #expect(!typed.isEmpty, sourceLocation: sourceLocation)
        }
        let all: [DAOValue] = [nil, [], false, 0]
        for _ in 0..<2 { // the second round reads with the orders the first learnt
            try same("listMessages", all, Message.self)
            try same("listMessages", all, Wavering.self)
            try same("listMessages", all, Whole.self)
            try same("listMessages", all, [String: String?].self)
            for id: DAOValue in [1, 2, 3] {
                try same("getMessage", [id], Message.self)
                try same("getMessage", [id], Wavering.self)
                try same("getMessage", [id], Whole.self)
            }
        }
    }

    @Test func aCryptColumnTheTypeDoesNotReadStillFailsTheRow() throws {
        struct Header: Decodable { var msgId: Int64; var sender: String }
        let folder = TemporaryFolder()
        _ = try Self.messages(folder)
        let other = try DAOObject(config: try DAOConfig(xml: DAOExamples.messages, file: "messages.xml"), path: folder.file("m.sqlite"),
                                  crypt: KeyRing([try EncryptionKey(parsing: String(repeating: "cd", count: 32))]))
        for read in [{ try other.fetch("getMessage", [1], as: Header.self) }, { try other.fetchValue("getMessage", [1], as: Header.self) }] {
            #expect {
                _ = try read()
            } throws: { error in
                guard case DAOError.crypt = error else { return false }
                return true
            }
        }
        #expect(try other.fetch("getMessage", [2], as: Header.self).map(\.msgId) == [2], "a plaintext row reads")
    }

    /// A list's rows are read in one loop as they are stepped: a row after the first that
    /// does not decrypt fails the list as it fails the value path, whether the type reads
    /// the crypt column or not; the rows before it alone read.
    @Test func aListRowAfterTheFirstThatDoesNotDecryptFailsTheList() throws {
        struct Header: Decodable, Equatable { var msgId: Int64; var content: String? }
        struct HeaderRow: DAORowDecodable {
            var msgId: Int64
            init(row: borrowing DAORow) throws { msgId = try row["msgId"] }
        }
        let folder = TemporaryFolder()
        let dao = try Self.messages(folder)
        let other = try DAOObject(config: try DAOConfig(xml: DAOExamples.messages, file: "messages.xml"), path: folder.file("m.sqlite"),
                                  crypt: KeyRing([try EncryptionKey(parsing: String(repeating: "cd", count: 32))]))
        // The oldest message, so the last row of a list newest first.
        try other.call("insertMessage", [.model("MessageModel", ["conversation": "c0", "sender": "ann", "time": 1_767_225_000,
                                                                 "content": "another key's"])])
        let all: [DAOValue] = [nil, [], false, 0]
        for read in [{ _ = try dao.fetch("listMessages", all, as: Header.self) },
                     { _ = try dao.fetch("listMessages", all, as: HeaderRow.self) },
                     { _ = try dao.fetchValue("listMessages", all, as: Header.self) }] {
            #expect {
                try read()
            } throws: { error in
                guard case DAOError.crypt = error else { return false }
                return true
            }
        }
        let before = try dao.fetch("listMessages", [nil, [], false, 12], as: Header.self)
        #expect(before == (try dao.fetchValue("listMessages", [nil, [], false, 12], as: Header.self)))
        #expect(before.map(\.msgId) == Array((1...12).reversed()))
        #expect(try dao.fetch("listMessages", [nil, [], false, 12], as: HeaderRow.self).map(\.msgId) == before.map(\.msgId))
    }

    // MARK: DAORowDecodable

    /// The example's message read field by field, as `Message` declares it.
    struct MessageRow: DAORowDecodable, Equatable {
        var message: Message
        init(row: borrowing DAORow) throws {
            let msgId: Int64 = try row["msgId"], conversation: String = try row["conversation"]
            let sender: String = try row["sender"], time: Date = try row["time"], content: String? = try row["content"]
            let read: Bool = try row["read"], starred: Bool = try row["starred"], missing: String? = try row["missing"]
            message = Message(msgId: msgId, conversation: conversation, sender: sender, time: time, content: content,
                              read: read, starred: starred, missing: missing)
        }
    }

    /// Adopts both protocols, reading differently in each: `fetch` takes `init(row:)`.
    struct Both: Decodable, DAORowDecodable, Equatable {
        var via: String
        init(via: String) { self.via = via }
        init(from decoder: any Decoder) throws { via = "decodable" }
        init(row: borrowing DAORow) throws { via = "row" }
    }

    /// A row type reads, on every way a call runs, what the `Decodable` type reads through
    /// the call's value.
    @Test func aRowTypeReadsWhatTheDecodableTypeReads() throws {
        let folder = TemporaryFolder()
        let dao = try Self.messages(folder)
        func same(_ id: String, _ arguments: [DAOValue], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
            let rows = try dao.fetch(id, arguments, as: MessageRow.self).map(\.message)
            #expect(rows == (try dao.fetchValue(id, arguments, as: Message.self)), sourceLocation: sourceLocation)
            #expect(!rows.isEmpty, sourceLocation: sourceLocation)
        }
        for _ in 0..<2 { // kept read from the second call; learnt field orders in the second round
            try same("listMessages", [nil, [], false, 0])
            try same("listMessages", ["c1", ["ann", "bob"], false, 3])
            for id: DAOValue in [1, 2, 3] { try same("getMessage", [id]) }
        }
        #expect(try dao.fetch("getMessage", [1], as: Both.self) == [Both(via: "row")])
        #expect(try dao.fetch("getMessage", [99], as: MessageRow.self).isEmpty)
    }

    @Test func aRowTypeReadsStepsAndPoolsThroughTheirValues() throws {
        let folder = TemporaryFolder()
        let dao = try Self.steppedAndPooled(folder)
        try dao.call("add", ["a", 1.5, 1])
        try dao.call("add", ["42", nil, nil])
        struct Labelled: DAORowDecodable, Equatable {
            var id: Int, label: String?, score: Double?, flag: Bool?, fields: [String]
            init(id: Int, label: String?, score: Double?, flag: Bool?, fields: [String]) {
                (self.id, self.label, self.score, self.flag, self.fields) = (id, label, score, flag, fields)
            }
            init(row: borrowing DAORow) throws {
                id = try row["id"]
                label = row.contains("label") ? try row["label"] : "no label"
                score = try row["score"]
                flag = try row["flag"]
                fields = row.fieldNames.sorted()
            }
        }
        let mapped = ["flag", "id", "label", "score"], plain = ["flag", "id", "name", "score"]
        #expect(try dao.fetch("stepped", as: Labelled.self) == [
            Labelled(id: 1, label: "a", score: 1.5, flag: true, fields: mapped),
            Labelled(id: 2, label: "42", score: nil, flag: nil, fields: mapped),
        ])
        #expect(try dao.fetch("pooled", as: Labelled.self) == [
            Labelled(id: 1, label: "no label", score: 1.5, flag: true, fields: plain),
            Labelled(id: 2, label: "no label", score: nil, flag: nil, fields: plain),
        ])
        #expect {
            _ = try dao.fetch("count", as: Labelled.self)
        } throws: { error in
            guard case DAOError.resultMapping(let reason) = error else { return false }
            return reason.contains("integer")
        }
    }

    @Test func aRowTypeGetsTheErrorsTheDecodableTypeGets() throws {
        struct NoTitle: DAORowDecodable { init(row: borrowing DAORow) throws { _ = try row["title"] as String } }
        struct NumericSender: DAORowDecodable { init(row: borrowing DAORow) throws { _ = try row.decode(Int.self, "sender") } }
        struct Header: DAORowDecodable {
            var msgId: Int64
            init(row: borrowing DAORow) throws { msgId = try row["msgId"] }
        }
        let folder = TemporaryFolder()
        let dao = try Self.messages(folder)
        func reason(_ body: () throws -> Void) -> String? {
            do { try body() } catch DAOError.resultMapping(let reason) { return reason } catch { return "\(error)" }
            return nil
        }
        let title = reason { _ = try dao.fetch("getMessage", [1], as: NoTitle.self) }
        #expect(title?.contains("keyNotFound") == true && title?.contains("title") == true, "\(title ?? "")")
        let sender = reason { _ = try dao.fetch("listMessages", [nil, [], false, 0], as: NumericSender.self) }
        #expect(sender?.contains("typeMismatch") == true && sender?.contains("sender") == true, "\(sender ?? "")")
        // A message whose content another key encrypted fails the row, read or not.
        let other = try DAOObject(config: try DAOConfig(xml: DAOExamples.messages, file: "messages.xml"), path: folder.file("m.sqlite"),
                                  crypt: KeyRing([try EncryptionKey(parsing: String(repeating: "cd", count: 32))]))
        #expect {
            _ = try other.fetch("getMessage", [1], as: Header.self)
        } throws: { error in
            guard case DAOError.crypt = error else { return false }
            return true
        }
        #expect(try other.fetch("getMessage", [2], as: Header.self).map(\.msgId) == [2], "a plaintext row reads")
    }

    // MARK: Columns read directly

    /// One field, `v`, of type `T`, read by `Decodable`.
    struct Field<T: Decodable & Equatable>: Decodable, Equatable { var v: T }

    /// The same field read by `init(row:)`.
    struct FieldRow<T: DAOFieldDecodable & Equatable>: DAORowDecodable, Equatable {
        var v: T
        init(row: borrowing DAORow) throws { v = try row["v"] }
    }

    /// A column with no type affinity holding each of SQLite's storage classes: integers
    /// (small, negative, too wide for narrow types), whole and fractional reals, numeric and
    /// other text, blobs (UTF-8 and not) and NULL.
    static func looseColumn(_ folder: TemporaryFolder) throws -> (DAOObject, [DAOValue]) {
        let dao = try DAOObject(config: try DAOConfig(xml: """
            <module name="L" initializer="create" tableName="loose" version="1.0">
              <update id="create">create table if not exists ${T} (id integer primary key, v)</update>
              <insert id="add" arguments="v">insert into ${T} (v) values (#{v})</insert>
              <select id="one" arguments="id" result="{}">select v from ${T} where id = #{id}</select>
              <select id="some" arguments="ids" result="[{}]">
                select v from ${T} where id in <foreach item="i" collection="ids" open="(" separator="," close=")">#{i}</foreach>
              </select>
            </module>
            """, file: "l.xml"), path: folder.file("l.sqlite"))
        let values: [DAOValue] = [1, 0, -5, 300, .integer(.max), 2.0, 2.5, -0.0, "12", " 7 ", "abc", "", "true", "2.5",
                                  .data(Data("hi".utf8)), .data(Data([0xFF, 0x01])), .nil]
        for value in values { try dao.call("add", [value]) }
        return (dao, (1...values.count).map { .integer(Int64($0)) })
    }

    /// What a read gave: the value, or that it failed.
    enum Outcome<T: Equatable>: Equatable {
        case value(T?)
        case failed
        init(_ body: () throws -> [T]) {
            do { self = .value(try body().first) } catch { self = .failed }
        }
    }

    /// Every storage class read as every field type: straight from the column (a kept read,
    /// then a one-statement list), `Decodable` and row types alike, gives what the value path
    /// gives, value or failure; `Decodable` errors read the same too.
    @Test func eachStorageClassReadsAsTheValuePathReadsIt() throws {
        let folder = TemporaryFolder()
        let (dao, ids) = try Self.looseColumn(folder)
        func same<T: Decodable & DAOFieldDecodable & Equatable>(_ type: T.Type, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
            for id in ids {
                let expected = Outcome { try dao.fetchValue("one", [id], as: Field<T>.self).map(\.v) }
                for round in 0..<2 { // rendered, then kept
                    let decoded = Outcome { try dao.fetch("one", [id], as: Field<T>.self).map(\.v) }
                    let read = Outcome { try dao.fetch("one", [id], as: FieldRow<T>.self).map(\.v) }
                    let listed = Outcome { try dao.fetch("some", [[id]], as: FieldRow<T>.self).map(\.v) }
                    let message = "\(T.self) from row \(id), round \(round)"
                    #expect(decoded == expected, "\(message)", sourceLocation: sourceLocation)
                    #expect(read == expected, "\(message)", sourceLocation: sourceLocation)
                    #expect(listed == expected, "\(message)", sourceLocation: sourceLocation)
                }
                if case .failed = expected {
                    let typed = (try? dao.fetch("one", [id], as: Field<T>.self)).map { _ in "" } ?? Self.failure { try dao.fetch("one", [id], as: Field<T>.self) }
                    #expect(typed == Self.failure { try dao.fetchValue("one", [id], as: Field<T>.self) }, sourceLocation: sourceLocation)
                }
            }
        }
        try same(Int64.self); try same(Int.self); try same(Int8.self); try same(UInt8.self); try same(UInt64.self)
        try same(Double.self); try same(Float.self); try same(Bool.self); try same(String.self); try same(Data.self)
        try same(Int64?.self); try same(Double?.self); try same(Bool?.self); try same(String?.self); try same(Float?.self)
        // The reads succeed where the storage class is the type's own, and convert or fail elsewhere.
        #expect(try dao.fetch("one", [1], as: FieldRow<Int64>.self).map(\.v) == [1])
        #expect(try dao.fetch("one", [9], as: FieldRow<Int64>.self).map(\.v) == [12], "numeric text")
        #expect(try dao.fetch("one", [1], as: FieldRow<String>.self).map(\.v) == ["1"], "an integer as text")
        #expect(try dao.fetch("one", [17], as: FieldRow<String?>.self).map(\.v) == [nil])
        #expect(Outcome { try dao.fetch("one", [5], as: FieldRow<Int8>.self).map(\.v) } == .failed, "too wide")
    }

    /// The description of the error `body` throws ("" when it throws none).
    static func failure(_ body: () throws -> some Any) -> String {
        do { _ = try body() } catch { return "\(error)" }
        return ""
    }

    /// Keeps the decoder it is read with, as a type may (to read more later): a decoder that
    /// outlives its row holds nothing of the call, so the call ends cleanly.
    struct KeepsDecoder: Decodable {
        nonisolated(unsafe) static var kept: [any Decoder] = []
        var msgId: Int64
        init(from decoder: any Decoder) throws {
            Self.kept.append(decoder)
            msgId = try decoder.container(keyedBy: CodingKeys.self).decode(Int64.self, forKey: .msgId)
        }
        enum CodingKeys: String, CodingKey { case msgId }
    }

    @Test func aTypeThatKeepsItsDecoderReadsAndEndsTheCall() throws {
        let folder = TemporaryFolder()
        let dao = try Self.messages(folder)
        #expect(try dao.fetch("getMessage", [2], as: KeepsDecoder.self).map(\.msgId) == [2])
        #expect(try dao.fetch("listMessages", [nil, [], false, 3], as: KeepsDecoder.self).map(\.msgId) == [12, 11, 10])
        #expect(KeepsDecoder.kept.count == 4)
        KeepsDecoder.kept = []
    }

    /// Watches the decoder it is read with (weakly) and reads its id and content; throws
    /// after reading its id when it is `failing`.
    struct LentDecoder: Decodable {
        nonisolated(unsafe) static weak var decoder: AnyObject?
        nonisolated(unsafe) static var failing: Int64?
        var msgId: Int64
        var content: String?
        init(from decoder: any Decoder) throws {
            Self.decoder = decoder as AnyObject
            let container = try decoder.container(keyedBy: CodingKeys.self)
            msgId = try container.decode(Int64.self, forKey: .msgId)
            if msgId == Self.failing { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "failing")) }
            content = try container.decode(String?.self, forKey: .content)
        }
        enum CodingKeys: String, CodingKey { case msgId, content }
    }

    /// Each get reads its own row with a decoder of its own: after a get as another type,
    /// after a row that failed while its fields' order was being learnt, and with the
    /// decryptor set since (a wrong key fails, the right one reads again). No decoder
    /// outlives its read unless the type kept it, and one the type kept still reads.
    @Test func eachGetReadsItsOwnRowAndFreesItsDecoder() throws {
        let folder = TemporaryFolder()
        let dao = try Self.messages(folder)
        func get(_ id: Int64) throws -> [LentDecoder] { try dao.fetch("getMessage", [.integer(id)], as: LentDecoder.self) }
        _ = try dao.fetch("getMessage", [12], as: Message.self) // prepares: the next gets are kept reads
        LentDecoder.failing = 12
        #expect(throws: DAOError.self) { try get(12) } // fails on the first row its decoder reads
        LentDecoder.failing = nil
        // Messages 12, 10 and 8 are plain; 11 and 9 encrypted.
        #expect(try get(11).map(\.content) == ["message 10"], "decrypted")
        #expect(LentDecoder.decoder == nil, "a decoder outlived its read")
        #expect(try get(12).map(\.content) == ["message 11"])
        #expect(try dao.fetch("getMessage", [5], as: Message.self) == [Self.message(5, read: false)])
        #expect(try get(6).map(\.msgId) == [6])

        let right = dao.decryptor
        dao.decryptor = KeyRing([try EncryptionKey(parsing: String(repeating: "cd", count: 32))])
        #expect(throws: DAOError.self) { try get(11) }
        #expect(try get(12).map(\.content) == ["message 11"], "plain content reads with any key")
        dao.decryptor = right
        #expect(try get(11).map(\.content) == ["message 10"])

        var kept: [any Decoder] = []
        KeepsOwnDecoder.keep = { kept.append($0) }
        for id: Int64 in [12, 11] { #expect(try dao.fetch("getMessage", [.integer(id)], as: KeepsOwnDecoder.self).map(\.msgId) == [id]) }
        KeepsOwnDecoder.keep = { _ in }
        #expect(kept.count == 2 && kept[0] as AnyObject !== kept[1] as AnyObject, "one decoder for two reads")
        #expect(try kept[0].container(keyedBy: KeepsOwnDecoder.CodingKeys.self).contains(.msgId), "still reads")
        #expect(try get(12).map(\.content) == ["message 11"])
    }

    /// Hands the decoder it is read with to `keep`.
    struct KeepsOwnDecoder: Decodable {
        nonisolated(unsafe) static var keep: (any Decoder) -> Void = { _ in }
        var msgId: Int64
        init(from decoder: any Decoder) throws {
            Self.keep(decoder)
            msgId = try decoder.container(keyedBy: CodingKeys.self).decode(Int64.self, forKey: .msgId)
        }
        enum CodingKeys: String, CodingKey { case msgId }
    }

    /// Watches the decoder it is read with (weakly), reads its id through a container of
    /// the row and through the container kept from the first row, and its sender through a
    /// container of another key type.
    struct WatchesDecoder: Decodable {
        nonisolated(unsafe) static weak var decoder: AnyObject?
        nonisolated(unsafe) static var firstContainer: KeyedDecodingContainer<CodingKeys>?
        var msgId: Int64
        var throughFirst: Int64
        var sender: String
        init(from decoder: any Decoder) throws {
            Self.decoder = decoder as AnyObject
            let container = try decoder.container(keyedBy: CodingKeys.self)
            msgId = try container.decode(Int64.self, forKey: .msgId)
            if Self.firstContainer == nil { Self.firstContainer = container }
            throughFirst = try Self.firstContainer!.decode(Int64.self, forKey: .msgId)
            sender = try decoder.container(keyedBy: SenderKey.self).decode(String.self, forKey: .sender)
        }
        enum CodingKeys: String, CodingKey { case msgId }
        enum SenderKey: String, CodingKey { case sender }
    }

    /// The rows of a `Decodable` list: a type that reads with two key types, or through a
    /// container it kept from the first row, reads each row (the row the decoder is on), and
    /// the decoder is freed when the call ends.
    @Test func aDecodableListReadsEachRowAndFreesItsDecoder() throws {
        let folder = TemporaryFolder()
        let dao = try Self.messages(folder)
        let rows = try dao.fetch("listMessages", [nil, [], false, 5], as: WatchesDecoder.self)
        #expect(rows.map(\.msgId) == [12, 11, 10, 9, 8])
        #expect(rows.map(\.throughFirst) == [12, 11, 10, 9, 8], "a container kept from the first row reads the current row")
        #expect(rows.map(\.sender) == ["bob", "ann", "bob", "ann", "bob"])
        WatchesDecoder.firstContainer = nil
        #expect(WatchesDecoder.decoder == nil, "the decoder outlived its call")
    }
}
