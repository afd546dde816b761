import DatacenterKit

/// The grid's lifecycle, as state of its own: the grid being read off the input loop
/// (opened, sorted or filtered, read again after a write or a change on disk), the grids `J`
/// left for `Backspace`, and whether a change poll is out. The browser keeps one; its
/// methods in `Browser+GridLifecycle.swift` start openings and take their answers, and only
/// an answer that is still wanted puts a grid on screen.
struct GridLifecycle {
    /// The grid being read off the input loop (`openGrid`), if any: only its answer counts.
    var opening: GridOpening?
    /// The grids `J` left, newest last: `Backspace` goes back to the last, at its row.
    var jumpStack: [JumpPlace] = []
    /// True while a `dataVersion` question is out (`pollForChanges`).
    var pollPending = false
    /// True while a `rootCurrentUser` question is out (`pollForChanges`).
    var rootPollPending = false
    /// True from a commit of the browser's own until the next change poll answers: the change
    /// that poll finds is the commit's (read again already), so the commit's message stays.
    var ownCommit = false
    /// The grids made from another (`F`, `W`), by their node: what Enter does there.
    var derivedGrids: [String: DerivedGrid] = [:]

    /// Esc while a grid is read: stops a sort or filter of the grid `shown` (a sort in memory
    /// reads every row first; the grid stays as it was), or a frequency table or the
    /// statistics being counted (`F`, `I`: SQLite stops). Nil when neither is being read.
    mutating func cancelOpening(shown: GridPane?) -> [PaneEffect]? {
        guard let request = opening, !request.isReload else { return nil }
        let said: String
        if let shown, shown.node.id == request.node.id, request.view != shown.source.view {
            said = "sort and filter cancelled: the grid stays as it was"
        } else if request.node.isQuery, request.node.id != shown?.node.id {
            said = "\(request.node.label): cancelled"
        } else {
            return nil
        }
        request.cancel.cancel()
        opening = nil
        return [.message(said, isError: false)]
    }

    /// What Enter does in the grid of `node` over `source`, when it was made from another
    /// (`DerivedGrid`): a frequency table's, the changes since a mark's.
    func derived(_ node: TreeNode, source: GridSource) -> DerivedGrid? {
        derivedGrids[node.id] ?? (source is ChangesSummarySource ? .changesSummary : nil)
    }

    /// A grid left by following a foreign key (`J`): which, how sorted and filtered, and
    /// where its cursor was.
    struct JumpPlace {
        /// The leaf the grid showed.
        let node: TreeNode
        /// Its sort and filter.
        let view: TableView
        /// The row under the cursor; nil when the grid showed none (`F` or `I` on an empty grid).
        let row: GridRow?
        /// The column under the cursor.
        let column: Int
    }

    /// A grid on its way from the command runner: opened, or read again after a write.
    struct GridOpening {
        /// The request's id: the answer to another request is dropped.
        let id: Int
        /// The leaf whose grid it is.
        let node: TreeNode
        /// What was asked for (its limit says whether the source may hold more rows).
        let page: PageRequest
        /// True when the grid shown is being read again after a write: it stays shown, and
        /// the fresh one takes its place, cursor, column and focus (`GridPane.keepPlace`).
        let isReload: Bool
        /// The sort and filter asked for.
        let view: TableView
        /// The pane that had the keys when the grid was asked for: a grid opened takes the
        /// keys only if no other pane took them meanwhile.
        let focus: Browser.Focus
        /// The grid a `J` leaves, remembered once the grid it leads to is open.
        var leaving: JumpPlace? = nil
        /// Where the cursor goes in the grid opened (`Backspace` back to a grid `J` left).
        var place: JumpPlace? = nil
        /// The column the cursor goes to in the grid opened (Enter on a column in the tree).
        var column: String? = nil
        /// Set to stop the reading (a sort in memory) when its answer is no longer wanted.
        let cancel: CancellationFlag
    }

}
