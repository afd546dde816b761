import Foundation
import Testing
@testable import datacenter

/// The JSON `diff` writes row by row without Foundation's serializer reads back as what the
/// serializer would write: numbers stay numbers (1 is no `true`), booleans booleans.
@Suite struct JSONTextTests {
    @Test func valuesOfEveryKindReadBackAsThemselves() throws {
        let parsed = try JSONSerialization.jsonObject(with: Data(#"{"one":1,"yes":true,"no":false,"zero":0,"half":0.5,"big":9007199254740993}"#.utf8))
        let native: [String: Any] = ["int": 7, "int64": Int64(-3), "real": 2.25, "bool": true, "null": NSNull(), "text": "a\"b\n",
                                     "list": [1, "two", [3.5]], "nested": ["k": ["v": false]], "inf": Double.infinity, "parsed": parsed]
        let text = Output.jsonText(native)
        let back = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(text.hasPrefix(#"{"bool":true,"inf":"inf","int":7,"int64":-3,"list":[1,"two",[3.5]],"nested":{"k":{"v":false}}"#), "\(text)")
        let again = try #require(back["parsed"] as? [String: Any])
        #expect(Output.jsonText(again) == #"{"big":9007199254740993,"half":0.5,"no":false,"one":1,"yes":true,"zero":0}"#)
        #expect(back["text"] as? String == "a\"b\n" && back["null"] is NSNull && back["real"] as? Double == 2.25)
    }
}
