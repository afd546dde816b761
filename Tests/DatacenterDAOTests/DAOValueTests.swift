import Foundation
import Testing
@testable import DatacenterDAO

struct Author: Codable, Equatable {
    var name: String
    var born: Int?
}

struct Book: Codable, Equatable {
    var title: String
    var year: Int
    var authors: [Author]
    var cover: Data
    var published: Date
    var tags: [String: Int]
}

@Test func encodableModelBecomesATaggedModelWithNestedTypes() throws {
    let book = Book(title: "Dune", year: 1965, authors: [Author(name: "Frank", born: nil)],
                    cover: Data([1, 2]), published: Date(timeIntervalSince1970: 100), tags: ["sf": 1])
    let value = try DAOValue(encoding: book)
    #expect(value.modelTypeName == "Book")
    #expect(value.member("title") == "Dune")
    #expect(value.member("year") == 1965)
    #expect(value.member("cover") == .data(Data([1, 2])))
    #expect(value.member("published") == .date(Date(timeIntervalSince1970: 100)))
    #expect(value.value(at: ["authors", "count"]) == 1)
    #expect(value.value(at: ["authors", "0"]).modelTypeName == "Author")
    #expect(value.value(at: ["authors", "0", "name"]) == "Frank")
    #expect(value.value(at: ["authors", "0", "born"]) == .nil)
    // A Swift dictionary stays a plain dictionary, not a model.
    #expect(value.member("tags") == ["sf": 1])
    #expect(value.value(at: ["missing", "deeper"]) == .nil)
}

@Test func scalarsAndCollectionsEncodeDirectly() throws {
    #expect(try DAOValue(encoding: "x") == "x")
    #expect(try DAOValue(encoding: [1, 2, 3]) == [1, 2, 3])
    #expect(try DAOValue(encoding: Optional<Int>.none) == .nil)
    #expect(try DAOValue(encoding: true) == .bool(true))
    #expect(throws: EncodingError.self) { try DAOValue(encoding: UInt64.max) }
}

@Test func countOfCollectionsStringsAndADictionaryKeyNamedCountWins() {
    #expect(DAOValue.array([1, 2]).member("count") == 2)
    #expect(DAOValue.dictionary(["a": 1, "b": 2, "c": 3]).member("count") == 3)
    #expect(DAOValue.dictionary(["count": 9]).member("count") == 9)
    #expect(DAOValue.string("héllo").member("count") == 5)
    #expect(DAOValue.integer(3).member("count") == .nil)
}

@Test func modelDecodesFromARowDictionaryLeniently() throws {
    let row: DAOValue = ["title": "Dune", "year": .double(1965), "authors": .string(#"[{"name":"F"}]"#),
                         "cover": .string("ab"), "published": .integer(100), "tags": .string(#"{"sf":1}"#)]
    let book = try row.decode(Book.self)
    #expect(book == Book(title: "Dune", year: 1965, authors: [Author(name: "F", born: nil)], cover: Data("ab".utf8),
                         published: Date(timeIntervalSince1970: 100), tags: ["sf": 1]))
    struct Flag: Decodable { var on: Bool }
    #expect(try DAOValue.dictionary(["on": 1]).decode(Flag.self).on == true)
    #expect(throws: DecodingError.self) { try DAOValue.dictionary(["on": "maybe"]).decode(Flag.self) }
}

@Test func databaseValueConversion() {
    #expect(DAOValue.bool(true).databaseValue == .integer(1))
    #expect(DAOValue.date(Date(timeIntervalSince1970: 12.5)).databaseValue == .real(12.5))
    #expect(DAOValue.dictionary(["b": 1, "a": [true]]).databaseValue == .text(#"{"a":[true],"b":1}"#))
    #expect(DAOValue(.blob(Data([9]))) == .data(Data([9])))
}

/// The keyed container reads an optional field with one lookup (`decodeIfPresent`): held to
/// what the standard library's default (`contains`, then `decodeNil`, then `decode`) reads,
/// on a field that is missing, nil, present, or of the wrong kind.
@Test func anOptionalFieldReadsAsTheDefaultDecodeIfPresentReads() throws {
    /// A type that would read a nil value as something (a present one says whether it was nil).
    struct Marker: Decodable, Equatable {
        var wasNil: Bool
        init(from decoder: any Decoder) throws { wasNil = try decoder.singleValueContainer().decodeNil() }
    }
    struct Optionals: Decodable, Equatable {
        var text: String?; var whole: Int64?; var int: Int?; var real: Double?; var flag: Bool?; var list: [Int]?
        var raw: Marker?
    }
    /// The same fields, read through the protocol's default implementation.
    struct Defaults: Decodable, Equatable {
        var text: String?; var whole: Int64?; var int: Int?; var real: Double?; var flag: Bool?; var list: [Int]?
        var raw: Marker?
        enum CodingKeys: String, CodingKey { case text, whole, int, real, flag, list, raw }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            func read<T: Decodable>(_ key: CodingKeys) throws -> T? {
                guard c.contains(key), try !c.decodeNil(forKey: key) else { return nil }
                return try c.decode(T.self, forKey: key)
            }
            text = try read(.text); whole = try read(.whole); int = try read(.int); real = try read(.real)
            flag = try read(.flag); list = try read(.list); raw = try read(.raw)
        }
    }
    func same(_ row: [String: DAOValue]) throws -> Optionals? {
        let value = DAOValue.dictionary(row)
        let fast = Result { try value.decode(Optionals.self) }
        let slow = Result { try value.decode(Defaults.self) }
        switch (fast, slow) {
        case (.success(let f), .success(let s)):
            #expect([f.text == s.text, f.whole == s.whole, f.int == s.int, f.real == s.real, f.flag == s.flag,
                      f.list == s.list, f.raw == s.raw].allSatisfy { $0 }, "\(row)")
            return f
        case (.failure(let f), .failure(let s)):
            #expect("\(f)" == "\(s)", "the same error, the same coding path")
            return nil
        default:
            Issue.record("\(row): one read succeeded, the other failed")
            return nil
        }
    }
    let missing = try same([:])
    #expect(missing?.text == nil && missing?.raw == nil)
    let nils = try same(["text": .nil, "whole": .nil, "int": .nil, "real": .nil, "flag": .nil, "list": .nil, "raw": .nil])
    #expect(nils?.whole == nil && nils?.raw == nil, "a nil value is an absent one, even for a type that reads nil")
    let present = try same(["text": 5, "whole": "42", "int": .double(3), "real": "2.5", "flag": "yes",
                            "list": .string("[1,2]"), "raw": .data(Data([1]))])
    #expect(present?.raw?.wasNil == false)
    #expect(present?.text == "5" && present?.whole == 42 && present?.flag == true && present?.list == [1, 2])
    #expect(try same(["whole": "many"]) == nil, "a value of the wrong kind is an error, not nil")
    #expect(try same(["flag": .double(0.5), "int": .double(0.5)]) == nil)
}
