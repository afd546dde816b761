import DatacenterKit
import Foundation

/// The staged edits: kept in the order made, reviewed as the SQL they run (`w`), committed
/// one transaction per store (`c`), dropped one by one (`x`) or all (`u`). It also answers
/// the question quitting asks while edits are staged. Staged edits are never dropped unasked,
/// and a store whose commit fails keeps its edits staged.
struct ReviewPane {
    /// Edits waiting to be committed, in the order made.
    var staged: [StagedEdit] = []
    var cursor = 0
    /// True while quitting waits for an answer about staged edits (commit, discard, stay).
    var confirmingQuit = false

    /// Adds an edit, named for its store; returns the status line's message.
    mutating func stage(_ edit: StagedEdit, catalog: BrowserCatalog) -> PaneEffect {
        var edit = edit
        edit.storeName = catalog.storeName(for: edit.storePath)
        staged.append(edit)
        return .message("staged (\(staged.count)) in \(edit.storeName): \(edit.preview) · w review, c commit", isError: false)
    }

    /// One key of the review.
    mutating func handle(_ key: Key) -> [PaneEffect] {
        switch key {
        case .up, .character("k"): cursor = max(0, cursor - 1)
        case .down, .character("j"): cursor = min(max(0, staged.count - 1), cursor + 1)
        case .character("x"), .backspace:
            if staged.indices.contains(cursor) { staged.remove(at: cursor) }
            cursor = min(cursor, max(0, staged.count - 1))
            if staged.isEmpty { return [.focus(.grid)] }
        case .character("u"):
            let count = staged.count
            staged.removeAll()
            return [.message("discarded \(count) edit(s); nothing was written", isError: false), .focus(.grid)]
        case .character("c"): return [.commit]
        case .escape, .tab: return [.focus(.grid)]
        default: break
        }
        return []
    }

    /// One key of the quit question: c commits then quits (staying if the commit fails), d
    /// discards then quits, Esc or s stays.
    mutating func handleQuitQuestion(_ key: Key) -> [PaneEffect] {
        switch key {
        case .character("c"), .character("C"):
            confirmingQuit = false
            return [.commit, .finish]
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

    /// Writes every staged edit: one transaction per store, in the order they were made, each
    /// on a read-write connection that changes nothing but what the edits say (no tables
    /// created, the journal mode left as it is). A store whose transaction fails is rolled
    /// back whole and its edits stay staged; the stores after it are not tried.
    mutating func commit(catalog: BrowserCatalog) -> [PaneEffect] {
        guard catalog.allowsWrites else { return [.message("--read-only: edits are not written", isError: true)] }
        var remaining: [StagedEdit] = []
        var committed = 0
        var failure: String?
        var order: [String] = []
        for edit in staged where !order.contains(edit.storePath) { order.append(edit.storePath) }
        for path in order {
            let edits = staged.filter { $0.storePath == path }
            guard failure == nil else { remaining += edits; continue }
            do {
                let store = try Store(existingAt: path, crypt: catalog.keys, busyTimeout: catalog.busyTimeout)
                try store.queue.inTransaction { db in
                    for edit in edits { try edit.apply(to: store, in: db) }
                }
                committed += edits.count
            } catch {
                failure = "\(error)"
                remaining += edits
            }
        }
        staged = remaining
        cursor = min(cursor, max(0, staged.count - 1))
        // The grid shows what was written (a store that changed nothing needs no reload, and
        // a failure's message must not give way to the reload's).
        var effects: [PaneEffect] = committed > 0 ? [.reloadGrid] : []
        if let failure {
            effects += [.message("commit failed, that store is unchanged: \(failure)", isError: true), .focus(.review)]
        } else {
            effects += [.message("committed \(committed) edit(s)", isError: false), .focus(.grid)]
        }
        return effects
    }

    /// The status line while the quit question is open.
    var quitQuestion: String {
        " Quit with \(staged.count) staged edit(s) not written? c commit and quit · d discard and quit · Esc stay"
    }

    /// Draws the staged edits as the SQL they run, each with its store.
    func draw(into screen: inout ScreenGrid, area: PaneArea) {
        screen.fill(x: area.x, y: area.y, count: area.width, role: .gridHeader)
        screen.write("Staged edits (\(staged.count)): the SQL they run, one transaction per store", x: area.x, y: area.y,
                     maxWidth: area.width, role: .gridHeader)
        var y = area.y + 1
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
