import ArgumentParser
import DatacenterKit

/// `datacenter users`: list users, switch the current one.
struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "List the users of a root (the current one marked *), or switch user.",
            discussion: ExitStatusHelp.discussion(),
        subcommands: [List.self, Switch.self, Remove.self],
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
        static let configuration = CommandConfiguration(commandName: "switch", abstract: "Make ID the current user (with --create, a new one).",
            discussion: ExitStatusHelp.discussion("An ID that is not one of the root's users is refused (exit 1, listing them) unless --create is given: then its store is created."))
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The user id.") var id: String
        @Flag(help: KnownUser.createHelp) var create = false

        func run() throws {
            try KnownUser.requireBeforeWriting(id, global, create: create)
            let center = try global.openDataCenter()
            try center.setCurrentUserId(id)
            _ = try center.userPreferences
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Delete a user's data: its store, version store and disk caches.",
            discussion: ExitStatusHelp.discussion(
                "Asks on the terminal before deleting; --yes deletes without asking, and without a terminal --yes is needed. When ID is the current user, no user is current afterwards."))
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The user id.") var id: String
        @Flag(name: [.customShort("y"), .long], help: "Delete without asking.") var yes = false

        func run() throws {
            let readable = try global.openDataCenter(readOnly: true)
            try KnownUser.require(id, in: readable, create: nil)
            let path = try readable.storePath(forUser: id)
            if !yes {
                let question = "Delete user '\(Output.safe(id))' and all its data (\(path))? [y/N] "
                guard let answer = TerminalQuestion.ask(question) else {
                    throw CLIError("users rm asks before deleting and there is no terminal to ask on: give --yes to delete user '\(Output.safe(id))'")
                }
                guard answer else { throw CLIError("user '\(Output.safe(id))' kept") }
            }
            try global.openDataCenter().removeUser(id)
        }
    }
}
