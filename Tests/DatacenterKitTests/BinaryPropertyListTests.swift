import Foundation
import Testing
@testable import DatacenterKit

/// The binary property-list writer against Foundation's reader: every kind of value, nested,
/// with the sizes that change the encoding (counts past 14, integers past each byte width,
/// non-ASCII strings, hundreds of objects so references take two bytes).
@Suite struct BinaryPropertyListTests {
    static let samples: [PropertyListValue] = [
        .integer(0), .integer(255), .integer(256), .integer(65_536), .integer(1 << 40), .integer(-1), .integer(.min),
        .real(2.5), .real(-0.0), .bool(true), .bool(false), .string(""), .string("ascii"), .string("日本語 😀"),
        .string(String(repeating: "x", count: 300)), .data(Data()), .data(Data((0..<40).map { UInt8($0) })),
        .date(Date(timeIntervalSinceReferenceDate: 12_345.5)),
        .array([]), .array((0..<20).map { .integer(Int64($0)) }),
        .dictionary(["a": .array([.integer(1), .dictionary(["b": .array([.string("c")])])]), "z": .bool(false)]),
        .array((0..<300).map { .string("item \($0)") }),
    ]

    @Test(arguments: samples)
    func writtenListsReadBackEqual(_ value: PropertyListValue) throws {
        let data = try value.binaryPropertyList()
        #expect(data.prefix(8) == Data("bplist00".utf8))
        #expect(try PropertyListValue(propertyList: data) == value)
    }

    @Test func nestedCollectionsInADictionaryRoundTrip() throws {
        let value = PropertyListValue.dictionary((0..<20).reduce(into: [:]) { d, i in
            d["key\(i)"] = .array([.integer(Int64(i)), .dictionary(["n": .real(Double(i) / 2)])])
        })
        #expect(try PropertyListValue(propertyList: value.binaryPropertyList()) == value)
    }
}
