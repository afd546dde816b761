import DatacenterText

/// The help (`H`, or `?` where `?` does not search): the keys of every pane and of the frame,
/// made from their maps (`KeyCommand`), then what the browser promises; the theme files that
/// could not be used first, when there are. It covers the panes and takes the keys until
/// closed, scrolling when it is taller than the screen.
struct HelpScreen {
    /// The help's lines, wrapped to the width it was opened at.
    private(set) var lines: [String]
    /// The first line on screen.
    var scroll = 0

    /// The help for a pane area `width` columns wide, `themeErrors` listed first.
    init(width: Int, themeErrors: [ThemeError]) {
        // Wrapped to the help's width: a problem names a path, which may be long, and a
        // command's help goes on under its own column.
        let room = max(20, width - 3)
        let keys = HelpScreen.keyLines.flatMap { HelpScreen.wrapHelpLine($0, width: room) }
        lines = themeErrors.isEmpty ? keys
            : ["Theme files skipped:"] + themeErrors.flatMap { Inspector.wrapWords("\($0)", width: room).map { "  " + $0 } } + [""] + keys
    }

    /// The most the help scrolls on a body `height` lines tall: its last line at the bottom.
    func scrollLimit(height: Int) -> Int { max(0, lines.count - height) }

    package static let keyLines: [String] = {
        func section<P: Pane>(_ pane: P.Type) -> [String] {
            pane.keyMaps.flatMap { $0.helpLines + [""] }.dropLast() + pane.helpAfterKeys + [""]
        }
        let panes = section(TreePane.self) + section(GridPane.self) + section(Inspector.self) + section(ConsolePane.self)
            + section(DAOPanel.self) + section(ReviewPane.self) + section(HelpScreen.self)
        let frame = FrameKeys.all.map(\.map).flatMap { $0.helpLines + [""] }
        return ["Keys (Esc closes the help)", ""] + panes + frame + typingHelp + [
            "",
            "Encrypted values show decrypted (green) when a --key opens",
            "them, else as [locked: reason]; never as ciphertext.",
            "The browser writes nothing until you commit staged edits",
            "or confirm a DAO write; then it runs exactly the statements",
            "shown, one transaction per store, and changes nothing else",
            "(no tables added, journal mode kept). --read-only: no writes.",
        ]
    }()

    /// How text is typed, in the prompt line, a DAO form's fields and the console, and what
    /// the mouse does.
    static let typingHelp = [
        "Typing (a prompt, a field, the console)",
        "  ← → Home End   move; ^A ^E start / end",
        "  ^U ^K ^W Del   cut to the start / the end, a word; delete",
        "  ↑ ↓            the earlier searches (/), filters (f), SQL (:)",
        "  Ctrl-C  q      quit (q where keys move): asks first if edits are staged",
        "  mouse          click a line or cell; the wheel scrolls",
    ]

    /// `line` of the help in lines of at most `width` columns: a command's help goes on
    /// under the help column, other text under its own indent.
    static func wrapHelpLine(_ line: String, width: Int) -> [String] {
        guard TerminalText.width(of: line) > width else { return [line] }
        let lead = String(line.prefix { $0 == " " })
        let pieces = Inspector.wrapWords(String(line.dropFirst(lead.count)), width: width - lead.count)
        guard pieces.count > 1 else { return [line] }
        let column = KeyMap<Browser>.labelWidth + 2
        let indent = String(repeating: " ", count: lead.count == 2 || lead.count == column ? column : lead.count + 2)
        let rest = pieces.dropFirst().joined(separator: " ")
        return [lead + pieces[0]] + Inspector.wrapWords(rest, width: max(8, width - indent.count)).map { indent + $0 }
    }

    /// The help's keys.
    static let keys = KeyMap<HelpScreen>("The help", [
        KeyCommand([.down, .character("j"), .up, .character("k")], "↑ ↓ j k", "scroll", hint: "↑↓ PgUp PgDn scroll the help") { help, key, context in
            help.scroll(by: key == .down || key == .character("j") ? 1 : -1, context)
        },
        KeyCommand([.pageDown, .character(" "), .pageUp, .character("b")], "PgUp PgDn", "a page (also Space, b)") { help, key, context in
            help.scroll(by: (key == .pageDown || key == .character(" ") ? 1 : -1) * context.bodyHeight, context)
        },
        KeyCommand([.home, .character("g"), .end, .character("G")], "g G Home End", "its top / end") { help, key, context in
            help.scroll(by: (key == .home || key == .character("g") ? -1 : 1) * (help.lines.count + 1), context)
        },
        KeyCommand([.escape, .character("?"), .character("H"), .character("q"), .enter], "Esc q Enter H ?", "close it",
                   hint: "Esc close") { _, _, _ in [.close] },
    ])

    /// Scrolls by `lines`, within the help's length.
    private mutating func scroll(by lines: Int, _ context: PaneContext) -> [PaneEffect] {
        let limit = scrollLimit(height: context.bodyHeight)
        scroll = max(0, min(limit, min(limit, scroll) + lines))
        return []
    }
}

extension HelpScreen: Pane {
    static var keyMaps: [KeyMap<HelpScreen>] { [keys] }
    var keyMap: KeyMap<HelpScreen> { HelpScreen.keys }

    /// One key of the help (`HelpScreen.keys`); others do nothing while it is open.
    mutating func handle(_ key: Key, context: PaneContext) -> [PaneEffect] {
        HelpScreen.keys.run(key, on: &self, context: context) ?? []
    }

    /// Draws the lines from `scroll` over `area`, one column in from its left.
    func draw(into screen: inout ScreenGrid, area: PaneArea, focused: Bool) {
        for (line, text) in lines.dropFirst(min(scroll, scrollLimit(height: area.height))).prefix(area.height).enumerated() {
            screen.fill(x: area.x, y: area.y + line, count: area.width, role: .dialog)
            screen.write(text, x: area.x + 1, y: area.y + line, maxWidth: area.width - 1, role: .dialog)
        }
    }
}
