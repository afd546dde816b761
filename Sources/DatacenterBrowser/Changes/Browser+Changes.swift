import DatacenterChanges
import DatacenterKit
import Foundation

/// The mark and the changes since (`m`, `M`): `m` takes a snapshot of the root or file
/// browsed in the background (`BrowserCommand.mark`), which takes the place of the mark
/// before; `M` opens the grid of what changed since (`ChangesSummarySource`), and Enter on
/// one of its lines the changes of that business, table or cache (`ChangedRowsSource`).
/// Both follow new writes as any grid does (`pollForChanges`).
extension Browser {
    /// The root or file the browser shows, as a mark copies it.
    var markedPath: String? { catalog.rootPath ?? catalog.roots.first?.storePath }

    /// `m`: marks the state of the root now (again: moves the mark to now).
    func startMark() {
        guard marking == nil else { message = ("a mark is being taken", false); return }
        guard let stateFolder else {
            message = ("no state folder to keep a mark in ($XDG_STATE_HOME or $HOME): nothing marked", true)
            return
        }
        guard let live = markedPath else { return }
        let id = ids.next()
        marking = id
        message = ("marking the state of \((live as NSString).lastPathComponent)…", false)
        commands.append(.mark(requestID: id, live: live, catalog: catalog, state: stateFolder))
    }

    /// A mark was taken (or could not be): it becomes the mark, and the one before goes.
    func markTaken(id: Int, mark: ChangeMark?, error: String?) {
        guard marking == id else {
            mark?.remove()          // asked for by a root no longer browsed
            return
        }
        marking = nil
        guard let mark, mark.live == markedPath else {
            mark?.remove()
            if let error { message = ("cannot mark: \(error)", true) }
            return
        }
        changeMark?.remove()
        changeMark = mark
        let size = ByteCountFormatter.string(fromByteCount: mark.bytes, countStyle: .file)
        message = ("marked at \(ChangesSummarySource.time.string(from: mark.taken)): \(mark.stores) store\(mark.stores == 1 ? "" : "s"), "
                   + "\(size) kept in the state folder · M shows what changed since, m marks again", false)
    }

    /// A store copied while a mark is taken.
    func markProgressed(id: Int, store: String, index: Int, count: Int) {
        guard marking == id else { return }
        message = ("marking: \(store) (\(index) of \(count))…", false)
    }

    /// `M`: the grid of what changed since the mark.
    func openChanges() {
        guard let mark = changeMark else {
            message = (marking == nil ? "no mark yet: m marks the state of the root now, M then shows what changed since"
                       : "the mark is still being taken", false)
            return
        }
        let node = TreeNode(id: "changes#" + mark.folder, label: "changes since the mark", detail: "",
                            kind: .changes(mark: mark.folder, live: mark.live), children: [])
        startOpening(node, page: .first(limit: visibleRowCount * 2), isReload: false, view: TableView())
    }

    /// Removes the mark (the browser quits, or browses another root): nothing of it stays in
    /// the state folder.
    package func discardMark() {
        changeMark?.remove()
        changeMark = nil
        marking = nil
    }
}
