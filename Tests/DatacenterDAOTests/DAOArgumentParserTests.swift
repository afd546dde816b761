import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

/// The one parser of typed arguments (`dao call --args`, the browser's form fields).
@Suite struct DAOArgumentParserTests {
    @Test(arguments: [
        ("true", DAOValue.bool(true)),
        ("false", .bool(false)),
        ("null", .nil),
        ("2", .integer(2)),
        ("1.5", .double(1.5)),
        (#""bob""#, .string("bob")),
        (#"  "padded"  "#, .string("padded")),
        (#"["a", 1]"#, .array(["a", 1])),
        (#"{"a": null}"#, .dictionary(["a": .nil])),
        (#"{"$blob": "aGk="}"#, .data(Data("hi".utf8))),
        (#"{"$date": "2026-01-01T00:00:00Z"}"#, .date(Date(timeIntervalSince1970: 1_767_225_600))),
        (#"{"$model": "MessageModel", "content": "hi", "time": 7}"#, .model("MessageModel", ["content": "hi", "time": 7])),
        (#"{"$blob": "aGk=", "other": 1}"#, .dictionary(["$blob": "aGk=", "other": 1])),
    ])
    func valuesAreStrictJSONWithMarkers(_ text: String, _ expected: DAOValue) throws {
        #expect(try DAOArgumentParser.value(text) == expected)
    }

    @Test(arguments: [
        ("flase", "a bare word"),
        ("bob", "a bare word"),
        (#"["bob""#, "an array is not closed"),
        (#""bob"#, "a string is not closed"),
        (#"{"a": 1"#, "an object is not closed"),
        (#"[1]]"#, "closes nothing open"),
    ])
    func textThatIsNotJSONIsRefusedWithAReason(_ text: String, _ reason: String) {
        #expect {
            try DAOArgumentParser.value(text)
        } throws: { error in
            guard case DAOArgumentError.notJSON(let why) = error else { return false }
            return why.contains(reason) && !"\(error)".contains(text)
        }
    }

    @Test func blankTextIsEmptyNotAString() {
        #expect(throws: DAOArgumentError.empty) { try DAOArgumentParser.value("   ") }
    }

    @Test func badMarkersSayWhereTheyAre() {
        #expect(throws: DAOArgumentError.badBlob(path: "[1].picture")) {
            try DAOArgumentParser.arguments(#"[1, {"picture": {"$blob": 5}}]"#)
        }
        #expect(throws: DAOArgumentError.badDate(path: "[0][2]")) {
            try DAOArgumentParser.arguments(#"[[1, 2, {"$date": "yesterday"}]]"#)
        }
        #expect(throws: DAOArgumentError.badModelType(path: "m")) { try DAOArgumentParser.globals(#"{"m": {"$model": ""}}"#) }
        #expect("\(DAOArgumentError.badBlob(path: "[1].picture"))" == #"{"$blob": …} needs a base64 string (at [1].picture)"#)
    }

    @Test func argumentsAreAnArrayAndGlobalsAnObject() throws {
        #expect(throws: DAOArgumentError.notAnArray) { try DAOArgumentParser.arguments(#"{"a": 1}"#) }
        #expect(throws: DAOArgumentError.notAnObject) { try DAOArgumentParser.globals("[1]") }
        let models = try DAOArgumentParser.arguments(#"[[{"$model": "M", "content": {"$blob": "aGk="}}]]"#)
        #expect(models == [.array([.model("M", ["content": .data(Data("hi".utf8))])])])
        #expect(try DAOArgumentParser.globals(#"{"since": {"$date": "2026-01-01T00:00:00Z"}}"#)
            == ["since": .date(Date(timeIntervalSince1970: 1_767_225_600))])
    }

    @Test(arguments: [
        (DAOValue.bool(true), "bool true"),
        (.integer(2), "int 2"),
        (.double(1.5), "double 1.5"),
        (.string("bob"), #"string "bob""#),
        (.nil, "nil"),
        (.data(Data(count: 12)), "data 12 bytes"),
        (.date(Date(timeIntervalSince1970: 1_767_225_600)), "date 2026-01-01T00:00:00Z"),
        (.array([1, 2, 3]), "array of 3"),
        (.dictionary(["b": 1, "a": 2]), "dictionary {a, b}"),
        (.model("MessageModel", ["time": 1, "content": "x"]), "model MessageModel {content, time}"),
    ])
    func typeSummariesSayHowTextWasUnderstood(_ value: DAOValue, _ expected: String) {
        #expect(value.typeSummary() == expected)
    }
}

/// The labels of a rendered call's statements, shared by `dao render` and the browser.
@Test func renderedPartsAreLabelledByWhereTheyComeFrom() throws {
    let config = try DAOConfig(xml: """
        <module name="m" tableName="t">
          <update id="mixed" arguments="list" foreach="list.x">
            <try><step>insert into ${T} values (#{x})</step><step resumable="true">update ${T} set a = 1</step>
            <except>delete from ${T}</except></try>
          </update>
          <update id="one">delete from ${T}</update>
        </module>
        """, file: "p.xml")
    let call = try config.render("mixed", arguments: [[1, 2]], globals: [:], tableName: "t")
    #expect(call.parts.map(\.label) == ["try step", "try resumable step", "except", "try step", "try resumable step", "except"])
    #expect(call.parts.map(\.run) == [0, 0, 0, 1, 1, 1])
    #expect(call.parts[3].heading(inForEach: call.isForEach) == "try step, element 1")
    #expect(call.parts[3].statement.bindings == [.integer(2)])
    #expect(!call.isSingleStatement)
    let one = try config.render("one", arguments: [], globals: [:], tableName: "t")
    #expect(one.parts.map(\.label) == ["statement"])
    #expect(one.isSingleStatement)
}
