import ArgumentParser
import DatacenterDAO

/// What a usage error adds to the parser's message, where the parser's own words mislead:
/// a misspelled subcommand (which a group with a default subcommand reads as that
/// subcommand's argument) and a negative number given as a value (read as an option).
enum UsageHints {
    /// "unknown subcommand 'swtich' of 'users': did you mean 'switch'?" when the first word
    /// after a command that has subcommands names none of them but is close to one.
    static func misspelledSubcommand(in arguments: [String]) -> String? {
        var command: ParsableCommand.Type = DatacenterCommand.self
        var path = ["datacenter"]
        for word in arguments where !word.hasPrefix("-") {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty else { return nil }
            if let next = subcommands.first(where: { name(of: $0) == word }) {
                command = next
                path.append(word)
                continue
            }
            let names = subcommands.map(name(of:))
            guard let closest = DidYouMean.suggest(word, among: names) else { return nil }
            return "unknown subcommand '\(word)' of '\(path.joined(separator: " "))': did you mean '\(closest)'? "
                + "(subcommands: \(names.joined(separator: ", ")))"
        }
        return nil
    }

    /// A hint when a value looks like a negative number (`-42`), which the parser reads as an
    /// option, and no `--` ends the options. Right after an option (`--busy-timeout -1`) it is
    /// that option's value, given with `=`; elsewhere a command's argument, after `--`.
    static func negativeNumber(in arguments: [String]) -> String? {
        guard !arguments.contains("--"),
              let index = arguments.firstIndex(where: { $0.count > 1 && $0.hasPrefix("-") && Double($0) != nil }) else { return nil }
        let number = arguments[index]
        if index > 0, case let option = arguments[index - 1], option.hasPrefix("--"), !option.contains("=") {
            return "hint: '\(number)' is read as an option, not as the value of \(option); write \(option)=\(number)"
        }
        return "hint: '\(number)' is read as an option; put the options first and '--' before the values, "
            + "so that a value may start with '-' (e.g. datacenter kv set --type int BUSINESS KEY -- \(number))"
    }

    private static func name(of command: ParsableCommand.Type) -> String {
        command.configuration.commandName ?? String(describing: command).lowercased()
    }
}
