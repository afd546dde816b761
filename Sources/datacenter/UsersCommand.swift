import ArgumentParser
import DatacenterKit

/// `datacenter users`: list users, switch the current one.
struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "List the users of a root (the current one marked *), or switch user.",
            discussion: ExitStatusHelp.discussion(),
        subcommands: [List.self, Switch.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List users; * marks the current one.",
            discussion: ExitStatusHelp.discussion())
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print [{\"id\", \"current\"}].") var json = false

        func run() throws {
            let center = try global.openDataCenter(readOnly: true)
            let current = center.currentUserId
            var users = center.users()
            if let current, !users.contains(current) { users.append(current) }
            if json {
                try Output.json(users.map { ["id": $0, "current": $0 == current] as [String: Any] })
            } else {
                for user in users { Output.line((user == current ? "* " : "  ") + Output.safe(user)) }
            }
        }
    }

    struct Switch: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "switch", abstract: "Make ID the current user (creating its store).",
            discussion: ExitStatusHelp.discussion())
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The user id.") var id: String

        func run() throws {
            let center = try global.openDataCenter()
            try center.setCurrentUserId(id)
            _ = try center.userPreferences
        }
    }
}
