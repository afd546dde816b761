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

    /// Consts `c0 = "abcd"`, `c(n+1) = "${cn}${cn}"`: const n is 4·2ⁿ bytes, one per line.
    static func doublingConsts(levels: Int) -> String {
        var lines = ["<module name=\"m\" tableName=\"t\">", "  <const c0=\"abcd\"/>"]
        for level in 1...levels { lines.append("  <const c\(level)=\"${c\(level - 1)}${c\(level - 1)}\"/>") }
        lines.append("  <select id=\"a\" result=\"[string]\">select '${c\(levels)}' from ${T}</select>")
        lines.append("</module>")
        return lines.joined(separator: "\n")
    }

    /// Consts `k0 = "x"`, `k(n+1) = "${kn}"`: a chain `length` long, one per line.
    static func constChain(length: Int) -> String {
        var lines = ["<module name=\"m\" tableName=\"t\">", "  <const k0=\"x\"/>"]
        for n in 1..<length { lines.append("  <const k\(n)=\"${k\(n - 1)}\"/>") }
        lines.append("  <select id=\"a\" result=\"[string]\">select '${k\(length - 1)}' from ${T}</select>")
        lines.append("</module>")
        return lines.joined(separator: "\n")
    }

    // MARK: ${} splicing

    @Test func doublingConstsStopAtTheSizeLimitWithTheConstsLocation() throws {
        // c18 is 1 MiB exactly; c19 is the first over the limit (line 21: two lines before c0's kin).
        var caught: DAOConfigError?
        let time = Self.seconds {
            #expect(throws: DAOConfigError.self) {
                do { _ = try DAOConfig(xml: Self.doublingConsts(levels: 24), file: "d.xml") } catch let e as DAOConfigError {
                    caught = e
                    throw e
                }
            }
        }
        let error = try #require(caught)
        #expect(error.kind == .splicedTooLarge("c19", limit: DAOLimits.splicedSize))
        #expect(error.location.line == 21 && error.location.column > 1, "\(error)")
        #expect(error.description.hasPrefix("d.xml:21:"))
        #expect(error.description.contains("${c19}") && error.description.contains("1048576 bytes"))
        #expect(time < 5, "took \(time) s")
        // Within the limit it loads, and the statement holds the whole expansion.
        let config = try DAOConfig(xml: Self.doublingConsts(levels: 10))
        let sql = try config.render("a", arguments: []).statements[0].sql
        #expect(sql.utf8.count == "select '' from t".utf8.count + 4 << 10)
    }

    @Test func aStatementThatSplicesTooMuchIsLocated() throws {
        let half = String(repeating: "y", count: DAOLimits.splicedSize / 2 - 16)
        let xml = "<module name=\"m\">\n<const big=\"\(half)\"/>\n<select id=\"a\">select '${big}${big}${big}'</select>\n</module>"
        #expect { try DAOConfig(xml: xml, file: "s.xml") } throws: { error in
            guard let error = error as? DAOConfigError else { return false }
            return error.kind == .splicedTooLarge("", limit: DAOLimits.splicedSize) && error.location.line == 3
                && error.description.count < 200
        }
        _ = try DAOConfig(xml: xml.replacingOccurrences(of: "${big}${big}${big}", with: "${big}${big}"))
    }

    @Test func aConstChainDeeperThanTheLimitIsLocatedAtTheConst() throws {
        // k0 … k64 is 64 references deep from k64: loads.
        let config = try DAOConfig(xml: Self.constChain(length: DAOLimits.spliceDepth + 1))
        #expect(try config.render("a", arguments: [], tableName: "t").statements[0].sql == "select 'x' from t")
        // One more is over the limit: the error names the const 65 references deep (line 67).
        #expect { try DAOConfig(xml: Self.constChain(length: DAOLimits.spliceDepth + 2), file: "c.xml") } throws: { error in
            guard let error = error as? DAOConfigError, case .spliceTooDeep(let name, 64) = error.kind else { return false }
            return name == "k65" && error.location.line == 67 && error.location.column > 1
                && error.description.contains("more than 64 levels")
        }
    }

    @Test func aLongConstChainFailsFast() throws {
        let xml = Self.constChain(length: 4000)
        let time = Self.seconds {
            #expect(throws: DAOConfigError.self) { try DAOConfig(xml: xml) }
        }
        #expect(time < 5, "took \(time) s")
    }

    @Test func cyclesAreStillFound() {
        let xml = "<module name=\"m\">\n<const a=\"${b}\" b=\"${c}\" c=\"${a}\"/>\n<select id=\"s\">select 1</select>\n</module>"
        #expect { try DAOConfig(xml: xml) } throws: { error in
            guard let error = error as? DAOConfigError, case .referenceCycle(let names) = error.kind else { return false }
            return names == ["a", "b", "c", "a"] && error.location.line == 2
        }
    }

    @Test func templateExpansionIsBoundedToo() {
        let star = String(repeating: "*", count: 2000)
        let names = (0..<1000).map { "n\($0)" }.joined(separator: ", ")
        let xml = "<module name=\"m\">\n<select id=\"s\">select %{'\(star)', \(names)}</select>\n</module>"
        #expect { try DAOConfig(xml: xml) } throws: { error in
            (error as? DAOConfigError)?.kind == .splicedTooLarge("", limit: DAOLimits.splicedSize)
        }
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
