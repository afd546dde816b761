import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

/// Mutated configs (the project's examples with bytes flipped, cut, repeated and spliced with
/// the dialect's own tokens) either load or fail with a located `DAOConfigError`; one that
/// loads renders each method or fails with a typed error. Never a crash, never a hang (a
/// watchdog aborts the run, naming the case, past 5 s). Seeded and printed: `FUZZ_CASES` and
/// `FUZZ_SEED` set the run (`make fuzz` runs a long one).
@Suite struct ConfigFuzzTests {
    static let cases = testCount("FUZZ_CASES", default: 400)
    static let seed = testSeed("FUZZ_SEED", default: 0xF0_22ED)

    static let tokens: [String] = [
        "<", ">", "/>", "</if>", "<if test=\"", "<foreach collection=\"", "<where>", "<trim prefix=\"(\">",
        "#{", "${", "@{", "%{", "}", "\"", "'", "&amp;", "&", "<!--", "-->", "<![CDATA[", "]]>",
        "<!DOCTYPE m [<!ENTITY e \"x\">]>", "&e;", " and ", " or ", "not ", "(", ")", "==", "!=", "\n", "\0",
        "<step>", "</step>", "<try>", "<except>", "<choose><when test=\"a\">", "</when></choose>", "é", "🚀",
    ]

    static var examples: [(name: String, text: String)] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../examples").standardized
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".xml") }.sorted()
        return files.compactMap { name in
            (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)).map { (name, $0) }
        }
    }

    @Test func mutatedConfigsLoadOrFailWithALocation() throws {
        let seeds = Self.examples
        #expect(seeds.count >= 2)
        var random = SplitMix64(seed: Self.seed)
        let watchdog = Watchdog(limit: 5)
        defer { watchdog.finish() }
        for index in 0..<Self.cases {
            let (name, original) = seeds[random.below(seeds.count)]
            let mutated = Mutator.mutate(Array(original.utf8), tokens: Self.tokens, random: &random)
            let text = String(decoding: mutated, as: UTF8.self)
            watchdog.start("seed \(Self.seed) case \(index) (from \(name))")
            defer { watchdog.stop() }
            do {
                let config = try DAOConfig(xml: text, file: name)
                for method in config.methods {
                    let arguments = method.arguments.map { _ in DAOValue.nil }
                    // Rendering with every argument nil may fail, with a typed error saying why.
                    do { _ = try config.render(method.id, arguments: arguments, globals: [:], tableName: "t") } catch {
                        #expect(!"\(error)".isEmpty, "seed \(Self.seed) case \(index): an error without words")
                    }
                }
            } catch let error as DAOConfigError {
                #expect(error.location.line >= 1, "seed \(Self.seed) case \(index): unlocated \(error)")
                #expect(error.description.hasPrefix(name + ":"), "seed \(Self.seed) case \(index): \(error)")
            }
        }
    }

    /// Generated configs of the shapes that once took gigabytes, minutes or the stack: deep
    /// element nesting, deep and long expressions, doubling and chained consts, huge attributes,
    /// many methods. Each loads (and renders) or fails with a located error of one short line,
    /// within the watchdog's 5 s.
    @Test func pathologicalConfigsLoadOrFailFastWithALocation() throws {
        var random = SplitMix64(seed: Self.seed ^ 0xDEE9)
        let watchdog = Watchdog(limit: 5)
        defer { watchdog.finish() }
        for index in 0..<max(1, Self.cases / 4) {
            let text = Pathological.config(&random)
            let label = "seed \(Self.seed) pathological case \(index)"
            watchdog.start(label)
            defer { watchdog.stop() }
            do {
                let config = try DAOConfig(xml: text, file: "p.xml")
                for method in config.methods.prefix(20) {
                    let arguments = method.arguments.map { _ in DAOValue.integer(1) }
                    do { _ = try config.render(method.id, arguments: arguments, globals: [:], tableName: "t") } catch {
                        #expect("\(error)".count < 600, "\(label): \("\(error)".prefix(600))")
                    }
                }
                for finding in DAOLinter.warnings(for: config) {
                    #expect(finding.description.count < 600, "\(label): \(finding.description.prefix(600))")
                }
            } catch let error as DAOConfigError {
                #expect(error.location.line >= 1, "\(label): unlocated \(error)")
                #expect(error.description.hasPrefix("p.xml:"), "\(label): \(error.description.prefix(600))")
                #expect(error.description.count < 600, "\(label): \(error.description.prefix(600))")
                #expect(!error.description.contains("\n"), "\(label): \(error.description.prefix(600))")
            }
        }
    }
}

