import DatacenterChanges
import DatacenterKit
import Foundation

/// The mark and the changes since (`m`, `M`): `m` takes a snapshot of the root or file
/// browsed in the background (`BrowserCommand.mark`), which takes the place of the mark
/// before; `M` opens the grid of what changed since (`ChangesSummarySource`), and Enter on
/// one of its lines the changes of that business, table or cache (`ChangedRowsSource`).
/// Both follow new writes as any grid does (`pollForChanges`). Its answers are
/// `PaneEffect`s the browser carries out.
struct ChangeMarking {
    /// The mark: what `M` compares the root with now; removed on quit.
    private(set) var mark: ChangeMark?
    /// The id of the mark being taken, if one is.
    private(set) var taking: Int?

    /// `m`: marks the state of `live` (the root or file browsed) now; again, moves the mark
    /// to now. The copy is kept in `stateFolder`.
    mutating func start(live: String?, stateFolder: URL?, context: PaneContext) -> [PaneEffect] {
        guard taking == nil else { return [.message("a mark is being taken", isError: false)] }
        guard let stateFolder else {
            return [.message("no state folder to keep a mark in ($XDG_STATE_HOME or $HOME): nothing marked", isError: true)]
        }
        guard let live else { return [] }
        let id = context.ids.next()
        taking = id
        return [.message("marking the state of \((live as NSString).lastPathComponent)…", isError: false),
                .command(.mark(requestID: id, live: live, catalog: context.catalog, state: stateFolder))]
    }

    /// A mark was taken (or could not be): it becomes the mark, and the one before goes. A
    /// mark of another root than `live` (browsed no longer) is removed.
    mutating func taken(id: Int, mark: ChangeMark?, error: String?, live: String?) -> [PaneEffect] {
        guard taking == id else {
            mark?.remove()          // asked for by a root no longer browsed
            return []
        }
        taking = nil
        guard let mark, mark.live == live else {
            mark?.remove()
            return error.map { [.message("cannot mark: \($0)", isError: true)] } ?? []
        }
        self.mark?.remove()
        self.mark = mark
        let size = ByteCountFormatter.string(fromByteCount: mark.bytes, countStyle: .file)
        return [.message("marked at \(ChangesSummarySource.time.string(from: mark.taken)): \(mark.stores) store\(mark.stores == 1 ? "" : "s"), "
                         + "\(size) kept in the state folder · M shows what changed since, m marks again", isError: false)]
    }

    /// A store copied while the mark `id` is taken.
    func progressed(id: Int, store: String, index: Int, count: Int) -> [PaneEffect] {
        taking == id ? [.message("marking: \(store) (\(index) of \(count))…", isError: false)] : []
    }

    /// `M`: the grid of what changed since the mark.
    func openChanges() -> [PaneEffect] {
        guard let mark else {
            return [.message(taking == nil ? "no mark yet: m marks the state of the root now, M then shows what changed since"
                             : "the mark is still being taken", isError: false)]
        }
        return [.open(TreeNode(id: "changes#" + mark.folder, label: "changes since the mark", detail: "",
                               kind: .changes(mark: mark.folder, live: mark.live), children: []))]
    }

    /// Removes the mark (the browser quits, or browses another root): nothing of it stays in
    /// the state folder.
    mutating func discard() {
        mark?.remove()
        mark = nil
        taking = nil
    }
}

extension Browser {
    /// The root or file the browser shows, as a mark copies it.
    var markedPath: String? { catalog.rootPath ?? catalog.roots.first?.storePath }

    /// Removes the mark (`ChangeMarking.discard`): `browse` calls it as it ends.
    package func discardMark() { changes.discard() }
}
