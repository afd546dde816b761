import DatacenterDemo
import Testing
@testable import DatacenterDAO

/// Which arguments hold plain objects whose properties a `<crypt>` rule names (written as
/// they are, since the rules apply to models of their class).
@Suite struct PlainCryptFieldsTests {
    @Test func plainObjectsAreFoundAtAnyDepthAndModelsAreNot() throws {
        let config = try DAOConfig(xml: DAOExamples.messages, file: "messages.xml")
        let plain: DAOValue = ["content": "x", "sender": "s"]
        let model: DAOValue = .model("MessageModel", ["content": "x"])
        #expect(config.plainCryptFields(in: [plain]) == [PlainCryptField(argument: 0, property: "content", classes: ["MessageModel"])])
        #expect(config.plainCryptFields(in: [model]).isEmpty)
        #expect(config.plainCryptFields(in: [1, .array([model, plain, plain])]).map(\.argument) == [1], "once per argument")
        #expect(config.plainCryptFields(in: [.model("Other", ["note": plain])]).map(\.argument) == [0], "inside a model's field")
        #expect(config.plainCryptFields(in: [["sender": "s"], "content"]).isEmpty)
    }
}
