import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

/// The bounds of `DAOLimits`: a small hostile config fails fast with a located error instead
/// of taking gigabytes, minutes or the stack; configs within the bounds still load.
@Suite struct ConfigLimitsTests {
    /// The work `body` does, counted on a `WorkMeter` (no clock: a bound on seconds fails at
    /// random on a busy machine, a bound on counted work holds on any).
    static func work(_ body: () throws -> Void) rethrows -> WorkMeter { try WorkMeter.measure(body) }

    /// Counts `body`'s work at a tenth of `size` and at `size`, and expects every counter to
    /// grow linearly: at most 15 × (plus a constant) from the small run to the large one, where
    /// quadratic work grows a hundredfold. Not 12: hashed lookups probe more buckets in a
    /// fuller table, and how many depends on the process's random hash seed (method
    /// comparisons were seen at 12.18 × once in about ten runs). Returns the meter of the run
    /// at `size`.
    @discardableResult
    static func expectLinear(size: Int, sourceLocation: Testing.SourceLocation = #_sourceLocation,
                             _ body: (Int) throws -> Void) rethrows -> WorkMeter {
        let small = try work { try body(size / 10) }
        let large = try work { try body(size) }
        for (counter, amount) in large.all {
            #expect(amount <= small[counter] * 15 + 1_000, "\(counter): \(small[counter]) at \(size / 10), \(amount) at \(size)",
                    sourceLocation: sourceLocation)
        }
        return large
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
        let work = Self.work {
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
        // Each const is spliced once (memoized): c1 … c19 append 2 × 4 × (2 + … + 2¹⁸) bytes in
        // all, under 4 MiB, where splicing each reference afresh would be exponential.
        #expect(work[.splicedBytes] < 4 << 20, "\(work.all)")
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
        let work = Self.work {
            #expect(throws: DAOConfigError.self) { try DAOConfig(xml: xml) }
        }
        // It stops at the depth limit: about 65 one-byte splices, not one per const in the chain
        // for each of the 4000 (8 million), nor a search of the whole file per const.
        #expect(work[.splicedBytes] < 1_000, "\(work.all)")
        #expect(work[.searchedBytes] < xml.utf8.count, "\(work.all)")
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
            // In the config's words, not libxml2's ("use XML_PARSE_HUGE option").
            return error.location.line == 3 && error.description.count < 300
                && error.description.contains("nested more than 256 levels deep") && !error.description.contains("XML_PARSE")
        }
        let lint = DAOLinter.lint(xml: xml, file: "deep.xml")
        #expect(lint.count == 1 && lint[0].severity == .error)
    }

    @Test func aNULByteIsNamedWhereItStands() throws {
        let data = Data("<module name=\"m\">\n<select id=\"s\">select 1".utf8) + Data([0]) + Data("</select>\n</module>".utf8)
        #expect { try ConfigParser.parse(data, file: "nul.xml") } throws: { error in
            guard let error = error as? DAOConfigError else { return false }
            return error.description.hasPrefix("nul.xml:2:24:") && error.description.contains("a NUL byte")
                && !error.description.contains("Premature end of data")
        }
    }

    @Test func theDeepestAcceptedNestingRendersLintsAndPrepares() throws {
        // The module, update and 250 ifs: within libxml2's 256 levels.
        let method = "<module name=\"m\" tableName=\"t\">\n<update id=\"u\" arguments=\"a\">"
            + String(repeating: "<if true=\"a\">x", count: 250) + String(repeating: "</if>", count: 250) + "</update>\n</module>"
        let config = try DAOConfig(xml: method)
        let rendered = try config.render("u", arguments: [1])
        // Each <if>'s x meets the next at an element's edge: a space keeps them two tokens.
        #expect(rendered.statements[0].sql == Array(repeating: "x", count: 250).joined(separator: " "))
        #expect(DAOLinter.lint(xml: method).allSatisfy { $0.severity == .warning })

        let upgrade = "<module name=\"m\" tableName=\"t\" version=\"1.1\">\n<update id=\"create\">create table ${T} (x)</update>\n"
            + "<upgrade toVersion=\"1.1\"><step>" + String(repeating: "<if true=\"1\">", count: 250) + "select 1"
            + String(repeating: "</if>", count: 250) + "</step></upgrade>\n</module>"
        let folder = TemporaryFolder()
        let path = folder.file("p.sqlite")
        try Database(path: path).execute("CREATE TABLE t(x)")
        let plan = try TablePreparation.plan(config: try DAOConfig(xml: upgrade), table: "t", in: try Database(path: path, mode: .readOnly))
        #expect(!plan.steps.isEmpty)
    }

    // MARK: Sizes stay linear

    static func manyMethods(_ count: Int) -> String {
        var xml = "<module name=\"m\" tableName=\"t\" initializer=\"m0\">\n"
        xml.reserveCapacity(count * 60)
        for n in 0..<count { xml += "<update id=\"m\(n)\">delete from ${T} where x = \(n)</update>\n" }
        return xml + "</module>\n"
    }

    @Test func manyMethodsLintInLinearTime() throws {
        let xml = Self.manyMethods(20_000)
        var findings: [DAOLintDiagnostic] = []
        // A list search for duplicates compares n² / 2 pairs (2 × 10⁸ here); a hashed one a few
        // per method (a lookup and an insert, each probing a bucket or two).
        let work = Self.expectLinear(size: 20_000) { count in
            let config = count == 20_000 ? xml : Self.manyMethods(count)
            findings = DAOLinter.lint(xml: config)
        }
        #expect(work[.methodComparisons] <= 10 * 20_000, "\(work.all)")
        #expect(findings.isEmpty, "\(findings.prefix(3))")
        // Duplicates are still found, with the first one's location.
        let duplicate = xml.replacingOccurrences(of: "id=\"m7\"", with: "id=\"m3\"")
        #expect { try DAOConfig(xml: duplicate) } throws: { error in
            guard let error = error as? DAOConfigError, case .duplicateMethod("m3", 0, let first) = error.kind else { return false }
            return first.line == 5 && error.location.line == 9
        }
    }

    @Test func manyElementsAndAttributesOnOneLineLoadInLinearTime() throws {
        // Columns are searched on from the previous match, not from the line's start.
        func module(_ count: Int) -> String {
            // A thousand consts per <const> (one element may have at most 4,096 attributes).
            let consts = stride(from: 0, to: count, by: 1_000).map { first in
                "<const " + (first..<min(first + 1_000, count)).map { "k\($0)=\"v\($0)\"" }.joined(separator: " ") + "/>"
            }.joined()
            let methods = (0..<count).map { "<update id=\"m\($0)\">x</update>" }.joined()
            return "<module name=\"m\">\(consts)\(methods)</module>"
        }
        let xml = module(20_000)
        var config: DAOConfig?
        let work = try Self.expectLinear(size: 20_000) { count in
            let text = count == 20_000 ? xml : module(count)
            let loaded = try DAOConfig(xml: text)
            if count == 20_000 { config = loaded }
        }
        // Searching the line from its start for each element would walk n × 1.3 MB.
        #expect(work[.searchedBytes] <= 4 * xml.utf8.count, "\(work.all)")
        let loaded = try #require(config)
        #expect(loaded.methods.count == 20_000)
        let third = try loaded.method("m2", arity: 0).location
        #expect(third.line == 1 && third.column == xml.distance(from: xml.startIndex, to: xml.range(of: "<update id=\"m2\"")!.lowerBound) + 1)
        // An error about the 19,999th const still points at it.
        let bad = xml.replacingOccurrences(of: "k19998=\"v19998\"", with: "k19998=\"${nope}\"")
        #expect { try DAOConfig(xml: bad) } throws: { error in
            guard let error = error as? DAOConfigError else { return false }
            return error.location.column == bad.distance(from: bad.startIndex, to: bad.range(of: "${nope}")!.lowerBound) + 1
        }
    }

    /// libxml2 2.9 compares each attribute of an element with every one before it: 40,000
    /// attributes on one element took seconds. The start tags are checked first, in one pass
    /// over the bytes, and such an element is refused by name and place before libxml2 sees it.
    @Test func anElementWithTooManyAttributesIsRefusedBeforeParsing() throws {
        func module(_ count: Int) -> String {
            let attributes = (0..<count).map { "a\($0)=\"v\"" }.joined(separator: " ")
            return "<module name=\"m\" tableName=\"t\">\n  <!-- <select a=\"1\"> --><select id=\"x\" \(attributes)>select 1</select>\n</module>"
        }
        var caught: DAOConfigError?
        let work = Self.expectLinear(size: 40_000) { count in
            do { _ = try DAOConfig(xml: module(count), file: "many.xml") } catch let error as DAOConfigError {
                if count == 40_000 { caught = error }
            } catch {}
        }
        #expect(work[.startTagBytes] <= module(40_000).utf8.count, "\(work.all)")
        #expect(caught?.description == "many.xml:2:26: error: <select> has more than 4096 attributes (the most an element may have): "
                + "split it (consts can be declared over several <const> elements)", "\(String(describing: caught))")
        // At the limit, the element is read (and its unknown attributes named, as before).
        #expect { try DAOConfig(xml: module(4_095)) } throws: { error in
            (error as? DAOConfigError)?.message.hasPrefix("unknown attribute 'a0' on <select>") == true
        }
    }

    /// An attribute longer than libxml2 reads in one piece is named, where it is, never
    /// reported in libxml2's words ("Extra content at the end of the document").
    @Test func anOverLongAttributeIsNamed() throws {
        let long = String(repeating: "x", count: DAOLimits.attributeLength + 1)
        let xml = "<module name=\"m\" tableName=\"t\">\n  <select id=\"a\" result='\(long)'>select 1</select>\n</module>"
        #expect { try DAOConfig(xml: xml, file: "long.xml") } throws: { error in
            (error as? DAOConfigError)?.description == "long.xml:2:18: error: the value of 'result' on <select> is longer than "
                + "10000000 bytes (the most the XML parser reads in one attribute)"
        }
    }

    @Test func manyReferencesOnOneLineLoadInLinearTime() throws {
        // A minified config: every reference's column is searched on from the previous one.
        func module(_ count: Int) -> String {
            let methods = (0..<count).map { "<select id=\"m\($0)\" arguments=\"a\">select #{a} from ${T} where b = #{a}</select>" }
            return "<module name=\"m\" tableName=\"t\">\(methods.joined())</module>"
        }
        let xml = module(20_000)
        var config: DAOConfig?
        let work = try Self.expectLinear(size: 20_000) { count in
            let text = count == 20_000 ? xml : module(count)
            let loaded = try DAOConfig(xml: text)
            if count == 20_000 { config = loaded }
        }
        #expect(work[.searchedBytes] <= 4 * xml.utf8.count, "\(work.all)")
        #expect(config?.methods.count == 20_000)
        // The last method's second reference still has its own column.
        let bad = xml.replacingOccurrences(of: "where b = #{a}</select></module>", with: "where b = '#{a}'</select></module>")
        let expected = bad.distance(from: bad.startIndex, to: bad.range(of: "'#{a}'", options: .backwards)!.lowerBound) + 2
        #expect { try DAOConfig(xml: bad) } throws: { error in
            guard let error = error as? DAOConfigError else { return false }
            return error.location.line == 1 && error.location.column == expected
        }
    }

    @Test func aRepeatedReferenceIsLocatedWhereItStands() throws {
        // The second #{x} (inside quotes) is at fault, not the first, though they read alike.
        let xml = """
        <module name="m" tableName="t">
          <select id="s" arguments="x">select #{x},
            '#{x}' from ${T}</select>
        </module>
        """
        #expect { try DAOConfig(xml: xml) } throws: { error in
            guard let error = error as? DAOConfigError, case .valueInQuotedText = error.kind else { return false }
            return error.location.line == 3 && error.location.column == 6
        }
        let oneLine = "<module name=\"m\" tableName=\"t\"><select id=\"s\" arguments=\"x\">select #{x}, '#{x}' from ${T}</select></module>"
        #expect { try DAOConfig(xml: oneLine) } throws: { error in
            guard let error = error as? DAOConfigError else { return false }
            return error.location.column == oneLine.distance(from: oneLine.startIndex, to: oneLine.range(of: "'#{x}'")!.lowerBound) + 2
        }
    }

    /// Found by the config fuzz (seed 15737581): an unused argument's name was quoted whole in
    /// its warning, 4,600 characters of it.
    @Test func anUnusedArgumentsHugeNameIsQuotedShort() throws {
        let name = String(repeating: "v", count: 4_000)
        let config = try DAOConfig(xml: """
            <module name="m" tableName="t"><select id="a" arguments="\(name)">select 1</select></module>
            """, file: "p.xml")
        let warning = try #require(DAOLinter.warnings(for: config).first { $0.message.contains("is never used") })
        #expect(warning.description.count < 200, "\(warning.description.prefix(300))")
        #expect(warning.message.hasPrefix("argument 'vvvv"))
        #expect(warning.message.contains("…' of method 'a' is never used"))
    }

    @Test func suggestionsAreBoundedForHugeNames() throws {
        let huge = String(repeating: "q", count: 1 << 20)
        let candidates = (0..<20).map { "method\($0)" } + [huge]
        var suggestion: String??
        let work = Self.work {
            suggestion = DidYouMean.suggest(huge + "x", among: candidates)
            _ = DidYouMean.suggest("methd3", among: candidates)
        }
        #expect(suggestion == .some(nil))
        #expect(DidYouMean.suggest("methd3", among: candidates) == "method3")
        #expect(DidYouMean.suggest(String(repeating: "a", count: 65), among: [String(repeating: "a", count: 64)]) == nil)
        #expect(DidYouMean.suggest(String(repeating: "a", count: 63), among: [String(repeating: "a", count: 64)]) != nil)
        // The huge name is compared with nothing; "methd3" only with the 20 short names
        // (at most 6 × 8 cells each), never with the 1 MiB one.
        #expect(work[.distanceCells] <= 20 * 6 * 8, "\(work.all)")
    }
}
