import Foundation
import Testing

/// `kv list`, `overview` and `clean --dry-run` on stores read a row at a time: their output
/// keeps its documented shape, and what they count is counted right.
@Suite struct StreamingCommandTests {
    /// A root with plain, wide, purgeable and encrypted values in two businesses.
    func filledRoot(_ scratch: TemporaryFolder) throws -> String {
        let root = scratch.file("root")
        // Every escape JSON text needs, in a key and in a value.
        let awkward = "q\"b\\s/ \u{1}\u{8}\u{c}\n\r\t\u{1f}\u{7f}\u{2028} é 🚀"
        let sets: [[String]] = [
            ["kv", "set", "alpha", "short", "x"],
            ["kv", "set", "alpha", "a-much-longer-key-name", "a value longer than its heading", "--purgeable"],
            ["kv", "set", "alpha", "n", "--type", "int", "--", "-42"],
            ["kv", "set", "gamma", awkward, awkward],
            ["kv", "set", "gamma", "plist", #"{"z":1.5,"a":[true,{"$data":"AAE="}]}"#, "--type", "plist"],
            ["kv", "set", "beta-business", "日本", "wide ✓", "--purgeable"],
            ["kv", "set", "beta-business", "secret", "hidden", "--encrypt", "--key", TestKeys.first],
            ["kv", "set", "beta-business", "doc", #"{"b":[1,2],"a":"/x"}"#, "--type", "json"],
        ]
        for arguments in sets {
            // Options first: what follows `--` is all arguments.
            let result = try CLI.run(["--root", root] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        return root
    }

    @Test func jsonListIsOneArrayAsTheWholeDocumentWouldBeWritten() throws {
        let scratch = TemporaryFolder()
        let root = try filledRoot(scratch)
        let listed = try CLI.run(["kv", "list", "--json", "--key", TestKeys.first, "--root", root])
        #expect(listed.status == 0, "\(listed.stderr)")
        let array = try #require(try CLI.json(listed.stdout) as? [[String: Any]])
        #expect(array.count == 8)
        #expect(array.map { $0["key"] as? String }.prefix(7) == ["a-much-longer-key-name", "n", "short", "doc", "secret", "日本", "plist"])
        #expect(array[4]["value"] as? String == "hidden")
        let whole = try JSONSerialization.data(withJSONObject: array, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        #expect(listed.stdout == String(decoding: whole, as: UTF8.self) + "\n", "byte for byte, one line")

        let empty = try CLI.run(["kv", "list", "--json", "--business", "nobody", "--root", root])
        #expect(empty.stdout == "[]\n")
    }

    @Test func tableColumnsLineUpAndTheLastRuleIsItsHeading() throws {
        let scratch = TemporaryFolder()
        let root = try filledRoot(scratch)
        let table = try CLI.run(["kv", "list", "--root", root])
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 10)
        #expect(lines[1].hasSuffix("  -----"), "the unpadded VALUE column's rule is as wide as its heading: \(lines[1])")
        // Every column starts where its heading starts (widths from the first pass).
        let headings = ["KEY", "TYPE", "FLAGS", "SIZE", "VALUE"]
        let starts = headings.map { lines[0].range(of: $0)!.lowerBound.utf16Offset(in: lines[0]) }
        for line in lines.dropFirst(2) where !line.hasPrefix("gamma") {
            var cellStarts: [Int] = []
            var column = 0, spaces = 0
            for character in line {
                if character == " " { spaces += 1 } else {
                    if spaces >= 2 { cellStarts.append(column) }
                    spaces = 0
                }
                // The only wide characters here are the CJK ones of "日本".
                column += character.unicodeScalars.first.map { $0.value >= 0x3000 && $0.value < 0xA000 ? 2 : 1 } ?? 1
            }
            #expect(Array(cellStarts.prefix(4)) == Array(starts.prefix(4)), "\(line)")
        }
        #expect(table.stdout.contains("[locked: no key]"))
        #expect(table.stdout.contains("a value longer than its heading"))
    }

    @Test func aRowThatCannotBeDecodedIsListedAsDamagedInItsPlace() throws {
        let scratch = TemporaryFolder()
        let root = try filledRoot(scratch)
        let store = root + "/common.sqlite"
        let broken = try CLI.run(["sql", store, "INSERT INTO datacenter_kv VALUES ('zeta', 'odd', 'x', 'weird', 0, 0)"])
        #expect(broken.status == 0, "\(broken.stderr)")
        for extra in [[], ["--json"]] {
            let listed = try CLI.run(["kv", "list", "--root", root] + extra)
            #expect(listed.status == 0)
            #expect(listed.stdout.contains("a value longer than its heading"), "\(extra): \(listed.stdout)")
            #expect(listed.stdout.contains(extra.isEmpty ? "<damaged: unknown encoding 'weird'>" : "\"damaged\":\"unknown encoding 'weird'\""),
                    "\(extra): \(listed.stdout)")
            #expect(listed.stderr.hasPrefix("warning: 1 damaged entry"))
        }
    }

    @Test func overviewCountsLockedValuesWithTheKeysGiven() throws {
        let scratch = TemporaryFolder()
        let root = try filledRoot(scratch)
        _ = try CLI.run(["kv", "set", "beta-business", "old", "older secret", "--encrypt", "--key", TestKeys.second, "--root", root])
        let none = try CLI.run(["overview", "--root", root])
        #expect(none.status == 0, "\(none.stderr)")
        #expect(none.stdout.contains("  kv alpha: 3 value(s)\n"))
        #expect(none.stdout.contains("  kv beta-business: 4 value(s), 2 locked\n"))
        let one = try CLI.run(["overview", "--key", TestKeys.first, "--root", root])
        #expect(one.stdout.contains("  kv beta-business: 4 value(s), 1 locked\n"))
        let both = try CLI.run(["overview", "--key", TestKeys.first, "--key", TestKeys.second, "--root", root])
        #expect(both.stdout.contains("  kv beta-business: 4 value(s)\n"))
    }

    @Test func aDryRunCountsPurgeableValuesAndTheirBytes() throws {
        let scratch = TemporaryFolder()
        let root = try filledRoot(scratch)
        let dry = try #require(try CLI.json(try CLI.run(["clean", "--json", "--dry-run", "--root", root]).stdout) as? [String: Any])
        let tasks = try #require(dry["tasks"] as? [[String: Any]])
        #expect(tasks.first?["task"] as? String == "cleanPurgeableValues")
        #expect(tasks.first?["items"] as? Int == 2)
        // "a value longer than its heading" (31 bytes) and "wide ✓" (8 bytes).
        #expect(tasks.first?["bytes"] as? Int == 39)
        #expect(try CLI.run(["kv", "get", "alpha", "a-much-longer-key-name", "--root", root]).status == 0)
    }
}
