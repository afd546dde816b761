import Foundation
import Testing

/// docs/CLI.md and `--help` describe the same commands and flags, and every command's help
/// says its exit statuses: the help is generated from the code, CLI.md is written by hand, and
/// this test is what keeps the two from drifting apart.
@Suite struct HelpAgreesWithDocsTests {
    /// One command's help, as `datacenter PATH --help` prints it.
    struct Help {
        let path: [String]
        let text: String

        /// The names listed under `SUBCOMMANDS:` (a group's help), empty for a leaf command.
        var subcommands: [String] {
            section("SUBCOMMANDS:").compactMap { line in
                guard line.hasPrefix("  "), let first = line.dropFirst(2).first, first.isLowercase else { return nil }  // not "See 'datacenter help …'"
                return String(line.dropFirst(2).prefix { !$0.isWhitespace })
            }
        }

        /// Every long flag listed under `OPTIONS:`, `-h, --help` and `--version` aside.
        var flags: Set<String> {
            Set(section("OPTIONS:").compactMap { line -> String? in
                guard line.hasPrefix("  -") else { return nil }
                let words = line.split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",")) }
                return words.first { $0.hasPrefix("--") }
            }).subtracting(["--help", "--version"])
        }

        /// The lines after `title` up to the next unindented heading.
        private func section(_ title: String) -> [String] {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard let start = lines.firstIndex(of: title) else { return [] }
            return Array(lines[(start + 1)...].prefix { $0.isEmpty || $0.hasPrefix(" ") })
        }
    }

    /// A `### \`datacenter …\`` section of CLI.md: the synopsis in its heading and its text.
    struct DocSection {
        let synopsis: String
        let body: String

        /// The command words of the synopsis: `users [list] [--json]` is `users list`.
        var path: [String] {
            var words: [String] = []
            for token in synopsis.split(separator: " ").dropFirst() {
                let word = token.hasPrefix("[") && token.hasSuffix("]") ? token.dropFirst().dropLast() : token[...]
                guard !word.isEmpty, word.allSatisfy({ $0.isLowercase && $0.isLetter }) else { break }
                words.append(String(word))
            }
            return words
        }

        /// The long flags the synopsis names.
        var flags: Set<String> { Self.longFlags(in: synopsis) }

        static func longFlags(in text: String) -> Set<String> {
            var found: Set<String> = []
            var rest = text[...]
            while let range = rest.range(of: "--") {
                let name = rest[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" }
                if let first = name.first, first.isLetter { found.insert("--" + name) }
                rest = rest[range.upperBound...]
            }
            return found
        }
    }

    static func help(_ path: [String]) throws -> Help {
        let result = try CLI.run(path + ["--help"], timeout: 30)
        #expect(result.status == 0, "datacenter \(path.joined(separator: " ")) --help exits \(result.status)")
        return Help(path: path, text: result.stdout)
    }

    /// Every command's help, the root's and the groups' included, walked from the root.
    static func allHelps() throws -> [Help] {
        try walk.get()
    }

    /// The walk, made once for the suite's tests.
    static let walk = Result { try walkHelps() }

    static func walkHelps() throws -> [Help] {
        var helps: [Help] = []
        var pending: [[String]] = [[]]
        while let path = pending.popLast() {
            let help = try help(path)
            helps.append(help)
            #expect(path.count <= 2, "a command path as deep as \(path) is a misread help")
            if path.count <= 2 { pending += help.subcommands.map { path + [$0] } }
        }
        return helps
    }

    static func docSections() throws -> [DocSection] {
        let text = try String(contentsOfFile: SQLCipherReference.packageRoot + "/docs/CLI.md", encoding: .utf8)
        var sections: [DocSection] = []
        var synopsis: String?
        var body: [Substring] = []
        func close() {
            if let synopsis { sections.append(DocSection(synopsis: synopsis, body: body.joined(separator: "\n"))) }
            synopsis = nil
            body = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") {
                close()
                if line.hasPrefix("### `datacenter") {
                    synopsis = String(line.dropFirst(5).prefix { $0 != "`" })
                }
            } else if synopsis != nil {
                body.append(line)
            }
        }
        close()
        return sections
    }

    @Test func everyCommandHasASectionAndEverySectionACommand() throws {
        let leaves = try Self.allHelps().filter { $0.subcommands.isEmpty }.map(\.path)
        let documented = try Self.docSections().map(\.path)
        #expect(leaves.count >= 38, "the walk found \(leaves.count) commands")
        for path in leaves where !documented.contains(path) {
            Issue.record("`datacenter \(path.joined(separator: " "))` has no section in docs/CLI.md")
        }
        for path in documented where !leaves.contains(path) {
            Issue.record("docs/CLI.md documents `datacenter \(path.joined(separator: " "))`, which is no command")
        }
    }

    @Test func theSynopsesNameTheFlagsTheHelpLists() throws {
        let helps = try Self.allHelps()
        let root = try #require(helps.first { $0.path.isEmpty })
        let globals = root.flags
        let sections = try Self.docSections()
        for help in helps where help.subcommands.isEmpty {
            let name = "datacenter " + help.path.joined(separator: " ")
            guard let section = sections.first(where: { $0.path == help.path }) else { continue }
            for flag in help.flags.subtracting(globals).sorted() where !section.flags.contains(flag) {
                Issue.record("\(name) --help lists \(flag); CLI.md's synopsis `\(section.synopsis)` does not")
            }
            for flag in section.flags.sorted() where !help.flags.contains(flag) {
                Issue.record("CLI.md's synopsis `\(section.synopsis)` names \(flag); \(name) --help does not list it")
            }
        }
    }

    @Test func theGlobalOptionsAreDocumentedAsGlobal() throws {
        let root = try Self.help([])
        let text = try String(contentsOfFile: SQLCipherReference.packageRoot + "/docs/CLI.md", encoding: .utf8)
        let conventions = try #require(text.components(separatedBy: "## Conventions").dropFirst().first?
            .components(separatedBy: "\n## ").first)
        #expect(root.flags.count >= 7, "the root lists \(root.flags.sorted())")
        for flag in root.flags.union(["--version"]).sorted() where !conventions.contains("`\(flag)") {
            Issue.record("datacenter --help lists the global \(flag); CLI.md's Conventions do not")
        }
    }

    @Test func everyCommandsHelpSaysItsExitStatuses() throws {
        for help in try Self.allHelps() {
            let name = (["datacenter"] + help.path).joined(separator: " ")
            let text = help.text.replacingOccurrences(of: "\n", with: " ")
            #expect(text.contains("Exit status"), "\(name) --help says nothing of its exit status")
            #expect(text.contains("2 a usage error") || text.contains("2 on any error"),
                    "\(name) --help does not say which status a usage error gets")
        }
    }
}
