import DatacenterKit
import Foundation

/// The staged edits: kept in the order made, reviewed as the SQL they run (`w`), committed
/// one transaction per store (`c`), dropped one by one (`x`) or all (`u`); `Z` stages the
/// undo of the last commit (`UndoPreparation`). It also answers the question quitting asks
/// while edits are staged. Staged edits are never dropped unasked,
/// and a store whose commit fails keeps its edits staged.
///
/// A commit runs off the input loop (`StagedCommit`); until its result comes, the edits stay
/// in the list and the list takes no key but moves, so nothing is dropped or changed under
/// it. Edits staged meanwhile are not part of it and stay staged.
struct ReviewPane {
    /// Edits waiting to be committed, in the order made.
    var staged: [StagedEdit] = [] {
        // A change other than undo and redo ends the redo chain, as editors do.
        didSet { if !undoing { undone = [] } }
    }
    /// Edits taken back with `u`, the last taken back last: `Ctrl-R` stages them again.
    private(set) var undone: [StagedEdit] = []
    /// True while `undo` or `redo` changes `staged`: the redo chain stays.
    private var undoing = false
    /// The staged edit under the cursor.
    var cursor = 0
    /// True while quitting waits for an answer about staged edits (commit, discard, stay).
    var confirmingQuit = false
    /// The commit running, if any.
    var committing: Int?
    /// The undo being worked out (`Z`), if any.
    var preparingUndo: Int?
    /// True when the running commit was asked for by the quit question: the browser ends
    /// after it if no edit is left.
    var quitAfterCommit = false

    /// The new values of the cells the staged updates change, by cell; a cell edited twice
    /// shows the last.
    var stagedValues: [StagedMark: StagedValue] {
        var values: [StagedMark: StagedValue] = [:]
        for edit in staged { if let mark = edit.mark, let value = edit.newValue { values[mark] = value } }
        return values
    }

    /// Adds an edit, named for its store and numbered `id`; returns the status line's message.
    mutating func stage(_ edit: StagedEdit, id: Int, catalog: BrowserCatalog) -> PaneEffect {
        var edit = edit
        edit.id = id
        edit.storeName = catalog.storeName(for: edit.storePath)
        staged.append(edit)
        return .message("staged (\(staged.count)) in \(edit.storeName): \(edit.preview) · w review, c commit", isError: false)
    }

    /// `u` in the grid: takes back the last edit staged (it goes to the redo chain); nothing is
    /// written either way.
    mutating func undo() -> [PaneEffect] {
        guard committing == nil else { return [.message("committing…: the list changes when it has been written", isError: false)] }
        guard let last = staged.last else { return [.message("nothing staged to undo", isError: false)] }
        undoing = true
        defer { undoing = false }
        staged.removeLast()
        undone.append(last)
        cursor = min(cursor, max(0, staged.count - 1))
        return [.message("undid: \(last.preview) · \(staged.count) staged · Ctrl-R redoes it", isError: false)]
    }

    /// `Ctrl-R` in the grid: stages again the last edit `u` took back.
    mutating func redo() -> [PaneEffect] {
        guard committing == nil else { return [.message("committing…: the list changes when it has been written", isError: false)] }
        guard let edit = undone.last else { return [.message("nothing to redo: u takes back the last staged edit", isError: false)] }
        undoing = true
        defer { undoing = false }
        undone.removeLast()
        staged.append(edit)
        return [.message("redid: \(edit.preview) · \(staged.count) staged", isError: false)]
    }

    /// One key of the review (`ReviewPane.keys`).
    mutating func handle(_ key: Key, context: PaneContext) -> [PaneEffect] {
        ReviewPane.keys.run(key, on: &self, context: context) ?? []
    }

    /// The review's keys. While a commit runs, the list only moves.
    static let keys = KeyMap<ReviewPane>("Staged edits (w in the tree or grid)", [
        KeyCommand([.up, .character("k"), .down, .character("j")], "↑ ↓ k j", "move") { pane, key, _ in
            pane.cursor = key == .up || key == .character("k") ? max(0, pane.cursor - 1) : min(max(0, pane.staged.count - 1), pane.cursor + 1)
            return []
        },
        KeyCommand([.character("c")], "c", "commit them all: one transaction per store", hint: "c commit all") { pane, _, _ in
            pane.whenIdle { _ in [.commit] }
        },
        KeyCommand([.character("u")], "u", "discard them all; nothing is written", hint: "u discard all") { pane, _, _ in
            pane.whenIdle { pane in
                let count = pane.staged.count
                pane.staged.removeAll()
                return [.message("discarded \(count) edit(s); nothing was written", isError: false), .focus(.grid)]
            }
        },
        KeyCommand([.character("Z")], "Z", "stage the undo of the last commit, if its rows are as it left them",
                   hint: "Z undo last commit") { pane, _, _ in
            pane.whenIdle { pane in
                guard pane.staged.isEmpty else {
                    return [.message("Z undoes the last commit: commit or discard the \(pane.staged.count) staged edit(s) first", isError: true)]
                }
                return [.undoLastCommit]
            }
        },
        KeyCommand([.character("x"), .backspace], "x Backspace", "drop the edit under the cursor", hint: "x drop one") { pane, _, _ in
            pane.whenIdle { pane in
                if pane.staged.indices.contains(pane.cursor) { pane.staged.remove(at: pane.cursor) }
                pane.cursor = min(pane.cursor, max(0, pane.staged.count - 1))
                return pane.staged.isEmpty ? [.focus(.grid)] : []
            }
        },
        KeyCommand([.escape, .tab], "Esc Tab", "back to the grid; the edits stay staged", hint: "Esc back") { _, _, _ in [.focus(.grid)] },
        .help,
    ])

