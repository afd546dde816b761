/// One thing a key does in the browser: the keys that do it, how the help names them, what
/// the help says, the status line's hint, and the action. Each feature declares its commands
/// in its own file (as VisiData's `addCommand` does): the pane's keys are the list of them,
/// the help screen (`H`) and the status line's hints are made from the same list, so a key
/// cannot be handled without being listed, or listed without being handled.
///
/// `Subject` is what the action works on: a pane (`TreePane`, `GridPane`, …) or the frame
/// (`Browser`, for the keys every pane shares).
struct KeyCommand<Subject>: Sendable {
    /// What a command does: it may change the subject, and says what the browser should do
    /// (`PaneEffect`). The key is passed for commands that share an action (`[` and `]`).
    typealias Action = @Sendable (inout Subject, Key, PaneContext) -> [PaneEffect]

    /// The keys that run it.
    let keys: [Key]
    /// The keys as the help shows them (`g G Home End`).
    let label: String
    /// What the help says it does: one line, or more when it needs them.
    let help: [String]
    /// The status line's hint (keys and a word or two, `"/ ? search"`), or nil when the
    /// command is in the help only.
    let hint: String?
    /// What it does.
    let action: Action

    /// A command run by `keys`, labelled `label` in the help, which says `help` (one line
    /// each); `hint` goes on the status line.
    init(_ keys: [Key], _ label: String, _ help: String..., hint: String? = nil, action: @escaping Action) {
        precondition(!keys.isEmpty && !help.isEmpty, "a command has keys and a help line")
        self.keys = keys
        self.label = label
        self.help = help
        self.hint = hint
        self.action = action
    }
}

/// The commands that apply together (a pane's, in one of its states, or a part of the
/// frame's), under the title the help gives them. The first command that lists a key runs
/// it; a key none lists is the owner's to answer (text typed into a field, or "does nothing").
struct KeyMap<Subject>: Sendable {
    /// The help's heading for these commands ("Grid").
    let title: String
    /// The commands, in the order the help lists them and the status line hints them.
    let commands: [KeyCommand<Subject>]
    /// What the keys no command lists do, when they do something (typing into a field), in
    /// the words of the help and the first hint; nil when they do nothing.
    let otherKeys: String?

    /// A map titled `title` of `commands`, in order; `otherKeys` says what the keys they do
    /// not list do, if anything.
    init(_ title: String, _ commands: [KeyCommand<Subject>], otherKeys: String? = nil) {
        self.title = title
        self.commands = commands
        self.otherKeys = otherKeys
    }

    /// The command `key` runs, if any.
    func command(for key: Key) -> KeyCommand<Subject>? {
        commands.first { $0.keys.contains(key) }
    }

    /// Runs the command of `key` on `subject`: its effects, or nil when no command lists it.
    func run(_ key: Key, on subject: inout Subject, context: PaneContext) -> [PaneEffect]? {
        guard let command = command(for: key) else { return nil }
        return command.action(&subject, key, context)
    }

    /// Every key the map lists.
    var keys: [Key] { commands.flatMap(\.keys) }

    /// The help's lines: the title, then each command, its label in a column of its own and
    /// its help beside it (a longer help on the lines below).
    var helpLines: [String] {
        let other = otherKeys.map { ["  " + "other keys".padding(toLength: KeyMap.labelWidth, withPad: " ", startingAt: 0) + $0] } ?? []
        return [title] + commands.flatMap { command in
            let label = command.label.count < KeyMap.labelWidth
                ? command.label.padding(toLength: KeyMap.labelWidth, withPad: " ", startingAt: 0) : command.label + "  "
            return command.help.enumerated().map { index, line in
                "  " + (index == 0 ? label : String(repeating: " ", count: KeyMap.labelWidth)) + line
            }
        } + other
    }

    /// The status line's hints: what other keys do, then each hinted command's, in order.
    var hints: [String] { (otherKeys.map { [$0] } ?? []) + commands.compactMap(\.hint) }

    /// Columns of the help's key column.
    static var labelWidth: Int { 15 }
}

extension KeyCommand {
    /// `?`: the help, in the panes where `?` does not search (the grid's `?` searches
    /// backward; `H` opens the help there, as everywhere keys move).
    static var help: KeyCommand { KeyCommand([.character("?")], "?", "this help") { _, _, _ in [.help] } }
}
