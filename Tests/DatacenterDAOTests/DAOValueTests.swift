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
