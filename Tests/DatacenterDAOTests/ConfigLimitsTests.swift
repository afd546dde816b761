import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

/// The bounds of `DAOLimits`: a small hostile config fails fast with a located error instead
/// of taking gigabytes, minutes or the stack; configs within the bounds still load.
@Suite struct ConfigLimitsTests {
    /// The seconds `body` takes.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    // MARK: Element nesting

    static func nestedIfs(_ depth: Int) -> String {
        "<module name=\"m\" tableName=\"t\">\n<upgrade toVersion=\"1.1\">\n<update id=\"u\" arguments=\"a\">"
            + String(repeating: "<if true=\"a\">x", count: depth) + String(repeating: "</if>", count: depth)
            + "</update>\n</upgrade>\n</module>"
    }

    @Test func libxml2RefusesElementsNestedTooDeepWithALocation() throws {
        let xml = "<module name=\"m\">\n<update id=\"u\" arguments=\"a\">\n"
            + String(repeating: "<if true=\"a\">", count: 100_000) + String(repeating: "</if>", count: 100_000) + "</update></module>"
        #expect { try DAOConfig(xml: xml, file: "deep.xml") } throws: { error in
            guard let error = error as? DAOConfigError, case .xmlSyntax = error.kind else { return false }
            return error.location.line == 3 && error.description.count < 300
        }
        let lint = DAOLinter.lint(xml: xml, file: "deep.xml")
        #expect(lint.count == 1 && lint[0].severity == .error)
    }

    @Test func theDeepestAcceptedNestingRendersLintsAndPrepares() throws {
        // The module, update and 250 ifs: within libxml2's 256 levels.
        let method = "<module name=\"m\" tableName=\"t\">\n<update id=\"u\" arguments=\"a\">"
            + String(repeating: "<if true=\"a\">x", count: 250) + String(repeating: "</if>", count: 250) + "</update>\n</module>"
        let config = try DAOConfig(xml: method)
        let rendered = try config.render("u", arguments: [1])
        #expect(rendered.statements[0].sql == String(repeating: "x", count: 250))
        #expect(DAOLinter.lint(xml: method).allSatisfy { $0.severity == .warning })

        let upgrade = "<module name=\"m\" tableName=\"t\" version=\"1.1\">\n<update id=\"create\">create table ${T} (x)</update>\n"
            + "<upgrade toVersion=\"1.1\"><step>" + String(repeating: "<if true=\"1\">", count: 250) + "select 1"
            + String(repeating: "</if>", count: 250) + "</step></upgrade>\n</module>"
        let folder = DAOTestFolder()
        let path = folder.file("p.sqlite")
        try Database(path: path).execute("CREATE TABLE t(x)")
        let plan = try TablePreparation.plan(config: try DAOConfig(xml: upgrade), table: "t", in: try Database(path: path, mode: .readOnly))
        #expect(!plan.steps.isEmpty)
    }

}
}
