import ArgumentParser
import Testing
@testable import datacenter

/// Every command spells out its name. A command without one is named from its type by
/// `String(describing:)`, whose dynamic casts make the Swift runtime scan every protocol
/// conformance of the static binary; the parser names the whole tree at each start, which
/// took about 2 ms of the 8.7 ms `datacenter --version` took.
@Suite struct CommandNamesTests {
    @Test func everyCommandNamesItself() {
        var unnamed: [String] = []
        var seen = 0
        func visit(_ command: any ParsableCommand.Type, path: String) {
            seen += 1
            let name = command.configuration.commandName
            if name == nil { unnamed.append(path + " " + String(describing: command)) }
            for sub in command.configuration.subcommands { visit(sub, path: path + " " + (name ?? "?")) }
        }
        visit(DatacenterCommand.self, path: "")
        #expect(seen > 40)
        #expect(unnamed.isEmpty, "commands named from their types: \(unnamed)")
    }
}
