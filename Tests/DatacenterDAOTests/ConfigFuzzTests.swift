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