/// Generators of pathological configs (`pathologicalConfigsLoadOrFailFastWithALocation`).
enum Pathological {
    static func config(_ random: inout SplitMix64) -> String {
        let big = random.below(20) == 0
        let head = "<module name=\"m\" tableName=\"t\">\n"
        switch random.below(6) {
        case 0: // nested elements, around libxml2's limit or far past it
            let depth = big ? 100_000 : random.below(300)
            let element = ["<if true=\"a\">", "<where>", "<trim prefix=\"(\">", "<foreach item=\"i\" collection=\"a\">"]
            let opens = (0..<depth).map { _ in random.below(element.count) }
            let closes = ["</if>", "</where>", "</trim>", "</foreach>"]
            return head + "<update id=\"u\" arguments=\"a\">" + opens.map { element[$0] + "x" }.joined()
                + opens.reversed().map { closes[$0] }.joined() + "</update>\n</module>"
        case 1: // deep or long expressions
            let expression = ExpressionFuzzTests.generate(&random)
                .replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: "\"", with: "&quot;")
            return head + "<select id=\"s\" arguments=\"a, b, c\"><if true=\"\(expression)\">x</if></select>\n</module>"
        case 2: // consts doubling at each level
            let levels = 1 + random.below(big ? 40 : 24)
            var lines = [head, "<const c0=\"ab\"/>"]
            for level in 1...levels { lines.append("<const c\(level)=\"${c\(level - 1)}${c\(level - 1)}\"/>") }
            lines.append("<select id=\"s\">select '${c\(random.below(levels + 1))}' ${c\(random.below(levels + 1))}</select>")
            return lines.joined(separator: "\n") + "\n</module>"
        case 3: // a chain of consts (or sql fragments)
            let length = 1 + (big ? 4_000 : random.below(150))
            var lines = [head, "<const k0=\"x\"/>"]
            for n in 1..<max(length, 2) {
                lines.append(random.below(2) == 0 ? "<const k\(n)=\"${k\(n - 1)}\"/>" : "<sql id=\"k\(n)\">${k\(n - 1)}</sql>")
            }
            lines.append("<select id=\"s\">select ${k\(random.below(max(length, 2)))}</select>")
            return lines.joined(separator: "\n") + "\n</module>"
        case 4: // a huge attribute name or value, control characters included
            let size = big ? 1 << 20 : random.below(5_000)
            let piece = ["v", "\t", "&#27;", "é", "&#1;"][random.below(5)]
            let huge = String(repeating: piece, count: size)
            let plainName = String(repeating: "n", count: size)
            let shapes = [
                "<select id=\"\(huge)\" result=\"\(huge)\">select 1</select>",
                "<select id=\"a\" \(plainName)=\"1\">select 1</select>",
                "<select id=\"a\" arguments=\"\(huge)\">select 1</select>",
                "<update id=\"a\" arguments=\"b\" foreach=\"\(huge)\">x</update>",
                "<select id=\"a\">select ${\(plainName)} #{\(huge)}</select>",
                "<\(plainName)/>",
                "<select id=\"a\"><if true=\"\(huge)\">x</if></select>",
            ]
            return head + shapes[random.below(shapes.count)] + "\n</module>"
        default: // many methods, maybe one duplicate, maybe an initializer typo
            let count = big ? 20_000 : random.below(2_000)
            var xml = "<module name=\"m\" tableName=\"t\" initializer=\"m\(random.below(count + 2))x\">\n"
            let duplicate = random.below(max(count, 1))
            for n in 0..<count { xml += "<update id=\"m\(n == duplicate && random.below(2) == 0 ? 0 : n)\">x</update>\n" }
            return xml + "</module>"
        }
    }
}

/// Byte-level mutations: flips, cuts, repeats and splices of tokens, one to eight per input.
enum Mutator {
    static func mutate(_ input: [UInt8], tokens: [String], random: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0..<(1 + random.below(8)) {
            guard !bytes.isEmpty else { bytes = Array((tokens.first ?? "x").utf8); continue }
            let at = random.below(bytes.count)
            switch random.below(6) {
            case 0: bytes[at] ^= UInt8(1 << random.below(8))
            case 1: bytes.removeSubrange(at..<min(bytes.count, at + 1 + random.below(40)))
            case 2:
                let end = min(bytes.count, at + 1 + random.below(80))
                bytes.insert(contentsOf: Array(bytes[at..<end]), at: random.below(bytes.count))
            case 3: bytes.insert(contentsOf: Array(tokens[random.below(tokens.count)].utf8), at: at)
            case 4: bytes.removeSubrange(at...)
            default: bytes[at] = UInt8(truncatingIfNeeded: random.next())
            }
        }
        return bytes
    }
}