    /// Runs `change` unless a commit is running, which the list must not change under.
    private mutating func whenIdle(_ change: (inout ReviewPane) -> [PaneEffect]) -> [PaneEffect] {
        guard committing == nil else { return [.message("committing…: the list changes when it has been written", isError: false)] }
        return change(&self)
    }

    /// One key of the quit question: c commits then quits (staying if the commit fails), d
    /// discards then quits, Esc or s stays.
    mutating func handleQuitQuestion(_ key: Key) -> [PaneEffect] {
        switch key {
        case .character("c"), .character("C"):
            confirmingQuit = false
            quitAfterCommit = true
            return [.commit]
        case .character("d"), .character("D"):
            confirmingQuit = false
            staged.removeAll()
            return [.quit]
        case .escape, .character("s"), .character("S"):
            confirmingQuit = false
            return [.message("\(staged.count) staged edit(s) kept · w review", isError: false)]
        default: return []
        }
    }

    /// Starts writing every staged edit (`StagedCommit` says how), keeping the undo in
    /// `stateFolder`; the result comes back through `finished`.
    mutating func commit(id: Int, catalog: BrowserCatalog, stateFolder: URL?) -> [PaneEffect] {
        guard catalog.allowsWrites else {
            quitAfterCommit = false
            return [.message("--read-only: edits are not written", isError: true)]
        }
        guard committing == nil else { return [.message("committing…", isError: false)] }
        guard !staged.isEmpty else { return [.message("nothing staged to commit", isError: false)] }
        committing = id
        let commit = StagedCommit(id: id, edits: staged, keys: catalog.keys, databaseKeys: catalog.databaseKeys, busyTimeout: catalog.busyTimeout,
                                  stateFolder: stateFolder)
        return [.command(.commit(commit)), .message("committing \(staged.count) edit(s)…", isError: false)]
    }

    /// Starts working out the undo of the last commit (`Z`); the result comes back through
    /// `undoPrepared`.
    mutating func prepareUndo(id: Int, catalog: BrowserCatalog, stateFolder: URL?) -> [PaneEffect] {
        guard catalog.allowsWrites else { return [.message("--read-only: nothing can be staged or written", isError: true)] }
        guard let stateFolder else {
            return [.message("no undo is kept: the browser has no state folder (set HOME or XDG_STATE_HOME)", isError: true)]
        }
        guard preparingUndo == nil else { return [.message("working out the undo…", isError: false)] }
        preparingUndo = id
        return [.command(.prepareUndo(UndoPreparation(id: id, stateFolder: stateFolder, catalog: catalog))),
                .message("working out the undo of the last commit…", isError: false)]
    }

    /// The result of `Z`: the undo staged for the review, or why not.
    mutating func undoPrepared(id: Int, edits: [StagedEdit], refusal: String?) -> [PaneEffect] {
        guard preparingUndo == id else { return [] }
        preparingUndo = nil
        if let refusal { return [.message(refusal, isError: true)] }
        return edits.map { .stage($0) } + [.focus(.review),
            .message("staged the undo of the last commit (\(edits.count) store(s)): c commits it, x drops it", isError: false)]
    }

    /// The result of the commit `id`: the edits written leave the list, the others stay.
    mutating func finished(id: Int, committed: [Int], failure: String?, undoNote: String?) -> [PaneEffect] {
        guard committing == id else { return [] }
        committing = nil
        let written = Set(committed)
        staged.removeAll { written.contains($0.id) }
        cursor = min(cursor, max(0, staged.count - 1))
        // The grid shows what was written (a store that changed nothing needs no reload, and
        // a failure's message must not give way to the reload's).
        var effects: [PaneEffect] = committed.isEmpty ? [] : [.reloadGrid]
        if let failure {
            effects += [.message("commit failed, that store is unchanged: \(failure)", isError: true), .focus(.review)]
        } else {
            effects += [.message("committed \(committed.count) edit(s) · " + (undoNote ?? "w then Z undoes it"), isError: undoNote != nil),
                        .focus(.grid)]
        }
        if quitAfterCommit {
            quitAfterCommit = false
            effects.append(.finish)
        }
        return effects
    }

    /// The status line while the quit question is open.
    var quitQuestion: String {
        " Quit with \(staged.count) staged edit(s) not written? c commit and quit · d discard and quit · Esc stay"
    }

    /// Draws the staged edits as the SQL they run, each with its store.
    func draw(into screen: inout ScreenGrid, area: PaneArea, focused: Bool) {
        screen.fill(x: area.x, y: area.y, count: area.width, role: .gridHeader)
        screen.write("Staged edits (\(staged.count)): the SQL they run, one transaction per store", x: area.x, y: area.y,
                     maxWidth: area.width, role: .gridHeader)
        var y = area.y + 1
        if staged.isEmpty, area.height > 1 {
            screen.write("Nothing staged. Z stages the undo of the last commit, for review before c commits it.",
                         x: area.x + 1, y: y, maxWidth: area.width - 1, role: .staged)
        }
        for (index, edit) in staged.enumerated() {
            let role: StyleRole = index == cursor ? .gridSelected : .staged
            for (i, part) in Inspector.wrapWords("[\(edit.storeName)] " + edit.preview, width: max(8, area.width - 4)).enumerated()
            where y < area.y + area.height {
                screen.fill(x: area.x, y: y, count: area.width, role: role)
                screen.write((i == 0 ? "\(index + 1). " : "   ") + part, x: area.x + 1, y: y, maxWidth: area.width - 1, role: role)
                y += 1
            }
        }
    }
}

extension ReviewPane: Pane {
    static var keyMaps: [KeyMap<ReviewPane>] { [keys] }
    var keyMap: KeyMap<ReviewPane> { ReviewPane.keys }
}
