import DatacenterKit

/// How a key finds its way: the modals first (the quit question, a running search, the
/// prompt line, the help: whichever is open, top first), then Esc for work running in the
/// background, then the frame's shortcuts, then the pane with focus (`Pane`).
extension Browser {
    /// What covers the panes and takes every key before them.
    enum Modal {
        /// "Quit with staged edits?": answered before anything else.
        case quitQuestion
        /// A `/` search running: Esc cancels it, other keys wait.
        case search
        /// The line being typed at the bottom (`PromptLine`).
        case prompt
        /// The help, scrolled by its own keys.
        case help
    }

    /// The modals open now, the one that takes the keys first.
    var modals: [Modal] {
        var open: [Modal] = []
        if review.confirmingQuit { open.append(.quitQuestion) }
        if grid?.search != nil { open.append(.search) }
        if prompt != nil { open.append(.prompt) }
        if help != nil { open.append(.help) }
        return open
    }

    /// Routes a key (see the extension's summary). Ctrl-J (a line feed) is Enter everywhere
    /// but in the console's editor, where it starts a new line.
    func handleKey(_ key: Key) {
        let key = key == .control("j") && !(focus == .console && modals.isEmpty) ? .enter : key
        if key == .character("\u{3}"), !review.confirmingQuit { requestQuit(); return }
        if let top = modals.first {
            switch top {
            case .quitQuestion: apply(review.handleQuitQuestion(key))
            case .search: apply(grid?.handleWhileSearching(key) ?? [])
            case .prompt: promptKey(key)
            case .help: send(key, to: \.help, orElse: focus)
            }
            return
        }
        if key == .escape, cancelBackgroundWork() { return }
        if FrameKeys.applying(in: self).contains(where: { run(key, in: $0) }) { return }
        // An error stays until Esc or another message: the keys typed after a refusal do not
        // wipe it before it was read. Anything else the status line said goes with the next key.
        if message?.isError != true || key == .escape { message = nil }
        switch focus {
        case .tree: send(key, to: \.tree)
        case .grid: send(key, to: \.grid, orElse: .tree)
        case .inspector: send(key, to: \.inspector, orElse: .grid)
        case .dao: send(key, to: \.daoPanel, orElse: .tree)
        case .console:
            let before = console?.history.entries
            let favouritesBefore = console?.favourites
            send(key, to: \.console, orElse: .tree)
            apply(consoleSession.keep(historyBefore: before, favouritesBefore: favouritesBefore))
        case .review: send(key, to: \.review)
        }
    }

    /// A paste: one edit where text is typed (the prompt line, the console's editor, a DAO
    /// form's field, whose preview is worked out once, not once a character); elsewhere its
    /// characters are keys, as typed.
    func paste(_ text: String) {
        if modals.first == .prompt {
            prompt?.paste(text.replacingOccurrences(of: "\n", with: " "), screenWidth: width)
        } else if modals.isEmpty, focus == .console, console?.takesPaste == true {
            console?.paste(text, context: context)
        } else if modals.isEmpty, focus == .dao, daoPanel?.takesPaste == true {
            apply(daoPanel?.paste(text, context: context) ?? [])
        } else {
            for character in text { handleKey(.character(character)) }
        }
    }

    /// Hands `key` to the pane at `path` and does what it asks; with no such pane open, the
    /// keys go to `orElse`.
    func send<P: Pane>(_ key: Key, to path: ReferenceWritableKeyPath<Browser, P?>, orElse: Focus) {
        guard var pane = self[keyPath: path] else { focus = orElse; return }
        let effects = pane.handle(key, context: context)
        self[keyPath: path] = pane
        apply(effects)
    }

    /// Hands `key` to a pane that is always there (the tree, the staged edits).
    func send<P: Pane>(_ key: Key, to path: ReferenceWritableKeyPath<Browser, P>) {
        var pane = self[keyPath: path]
        let effects = pane.handle(key, context: context)
        self[keyPath: path] = pane
        apply(effects)
    }

    /// Esc for work going on behind the panes: an export, then a sort or filter of the grid
    /// shown being read. True when it stopped one.
    private func cancelBackgroundWork() -> Bool {
        // Esc cancels the export first; other keys go on while it writes.
        guard let cancelled = exports.cancel() ?? lifecycle.cancelOpening(shown: grid) else { return false }
        apply(cancelled)
        return true
    }

    /// Runs `key` if `map` lists it, and does what it asks; false when it does not list it.
    private func run(_ key: Key, in map: KeyMap<Browser>) -> Bool {
        var browser = self
        guard let effects = map.run(key, on: &browser, context: context) else { return false }
        apply(effects)
        return true
    }

    /// The prompt line's keys; a line submitted goes to what asked for it.
    func promptKey(_ key: Key) {
        guard var line = prompt else { return }
        let outcome = line.handle(key, screenWidth: width)
        promptHistories.keep(from: line)
        switch outcome {
        case .editing: prompt = line
        case .cancelled:
            prompt = nil
            if line.purpose == .exportReplace {
                exports.toReplace = nil
                message = ("export cancelled: the file is left as it was", false)
            }
        case .submitted(let text):
            prompt = nil
            if line.purpose == .open { submitOpen(text); return }
            if line.purpose == .export || line.purpose == .exportReplace {
                let replacing = line.purpose == .exportReplace ? exports.toReplace : nil
                exports.toReplace = nil
                apply(exports.submit(text, replacing: replacing, grid: grid, context: context))
                return
            }
            apply(grid?.submit(line.purpose, text: text, regex: line.isRegex, context: context) ?? [])
        }
    }

    /// A click: on the tree, its line; on the grid, its cell (and the grid takes the keys).
    func click(x: Int, y: Int) {
        guard y >= 1, y < height - 1 else { return }
        if x < treeWidth {
            apply(tree.click(line: y - 1))
        } else if var pane = grid, inspector == nil, y >= 2, pane.click(x: x, line: y - 2, area: paneArea) {
            grid = pane
            focus = .grid
        }
    }
}
